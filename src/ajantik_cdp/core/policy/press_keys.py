"""Which key events are a press: Enter or Space, named by any field Chrome builds the DOM
event from. Pure.

A client's ``Input.dispatchKeyEvent`` need not name its key: Chrome fills the event's
``keyCode``/``which`` from ``windowsVirtualKeyCode``, its ``code`` from ``code``, and a
``char`` event's ``charCode`` from ``text``, leaving ``key`` empty (measured, Chrome 156:
every one of these presses a control whose listener reads ``keyCode``). A script's
``KeyboardEvent`` may likewise carry only ``keyCode`` or ``charCode``. So a key is
judged by all of them. ``deny_clicks.js`` holds the same table for DOM events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ENTER_KEYS = frozenset({"Enter", "\r", "\n"})
SPACE_KEYS = frozenset({" ", "Spacebar"})
ENTER_CODES = frozenset({"Enter", "NumpadEnter"})
SPACE_CODES = frozenset({"Space"})
ENTER_NUMBERS = frozenset({10, 13})
SPACE_NUMBERS = frozenset({32})


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def press_key_of(params: Mapping[str, Any]) -> str | None:
    """"Enter", "Space" or None for one ``Input.dispatchKeyEvent``'s parameters."""
    key, code = params.get("key"), params.get("code")
    numbers = {_number(params.get("windowsVirtualKeyCode"))}
    texts = {params.get("text"), params.get("unmodifiedText")}
    if key in ENTER_KEYS or code in ENTER_CODES or numbers & ENTER_NUMBERS \
            or texts & ENTER_KEYS:
        return "Enter"
    if key in SPACE_KEYS or code in SPACE_CODES or numbers & SPACE_NUMBERS:
        return "Space"
    return None
