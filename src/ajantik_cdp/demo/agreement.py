"""Holding the judge's verdicts against what the portal really holds (pure).

For every unit the record could show, the state the judge read from the record must be
the portal's own state, "done right" must agree, and the damage found in the record must
be the damage the portal holds. Unscorable units are not compared: the judge said it
cannot tell, which is never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ajantik_cdp.judge.judging import Judgement


class Truth(Protocol):
    @property
    def holds(self) -> dict[str, Any]: ...

    @property
    def damage(self) -> frozenset[str]: ...


def disagreements(judgement: Judgement, truth: Mapping[str, Truth],
                  done_right: Callable[[str, Any], list[str]]) -> tuple[list[str], int]:
    """What disagrees, and how many units were compared."""
    found = []
    compared = 0
    for u in judgement.units:
        real = truth.get(u.unit)
        if real is None:
            found.append(f"{u.unit}: the portal has no such record")
            continue
        if u.world.done_right is None:
            continue
        compared += 1
        if u.held.value != real.holds:
            found.append(f"{u.unit}: the record shows revision "
                         f"{_revision(u.held.value)} but the portal holds revision "
                         f"{real.holds.get('revision')}")
        really_done = not done_right(u.unit, real.holds)
        if really_done != u.world.done_right:
            found.append(f"{u.unit}: the judge says done right={u.world.done_right}, the "
                         f"portal's state says {really_done}")
        kinds = frozenset(d.kind for d in u.damage)
        if kinds != real.damage:
            found.append(f"{u.unit}: the judge found damage {sorted(kinds)}, the portal "
                         f"holds {sorted(real.damage)}")
    return found, compared


def _revision(value: Any) -> Any:
    return value.get("revision") if isinstance(value, dict) else value
