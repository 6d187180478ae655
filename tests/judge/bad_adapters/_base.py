"""Shared by the bad adapters: a correct implementation of every function, so each bad
adapter breaks exactly one thing."""

from __future__ import annotations

from typing import Any

from ajantik_cdp.judge import Claim, Held, Record, Report


def units(record: Record, report: Report) -> list[str]:
    return ["A-1"]


def held(unit: str, record: Record) -> Held:
    return Held.known({"status": "approved"})


def done_right(unit: str, holds: Any) -> list[str]:
    return []


def claim(unit: str, report: Report) -> Claim:
    return Claim.silent()
