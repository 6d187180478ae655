"""An event's method read from Chrome's text, without parsing the message.

Chrome writes an event's method first and unescaped (``{"method":"Network.dataReceived",
...``), so the name can be read off the front of the text. It lets the guard leave the
messages it has no interest in (most network events, large ones among them) off the JSON
parser. A message of any other shape gives None, and the caller then parses it: the test
can only send a message to the parser, never keep one from it wrongly.
"""

from __future__ import annotations

PREFIX = '{"method":"'


def event_method(text: str) -> str | None:
    """The method of an event written as Chrome writes it, else None."""
    if not text.startswith(PREFIX):
        return None
    end = text.find('"', len(PREFIX))
    if end < 0:
        return None
    method = text[len(PREFIX):end]
    # A backslash would be an escape: the name as written is not the name as read.
    return None if "\\" in method else method
