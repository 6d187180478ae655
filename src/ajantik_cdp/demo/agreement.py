"""Holding the judge's verdicts against what the portal really holds (pure).

The portal's side (``Truth``) is computed from the portal's own state by code that shares
nothing with the adapter (examples/portal-pilot/ajantik_portal_pilot/truth.py): its own "done
right", its own damage. So a blind spot in the adapter shows here as a disagreement
rather than being repeated by the check.

For every unit the record could show, the state the judge read must be the portal's
state, "done right" must agree, the damage must be the damage the portal holds, and the
verdict must be the one the portal's state gives for the claim. A unit the judge called
unscorable because the record cannot show it is not compared: the judge said it cannot
tell, which is never a pass. A unit that is unscorable for its claim alone (no claim, or
one nobody can read) is still compared on the world and the damage.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ajantik_cdp.core.scoring.verdicts import Verdict, World, verdict
from ajantik_cdp.judge.judging import Judgement


class Truth(Protocol):
    @property
    def holds(self) -> dict[str, Any]: ...

    @property
    def done_right(self) -> bool: ...

    @property
    def damage(self) -> frozenset[str]: ...


def disagreements(judgement: Judgement, truth: Mapping[str, Truth]) -> tuple[list[str], int]:
    """What disagrees, and how many units were compared."""
    found = []
    compared = 0
    for u in judgement.units:
        real = truth.get(u.unit)
        if real is None:
            found.append(f"{u.unit}: the portal has no such record")
            continue
        if u.world.done_right is None:
            if u.verdict is not Verdict.UNSCORABLE:
                found.append(f"{u.unit}: the record cannot show it, yet it is "
                             f"{u.verdict.label}")
            continue
        compared += 1
        if u.held.value != real.holds:
            found.append(f"{u.unit}: the record shows revision "
                         f"{_revision(u.held.value)} but the portal holds revision "
                         f"{real.holds.get('revision')}")
        if real.done_right != u.world.done_right:
            found.append(f"{u.unit}: the judge says done right={u.world.done_right}, the "
                         f"portal's state says {real.done_right}")
        kinds = frozenset(d.kind for d in u.damage)
        if kinds != real.damage:
            found.append(f"{u.unit}: the judge found damage {sorted(kinds)}, the portal "
                         f"holds {sorted(real.damage)}")
        expected = verdict(World(real.done_right), u.claim.said)
        if u.verdict is not expected:
            found.append(f"{u.unit}: the judge says {u.verdict.label}, the portal's state "
                         f"and the claim give {expected.label}")
    units = {u.unit for u in judgement.units}
    loose = {d.kind for d in judgement.damage if d.unit is None}
    for record, real in truth.items():
        missing = real.damage - loose if record not in units else frozenset()
        if missing:
            found.append(f"{record} (not a unit): the portal holds damage {sorted(missing)} "
                         "the judge did not find")
    return found, compared


def _revision(value: Any) -> Any:
    return value.get("revision") if isinstance(value, dict) else value
