"""Claims in one line: the status after a unit (or before it), units sharing a claim,
units in brackets after a status. Pure."""

from __future__ import annotations

import itertools
import re

from ajantik_cdp.core.scoring.verdicts import Said
from ajantik_cdp.judge.claims.units import Occurrence, Units, group_spans, occurrences
from ajantik_cdp.judge.claims.vocabulary import GROUP, SEP, STATUS, WINDOW, Read, said_of, status_at

_JOIN_RE = re.compile(rf"(?:\s*(?:{GROUP}))*\s*(?:,|&|\+|/|and|,\s*and)?\s*", re.IGNORECASE)
MARKER_RE = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+)?"
                        r"(?:(?:[-+•‣◦▪▫·●○]|\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)])\s+)?",
                        re.IGNORECASE)
_HEAD_START_RE = re.compile(rf"^\s*(?:\[(?P<box>[ xX])\]\s*)?(?:{STATUS})?{SEP}$",
                            re.IGNORECASE)
_HEAD_LATER_RE = re.compile(rf"[,;.!|]\s*(?:\d+\s+)?(?:{STATUS}){SEP}$", re.IGNORECASE)
_STATUS_BEFORE_RE = re.compile(rf"(?:^|[,;:.])\s*(?:\d+\s+)?(?:{STATUS})\s*$", re.IGNORECASE)


def unwrap_bare_units(units: Units, text: str) -> str:
    """"(R-101)" or "[R-101]" holding nothing but the unit: the brackets are decoration."""
    def strip(m: re.Match[str]) -> str:
        inner = m.group(0)[1:-1]
        return f" {inner} " if units.pattern.fullmatch(inner.strip()) else m.group(0)
    return re.sub(r"\([^()]*\)|\[[^\[\]]*\]", strip, text)


def _joined(text: str, start: int, end: int) -> bool:
    return end - start <= WINDOW and _JOIN_RE.fullmatch(text, start, end) is not None


def line_claims(units: Units, text: str, at: int = 0,
                 ) -> tuple[list[tuple[int, Read]], list[int]]:
    """Claims in one normalised line (from ``at``, past its list marker), and the units it
    mentions without a claim."""
    spans = group_spans(text)

    def inside(o: Occurrence) -> bool:
        return any(a <= o.start < b for a, b in spans)

    every = [o for o in occurrences(units, text) if o.start >= at]
    top = [o for o in every if not inside(o)]
    claims: list[tuple[int, Read]] = []
    consumed: list[tuple[int, int]] = []  # status words already read as some unit's claim
    mentioned: list[int] = []
    prev_end = at
    i = 0
    while i < len(top):
        # "R-101, R-103 (both Northwind) and R-104: done": one claim for the group.
        j = i
        while j + 1 < len(top) and _joined(text, top[j].end, top[j + 1].start):
            j += 1
        group = top[i:j + 1]
        limit = top[j + 1].start if j + 1 < len(top) else len(text)
        tail = status_at(text[:min(limit, group[-1].end + WINDOW)], group[-1].end)
        # Slices, not pos/endpos: "^" would not match at pos.
        before = text[max(prev_end, group[0].start - WINDOW):group[0].start]
        whole = group[0].start - prev_end <= WINDOW
        head = (_HEAD_START_RE.search(before) if i == 0 and whole else None) or (
            _HEAD_LATER_RE.search(before))
        saids: set[Said] = set()
        problem = ""
        if tail is not None:
            if tail.said is None:
                problem = tail.problem
            else:
                saids.add(tail.said)
                consumed.append((group[-1].end, tail.end))
        if head is not None:
            if head.groupdict().get("box") is not None:
                saids.add(Said.DONE if head.group("box").strip() else Said.NOT_DONE)
            if any(head.group(k) is not None for k in ("done", "not_done", "unsure")):
                saids.add(said_of(head))
        if len(saids) > 1:
            problem = "its status words contradict each other"
        if problem:
            claims.extend((o.unit, Read(None, 0, problem)) for o in group)
        elif saids:
            said = saids.pop()
            claims.extend((o.unit, Read(said, 0)) for o in group)
        else:
            mentioned.extend(o.unit for o in group)
        prev_end = tail.end if tail is not None and tail.said is not None else group[-1].end
        i = j + 1
    # "2 done (R-101, R-103)": brackets holding only units, right after a status that is
    # no other unit's claim.
    for a, b in spans:
        inner = [o for o in every if a < o.start < b]
        if not inner:
            continue
        bare = (_joined(text, a + 1, inner[0].start) and _joined(text, inner[-1].end, b - 1)
                and all(_joined(text, x.end, y.start)
                        for x, y in itertools.pairwise(inner)))
        start = max(at, a - WINDOW)
        status = _STATUS_BEFORE_RE.search(text[start:a])
        if status is not None and start > at and status.start() == 0 and (
                text[start] not in ",;:."):
            status = None  # "^" matched where the window was cut, not at the line start
        if bare and status is not None and not any(
                s < start + status.end() and e > start + status.start()
                for s, e in consumed):
            claims.extend((o.unit, Read(said_of(status), 0)) for o in inner)
        else:
            mentioned.extend(o.unit for o in inner)
    return claims, mentioned
