"""Claims in markdown tables: by a Status column, by the one status cell, or by a Status
row under units as columns. Pure."""

from __future__ import annotations

import re

from ajantik_cdp.judge.claims.findings import Scan
from ajantik_cdp.judge.claims.lines import line_claims
from ajantik_cdp.judge.claims.units import Units, group_spans, occurrences
from ajantik_cdp.judge.claims.vocabulary import ANSWERS, GROUP, WINDOW, Read, status_at

MAX_CELLS = 32
_STATUS_HEADER_RE = re.compile(r"^\s*(?:status|state|outcome|result|claim|verdict|progress"
                               r"|(?P<question>done|complete|completed|finished))\s*\??\s*$",
                               re.IGNORECASE)
_SEPARATOR_ROW_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_REST_IS_EMPTY_RE = re.compile(rf"^(?:\s|[.!)\]]|{GROUP})*$")



def _cells(row: str) -> list[str]:
    body = row.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    # A claim's row has a handful of cells; the rest of a freak row is not read.
    cells = re.split(r"(?<!\\)\|", body, maxsplit=MAX_CELLS)[:MAX_CELLS]
    return [c.replace("\\|", "|") for c in cells]


def _cell_status(cell: str, question: bool = False) -> tuple[Read | None, bool]:
    """The status a cell starts with, and whether the cell is nothing but that status."""
    if question:
        answer = ANSWERS.get(cell.strip().strip(".!").casefold())
        if answer is not None:
            return Read(answer, len(cell)), True
    padded = " " + cell[:WINDOW]
    read = status_at(padded, 0)
    if read is None:
        return None, False
    if read.said is None:
        return read, True
    full = len(cell) <= WINDOW and _REST_IS_EMPTY_RE.match(padded[read.end:]) is not None
    return read, full


def is_row(norm: str) -> bool:
    s = norm.strip()
    return s.startswith("|") or s.count("|") >= 2


def _top_units(units: Units, cell: str) -> list[int]:
    spans = group_spans(cell)
    return [o.unit for o in occurrences(units, cell)
            if not any(a <= o.start < b for a, b in spans)]


def table(units: Units, rows: list[tuple[int, str]], scan: Scan) -> None:
    """One block of table lines: (line number, normalised line) each."""
    header: list[str] | None = None
    body = rows
    if len(rows) >= 2 and _SEPARATOR_ROW_RE.match(rows[1][1]):
        header = _cells(rows[0][1])
        body = rows[2:]
    status_col: int | None = None
    question = False
    if header is not None:
        by_column = [(k, _top_units(units, c)) for k, c in enumerate(header)]
        if any(found for _, found in by_column):
            _transposed(rows[0][0], body, by_column, scan)
            return
        for k, cell in enumerate(header):
            m = _STATUS_HEADER_RE.match(cell)
            if m is not None:
                status_col, question = k, m.group("question") is not None
                break
    for number, norm in body:
        if _SEPARATOR_ROW_RE.match(norm):
            continue
        cells = _cells(norm)
        holders = [k for k, c in enumerate(cells) if _top_units(units, c)]
        if not holders:
            for o in occurrences(units, norm):
                scan.mention(o.unit, number)
            continue
        first = holders[0]
        subjects = _top_units(units, cells[first])
        for k in holders[1:]:
            for u in _top_units(units, cells[k]):
                scan.mention(u, number)
        if status_col is not None and status_col != first:
            # The table says where the status is: what that cell holds is the claim.
            cell = cells[status_col] if status_col < len(cells) else ""
            read, _ = _cell_status(cell, question)
            if read is None:
                read = Read(None, 0, f"its status cell {cell.strip()!r} holds no status "
                                      "the reader knows")
            for u in subjects:
                scan.found(u, read, number, "table row")
            continue
        # No status column: a claim in the unit's own cell ("R-101: done"), else the one
        # status the other cells hold.
        own, _ = line_claims(units, cells[first])
        if own:
            for u, r in own:
                scan.found(u, r, number, "table row")
            continue
        reads = [_cell_status(c) for k, c in enumerate(cells) if k != first]
        whole = [r for r, full in reads if r is not None and full]
        starts = [r for r, _ in reads if r is not None]
        if whole:
            agree = len({r.said for r in whole}) == 1
            read = whole[0] if agree else Read(None, 0, "its cells hold contradicting "
                                                "statuses")
        elif starts:
            read = starts[0]
        else:
            for u in subjects:
                scan.mention(u, number)
            continue
        for u in subjects:
            scan.found(u, read, number, "table row")


def _transposed(head: int, body: list[tuple[int, str]], by_column: list[tuple[int, list[int]]],
                scan: Scan) -> None:
    """A table with one column per unit and a "Status" row."""
    rows = [r for r in body if not _SEPARATOR_ROW_RE.match(r[1])]
    labelled = [r for r in rows if _STATUS_HEADER_RE.match(_cells(r[1])[0])]
    chosen = labelled[0] if labelled else (rows[0] if len(rows) == 1 else None)
    for k, found in by_column:
        for u in found:
            if chosen is None:
                scan.mention(u, head)
                continue
            cells = _cells(chosen[1])
            read, _ = _cell_status(cells[k]) if k < len(cells) else (None, False)
            if read is None:
                read = Read(None, 0, "its column holds no status the reader knows")
            scan.found(u, read, head, "table column", last=chosen[0])
