"""Counts in sentences people read: "1 request", "2 requests", never "1 requests" or
"request(s)"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``counted(1, "block")`` is "1 block"; ``counted(0, "entry", "entries")`` is
    "0 entries"."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
