"""What the registry really holds, from its own state: the yardstick tests and
``ajantik demo`` hold the judge's record-based verdicts against. Never shown to a skill."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from portal_pilot.filing_state import ACCOUNTS
from portal_pilot.portal import Portal


@dataclass(frozen=True)
class FilingTruth:
    record: str
    holds: dict[str, Any]  # the filing exactly as the registry's API would answer it
    damage: frozenset[str]  # kinds: duplicate, wrong_account, submitted


def registry_truth(portal: Portal) -> dict[str, FilingTruth]:
    out = {}
    for rid in portal.state.filings:
        holds = portal.snapshot(rid)
        kinds = set()
        hashes = [d["sha256"] for d in holds["documents"]]
        if len(hashes) != len(set(hashes)):
            kinds.add("duplicate")
        company = holds["sections"].get("company") or {}
        own = ACCOUNTS[holds["account"]]["company_number"]
        others = {a["company_number"] for a in ACCOUNTS.values()} - {own}
        if company.get("company_number") in others:
            kinds.add("wrong_account")
        if holds["status"] == "submitted":
            kinds.add("submitted")
        out[rid] = FilingTruth(rid, holds, frozenset(kinds))
    return out
