"""Reading every unit's claim out of a report: the structured line first, then the text
(lines, tables, headings), then the rules for conflicts, mentions and silence."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ajantik_cdp.core.scoring.verdicts import Said
from ajantik_cdp.judge.claims.claim import Claim
from ajantik_cdp.judge.claims.findings import Finding, Scan
from ajantik_cdp.judge.claims.lines import MARKER_RE, line_claims, unwrap_bare_units
from ajantik_cdp.judge.claims.structured import looks_structured, read_structured
from ajantik_cdp.judge.claims.tables import is_row, table
from ajantik_cdp.judge.claims.units import Units, occurrences
from ajantik_cdp.judge.claims.vocabulary import GROUP, WINDOW, Read, normalise, status_at

_LABEL_LINE_RE = re.compile(r"^\s*(?:status|state|outcome|result|claim)(?![a-z0-9])",
                            re.IGNORECASE)
_HEADING_REST_RE = re.compile(rf"(?:\s?(?:{GROUP}))*[\s:\-]*")




def _scan(units: Units, raw_lines: list[str]) -> Scan:
    scan = Scan(raw_lines, [], {})
    norms = [unwrap_bare_units(units, normalise(line.rstrip("\r\n"))) for line in raw_lines]
    n = 0
    while n < len(norms):
        norm = norms[n]
        number = n + 1
        if looks_structured(raw_lines[n].strip()):
            n += 1  # read as the structured claim, or not at all
            continue
        if is_row(norm):
            block = []
            while n < len(norms) and is_row(norms[n]):
                block.append((n + 1, norms[n]))
                n += 1
            table(units, block, scan)
            continue
        start = MARKER_RE.match(norm)
        at = start.end() if start else 0
        claims, mentioned = line_claims(units, norm, at)
        for u, read in claims:
            scan.found(u, read, number, "line")
        heading = _heading_unit(units, norm, at, claims, mentioned)
        under = _status_under(units, norms, n) if heading is not None else None
        if heading is not None and under is not None:
            last, read = under
            scan.found(heading, read, number, "status line under the unit's heading", last)
        else:
            for u in mentioned:
                scan.mention(u, number)
        n += 1
    return scan


def _heading_unit(units: Units, norm: str, at: int, claims: list[tuple[int, Read]],
                  mentioned: list[int]) -> int | None:
    """The unit of a line that is nothing but the unit ("### R-101 (Northwind):")."""
    if claims or len(mentioned) != 1:
        return None
    occ = [o for o in occurrences(units, norm) if o.start >= at]
    if len(occ) != 1 or norm[at:occ[0].start].strip():
        return None
    if not _HEADING_REST_RE.fullmatch(norm[occ[0].end:occ[0].end + WINDOW + 1]):
        return None
    return occ[0].unit


def _status_under(units: Units, norms: list[str], n: int) -> tuple[int, Read] | None:
    """A "Status: done" line below a unit's heading, before the next unit or heading:
    (its line number, what it says)."""
    for k in range(n + 1, len(norms)):
        norm = norms[k]
        if occurrences(units, norm) or norm.lstrip().startswith("#") or is_row(norm):
            return None
        start = MARKER_RE.match(norm)
        body = norm[start.end() if start else 0:]
        if _LABEL_LINE_RE.match(body) is None:
            continue
        read = status_at(body[:WINDOW], 0)
        if read is None:
            read = Read(None, 0, "its status line holds no status the reader knows")
        return k + 1, read
    return None


@functools.lru_cache(maxsize=8)  # the judge asks once per unit of one report
def _read_all(text: str, names: tuple[str, ...]) -> tuple[Claim, ...]:
    if not text.strip():
        return tuple(Claim.silent("no claim: the report is empty (the skill printed nothing)")
                     for _ in names)
    units = Units.of(names)
    raw_lines = text.splitlines(keepends=True)
    structured = read_structured(units, [ln.rstrip("\r\n") for ln in raw_lines], text)
    scan = _scan(units, raw_lines)
    by_unit: dict[int, list[Finding]] = {}
    for f in scan.findings:
        by_unit.setdefault(f.unit, []).append(f)
    out = []
    for i, name in enumerate(names):
        if i in structured.claims:
            out.append(structured.claims[i])
        elif structured.broken is not None:
            out.append(Claim.unreadable(*structured.broken))
        else:
            out.append(_resolve(name, by_unit.get(i, []), scan.mentions.get(i)))
    return tuple(out)


def _resolve(name: str, findings: list[Finding], mention: tuple[int, str] | None) -> Claim:
    bad = next((f for f in findings if f.said is None), None)
    if bad is not None:
        return Claim.unreadable(bad.quote, f"claim unreadable: line {bad.line} speaks of "
                                f"{name}, but {bad.reason}")
    if len({f.said for f in findings}) > 1:
        first = findings[0]
        other = next(f for f in findings if f.said != first.said)
        assert first.said is not None and other.said is not None
        return Claim.unreadable(first.quote, (
            f"claim unreadable: the report says {name} is {_word(first.said)} (line "
            f"{first.line}) and {_word(other.said)} (line {other.line}: {other.quote!r})"))
    if findings:
        f = findings[0]
        assert f.said is not None
        return Claim(f.said, f.quote, f.form)
    if mention is not None:
        line, quote = mention
        return Claim.unreadable(quote, (
            f"claim unreadable: line {line} mentions {name} but says neither done, not done "
            "nor unsure in a form the reader knows (its status words are English only; a "
            "report in another language needs a JSON units line)"))
    return Claim.silent(f"no claim: the report does not mention {name}")


def _word(said: Said) -> str:
    return said.value.replace("_", " ")


def read_claims(text: str, units: Sequence[str]) -> dict[str, Claim]:
    """Every unit's claim in the report ``text``, read as the module docstring says."""
    names = tuple(dict.fromkeys(units))
    return dict(zip(names, _read_all(text, names), strict=True))


def read_claim(text: str, unit: str, units: Sequence[str] = ()) -> Claim:
    """One unit's claim. Pass every unit of the work as ``units``: "R-101, R-103: done"
    can only be read knowing that R-103 is a unit too."""
    names = tuple(dict.fromkeys((*units, unit)))
    return _read_all(text, names)[names.index(unit)]
