"""The structured claim: one JSON object with a "units" object (or list), read first."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ajantik_cdp.core.scoring.verdicts import Said
from ajantik_cdp.judge.claims.claim import Claim
from ajantik_cdp.judge.claims.units import Units, unit_key

# The judge's words and the gauntlet claim line's.
_JSON_VALUES = {"done": Said.DONE, "completed": Said.DONE, "not done": Said.NOT_DONE,
                "failed": Said.NOT_DONE, "unsure": Said.UNSURE}



@dataclass(frozen=True)
class _Structured:
    claims: dict[int, Claim]
    broken: tuple[str, str] | None  # (quote, reason) when the last one cannot be read


def _json_candidates(lines: list[str], text: str) -> Iterator[tuple[str, Any, str]]:
    """(quote, parsed, error) for every JSON object that may hold units, in report order:
    single lines, then the whole report when it is one object over several lines."""
    for line in lines:
        stripped = line.strip()
        if not looks_structured(stripped):
            continue
        try:
            yield stripped, orjson.loads(stripped.lstrip("\ufeff")), ""
        except orjson.JSONDecodeError:
            yield stripped, None, "it is not valid JSON"
    whole = text.strip()
    if not any(looks_structured(line.strip()) for line in lines) and (
            looks_structured(whole) and "\n" in whole):
        try:
            yield whole, orjson.loads(whole), ""
        except orjson.JSONDecodeError:
            yield whole, None, "it is not valid JSON"


def looks_structured(text: str) -> bool:
    return text.lstrip("\ufeff").startswith("{") and '"units"' in text


def _unit_statuses(units: Any) -> list[tuple[str, Any]] | None:
    """(unit, status) pairs of a units object, or of a list of {"unit": ..., "status"}."""
    if isinstance(units, dict):
        return [(str(k), v) for k, v in units.items()]
    if isinstance(units, list) and all(isinstance(x, dict) for x in units):
        pairs = []
        for item in units:
            name = next((item[k] for k in ("unit", "id", "name") if k in item), None)
            if not isinstance(name, str):
                return None
            pairs.append((name, item))
        return pairs
    return None


def read_structured(units: Units, lines: list[str], text: str) -> _Structured:
    last: tuple[str, Any, str] | None = None
    for candidate in _json_candidates(lines, text):
        last = candidate
    if last is None:
        return _Structured({}, None)
    quote, data, error = last
    pairs = _unit_statuses(data.get("units")) if isinstance(data, dict) else None
    if not error and pairs is None:
        error = 'its "units" is neither an object of unit: status nor a list of them'
    if error or pairs is None:
        return _Structured({}, (quote, f"claim unreadable: the JSON units line cannot be "
                                       f"read: {error}"))
    claims = {}
    for key, value in pairs:
        unit = units.by_key.get(unit_key(str(key)))
        if unit is None:
            continue
        status = value.get("status") if isinstance(value, dict) else value
        said = (_JSON_VALUES.get(unit_key(status).replace("_", " "))
                if isinstance(status, str) else None)
        where = _quote_for_key(quote, str(key))
        if said is None:
            claims[unit] = Claim.unreadable(where, (
                f"claim unreadable: the JSON units line gives {key} {status!r}; use done, "
                "not_done or unsure"))
        else:
            claims[unit] = Claim(said, where, "JSON units line")
    return _Structured(claims, None)


def _quote_for_key(quote: str, key: str) -> str:
    """A multi-line JSON report is quoted by the line holding the unit's key."""
    if "\n" not in quote:
        return quote
    return next((ln.strip() for ln in quote.splitlines() if f'"{key}"' in ln), quote)
