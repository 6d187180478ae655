"""One run, scored from its evidence: its outcome on the ladder (``run_outcome``),
whether it passes, its world x claim verdict, and, for a run that did not pass, why
(``classifier``). Pure.

- The world is the shop's state against the task's expected state; the claim is the
  agent's last JSON line. Every run gets the verdict of ``core.scoring.verdicts.verdict()``, the
  function the judge scores its units with, shown next to the outcome.
- The outcome decides: the ladder's first rung that applies, and whether that passes
  under the variant (docs/gauntlet.md has the rule table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.scoring.verdicts import Verdict, World, verdict
from ajantik_cdp.gauntlet.evidence.run_data import RunResult
from ajantik_cdp.gauntlet.score.classifier import Classification, classify
from ajantik_cdp.gauntlet.score.run_facts import facts
from ajantik_cdp.gauntlet.score.run_outcome import Outcome, Ruling, decide
from ajantik_cdp.gauntlet.suite.expected_state import Expectation, StateCheck, check
from ajantik_cdp.gauntlet.suite.variant_set import VariantKind, success_possible, variant_kind


@dataclass(frozen=True)
class Scored:
    result: RunResult
    kind: VariantKind
    decision: Ruling
    world: World
    verdict: Verdict
    check: StateCheck | None
    fault_fired: bool | None  # None: the variant has no fault
    classification: Classification | None  # None for a pass

    @property
    def outcome(self) -> Outcome:
        return self.decision.outcome

    @property
    def passed(self) -> bool:
        return self.decision.passed

    @property
    def counted(self) -> bool:
        return self.decision.counted

    @property
    def steps(self) -> int | None:
        return self.result.agent.step_count

    def as_data(self) -> dict[str, Any]:
        c = self.classification
        return {
            "run_id": self.result.run_id, "kind": self.kind,
            "outcome": self.outcome.value, "outcome_reason": self.decision.reason,
            "passed": self.passed, "counted": self.counted,
            "success_possible": self.decision.success_possible,
            "fault_fired": self.fault_fired, "verdict": self.verdict.value,
            "world": {"done_right": self.world.done_right, "reason": self.world.reason},
            "differences": [d.as_data() for d in self.check.differences] if self.check else [],
            "damage": list(self.check.damage) if self.check else [],
            "category": c.category if c else None, "rule": c.rule if c else None,
            "reason": c.reason if c else None,
        }


def world_of(result: RunResult, state_check: StateCheck | None) -> World:
    if result.infra is not None:
        return World.unknown(f"{result.infra.kind}: {result.infra.message}")
    if result.state is None or state_check is None:
        return World.unknown("the shop's state was not read")
    in_flight = int(result.state.get("in_flight", 0) or 0)
    if in_flight:
        return World.unknown(f"{counted(in_flight, 'write')} still in flight")
    if state_check.done_right:
        return World.yes("the shop holds the expected state")
    return World.no("; ".join([d.text() for d in state_check.differences]
                              + list(state_check.damage)))


def score(result: RunResult, expect: Expectation) -> Scored:
    state_check = check(expect, result.state) if result.state is not None else None
    world = world_of(result, state_check)
    f = facts(result, expect, state_check)
    decision = decide(f, success_possible(result.variant))
    return Scored(result, variant_kind(result.variant), decision, world,
                  verdict(world, result.agent.claim.said), state_check, f.fault_fired,
                  classify(f, decision))
