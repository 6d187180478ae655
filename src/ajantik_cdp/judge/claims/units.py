"""Finding the units of the work in a line of a report. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ajantik_cdp.judge.claims.vocabulary import normalise


@dataclass(frozen=True)
class Units:
    """The units to look for, as one pattern (longest name first, so "R-1010" is never
    read as "R-101")."""

    names: tuple[str, ...]
    pattern: re.Pattern[str]
    by_key: dict[str, int]

    @classmethod
    def of(cls, names: tuple[str, ...]) -> Units:
        alternatives = []
        for i, name in sorted(enumerate(names), key=lambda p: -len(p[1])):
            body = normalise(name).strip()
            piece = re.escape(body).replace(r"\ ", r"\s+").replace(r"\-", "-") if body else (
                "(?!)")  # a name of marks only, "**": nothing in a report is that unit
            alternatives.append(f"(?P<u{i}>{piece})")
        pattern = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(alternatives)
                             + r")(?![A-Za-z0-9]|-[0-9])", re.IGNORECASE)
        keys = {unit_key(n): i for i, n in enumerate(names)}
        return cls(names, pattern, keys)


def unit_key(name: str) -> str:
    return re.sub(r"\s+", " ", normalise(name)).strip().casefold()


@dataclass(frozen=True)
class Occurrence:
    start: int
    end: int
    unit: int


def occurrences(units: Units, text: str) -> list[Occurrence]:
    out = []
    for m in units.pattern.finditer(text):
        assert m.lastgroup is not None
        out.append(Occurrence(m.start(), m.end(), int(m.lastgroup[1:])))
    return out


def group_spans(text: str) -> list[tuple[int, int]]:
    """Top-level (...) and [...] spans: units inside them are asides, not claim subjects."""
    spans = []
    depth = 0
    start = 0
    for m in _BRACKET_RE.finditer(text):
        if m.group() in "([":
            if depth == 0:
                start = m.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                spans.append((start, m.end()))
    return spans


_BRACKET_RE = re.compile(r"[()\[\]]")
