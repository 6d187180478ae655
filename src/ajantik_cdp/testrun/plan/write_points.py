"""Write points: the places a skill writes, found in a clean run's record. Pure.

A write point is a method and a URL path with its ids generalised:
``POST /api/filings/R-102/documents`` and ``POST /api/filings/R-103/documents`` are both
``POST /api/filings/*/documents``. A fault is aimed at the k-th write of one point.

The guard counts faults by URL alone (``--fault KIND:REGEX --fault-at N`` counts the
writes whose URL the regex matches, whatever their method), and one point's regex can
match another point's URLs (``/items/*`` matches ``/items/export``). So the index the
guard is given is not k but the position of that write among every write of the clean
run its regex matches: ``guard_at()``. A faulted run follows the clean run up to its
fault, so the guard fires on the intended write; the record then says which write it
fired on (``point_of()``), and a fault that fired elsewhere is no test of the point.

Only the path is generalised and matched, never the origin: a portal that moves ports
between runs (the demo's) keeps its write points.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ajantik_cdp.core.policy.rules import is_write

WILDCARD = "*"
# What stands for a generalised segment in the guard's regex: one path segment.
_SEGMENT = "[^/?#]+"
_ORIGIN = "^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*"
_HEX = re.compile(r"[0-9a-fA-F]{8,}")
_VERSION = re.compile(r"v\d{1,3}(?:\.\d{1,3})*", re.IGNORECASE)  # /api/v2/, not an id
_SEPARATOR_NEAR_DIGIT = re.compile(r"\d[-_.:~]|[-_.:~]\d")


def is_id(segment: str) -> bool:
    """Whether a path segment names one record rather than a kind of thing.

    Ids: numbers (``102``), anything with a run of two digits (``R-102``, ``2024``), a
    digit joined by a separator (``R-1``, ``item_7``), hex of 8 or more with a digit
    (``5f2b9c1e``), 16 or more characters with a digit (tokens), percent-escapes (a
    masked value). Not ids: words (``documents``), versions (``v2``), words that end in a
    digit (``oauth2``, ``s3``).
    """
    if not segment or segment == WILDCARD:
        return False
    if "%" in segment:
        return True
    if not any(c.isdigit() for c in segment):
        return False
    if _VERSION.fullmatch(segment):
        return False
    return bool(
        segment.isdigit()
        or re.search(r"\d\d", segment)
        or _SEPARATOR_NEAR_DIGIT.search(segment)
        or (_HEX.search(segment) and len(segment) >= 8)
        or len(segment) >= 16
    )


def generalise_path(path: str) -> str:
    """The path with every id segment replaced by ``*``."""
    return "/".join(WILDCARD if is_id(s) else s for s in path.split("/"))


def path_of(url: str) -> str:
    try:
        return urlsplit(url).path or "/"
    except ValueError:
        return "/"


@dataclass(frozen=True, order=True)
class WritePoint:
    method: str  # upper case
    pattern: str  # the generalised path, e.g. /api/filings/*/documents

    @property
    def label(self) -> str:
        return f"{self.method} {self.pattern}"

    @property
    def regex(self) -> str:
        """The regex the guard matches against a write's URL (any origin, any query)."""
        parts = [_SEGMENT if s == WILDCARD else re.escape(s) for s in self.pattern.split("/")]
        return _ORIGIN + "/".join(parts) + "(?:[?#]|$)"

    def matches(self, method: str, url: str) -> bool:
        return point_of(method, url) == self

    @classmethod
    def parse(cls, label: str) -> WritePoint:
        """``"POST /api/filings/*/documents"`` (as printed) back into a point."""
        method, sep, pattern = label.strip().partition(" ")
        pattern = pattern.strip()
        if not sep or not method.isalpha() or not pattern.startswith("/"):
            raise ValueError(f"a write point is METHOD /path (ids as *), e.g. "
                             f"'POST /api/filings/*/documents'; got {label!r}")
        return cls(method.upper(), pattern)


def point_of(method: str, url: str) -> WritePoint:
    return WritePoint(method.upper(), generalise_path(path_of(url)))


@dataclass(frozen=True)
class Write:
    """One write of a record, in record order: what grouping and aiming need."""

    method: str
    url: str
    line: int = 0  # the record line, for citing


@dataclass(frozen=True)
class PointUse:
    """A write point and how the clean run used it."""

    point: WritePoint
    writes: int  # how many writes of this point the clean run made
    lines: tuple[int, ...] = ()  # their record lines


def writes_of(requests: Iterable[tuple[int, str, str]]) -> list[Write]:
    """The writes among (line, method, url) request lines: methods other than GET,
    HEAD and OPTIONS, as the guard counts them."""
    return [Write(m, u, n) for n, m, u in requests if is_write(m)]


def group(writes: Sequence[Write]) -> list[PointUse]:
    """Every write point of a run, in the order of each point's first write."""
    order: list[WritePoint] = []
    lines: dict[WritePoint, list[int]] = {}
    for w in writes:
        p = point_of(w.method, w.url)
        if p not in lines:
            order.append(p)
            lines[p] = []
        lines[p].append(w.line)
    return [PointUse(p, len(lines[p]), tuple(lines[p])) for p in order]


def guard_at(writes: Sequence[Write], point: WritePoint, k: int) -> int | None:
    """What to give the guard as ``--fault-at`` so that it fires on the k-th write of
    ``point`` (1-based), when the run writes as ``writes`` did; None when the run made
    fewer than k writes of the point."""
    regex = re.compile(point.regex)
    matched = 0
    seen = 0
    for w in writes:
        if regex.search(w.url) is None:
            continue
        matched += 1
        if point.matches(w.method, w.url):
            seen += 1
            if seen == k:
                return matched
    return None


def overlaps(point: WritePoint, other: WritePoint) -> bool:
    """Whether a write of ``other`` can match ``point``'s regex, so that counting by URL
    alone (as the guard does) mixes the two. Ids never equal words (``is_id``), so only a
    ``*`` of ``point`` takes another point's segment."""
    if point == other:
        return False
    mine, theirs = point.pattern.split("/"), other.pattern.split("/")
    return len(mine) == len(theirs) and all(
        a in (WILDCARD, b) for a, b in zip(mine, theirs, strict=True))
