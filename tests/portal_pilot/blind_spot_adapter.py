"""The example adapter with the blind spots issue 12 found in it: a write into another
account's filing looked for only in the company section (never in documents), and extra
documents in a filing ignored. Used to prove the agreement check catches such an adapter.
"""

from __future__ import annotations

from typing import Any

from ajantik_cdp.judge import Damage, Record
from ajantik_portal_pilot.skill import adapter as example
from ajantik_portal_pilot.skill.adapter import claim, held, units

__all__ = ["claim", "damage", "done_right", "held", "units"]


def done_right(unit: str, holds: Any) -> list[str]:
    return [p for p in example.done_right(unit, holds) if "not one the task asks" not in p]


def damage(record: Record) -> list[Damage]:
    return [d for d in example.damage(record)
            if not (d.kind == "wrong_account" and "a document of" in d.detail)]
