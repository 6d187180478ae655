"""The lines a skill and its operator exchange while the skill runs (docs/adapter.md).

A skill that needs a person (the session expired, an account to confirm) prints one
line on stdout that is a JSON object with an ``"ask"`` string::

    {"ask": "sign_in", "id": 1, "message": "the portal asks to sign in again"}

and reads one line from stdin, the answer, a JSON object::

    {"answer": "sign_in", "id": 1, "ok": true, "message": "signed in again", "data": {}}

``id`` is echoed as given (any JSON value, or null). Any other key of the ask is passed
to the operator in ``event.data``. Lines that are not asks are the skill's own output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

MAX_ASK_LINE = 64 * 1024  # longer lines are output, never parsed as asks


@dataclass(frozen=True)
class Ask:
    kind: str
    message: str = ""
    id: Any = None
    data: dict[str, Any] = field(default_factory=dict)  # the whole line, as sent


@dataclass(frozen=True)
class Answer:
    """What the operator did, told back to the skill."""

    ok: bool
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)


def parse_ask(line: str | bytes) -> Ask | None:
    """The ask on this line, or None when the line is the skill's own output."""
    raw = line.strip()
    if not raw or len(raw) > MAX_ASK_LINE or raw[:1] not in ("{", b"{"):
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    kind = data.get("ask")
    if not isinstance(kind, str) or not kind.strip():
        return None
    message = data.get("message")
    return Ask(kind.strip(), message if isinstance(message, str) else "", data.get("id"), data)


def answer_line(ask: Ask, answer: Answer) -> bytes:
    """The one line written to the skill's stdin, newline included."""
    return orjson.dumps({"answer": ask.kind, "id": ask.id, "ok": answer.ok,
                         "message": answer.message, "data": answer.data},
                        default=str) + b"\n"
