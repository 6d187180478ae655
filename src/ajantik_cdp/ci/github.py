"""GitHub Actions' workflow commands and step-summary markdown. Pure.

An annotation is one stdout line, ``::error title=T::message``. Its text is escaped as
the runner's own toolkit does, so a message cannot end the line early and start a
command of its own: an agent's words reach annotations, and an agent is not trusted.
Step-summary cells are escaped for the same reason (a ``|`` would open a column, a
``<`` a tag).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Level = Literal["error", "warning", "notice"]
# GitHub shows at most 10 annotations of a kind per step; past that they are dropped
# without a word, so the last one we print says how many more there were.
MAX_ANNOTATIONS = 10


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: Level, title: str, message: str) -> str:
    return f"::{level} title={_property(title)}::{_data(message)}"


def capped(level: Level, items: Sequence[tuple[str, str]], more: str) -> list[str]:
    """Annotations for (title, message) pairs, the overflow folded into the last one."""
    if len(items) <= MAX_ANNOTATIONS:
        return [annotation(level, t, m) for t, m in items]
    shown = [annotation(level, t, m) for t, m in items[:MAX_ANNOTATIONS - 1]]
    rest = len(items) - len(shown)
    return [*shown, annotation(level, f"{rest} more", more)]


def cell(text: str) -> str:
    """Text for one markdown table cell."""
    flat = " ".join(text.split())
    return (flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("|", "\\|"))


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
