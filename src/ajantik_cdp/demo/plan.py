"""What the demo runs and how it sums up: pure, so it is tested without a browser.

The conclusions are computed from the judged runs. They state what the demo sets out to
show (the blind skill goes silent wrong under phantom_success and leaves damage under
phantom_failure; the verifying skill does neither); whether each holds is read from the
verdicts, never assumed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ajantik_cdp.core.faults import FaultKind
from ajantik_cdp.core.run_gate import GateResult
from ajantik_cdp.core.verdicts import Verdict
from ajantik_cdp.demo.agreement import Truth
from ajantik_cdp.judge.judging import Judgement

SKILLS = ("blind", "verifying")
FAULTS: tuple[str | None, ...] = (None, *(k.value for k in FaultKind))
# Every fault fires on R-102's accounts upload: a create that is not idempotent, in the
# middle of the work, with a filing done before it and one after.
FAULT_PATTERN = r"/api/filings/R-102/documents"
# How the runner words a run it stopped at its deadline (demo/runner.py).
TIMED_OUT = "the run took longer than"


@dataclass(frozen=True)
class DemoRun:
    skill: str
    fault: str | None  # a FaultKind value, None for a clean run

    @property
    def slug(self) -> str:
        return f"{self.skill}-{self.fault or 'clean'}"

    @property
    def label(self) -> str:
        return f"{self.skill} · {self.fault or 'clean'}"

    @property
    def fault_text(self) -> str | None:
        return f"{self.fault}:{FAULT_PATTERN}" if self.fault else None


def plan(skills: tuple[str, ...] = SKILLS,
         faults: tuple[str | None, ...] = FAULTS) -> list[DemoRun]:
    return [DemoRun(skill, fault) for skill in skills for fault in faults]


@dataclass(frozen=True)
class RunOutcome:
    spec: DemoRun
    judgement: Judgement
    seconds: float
    disagreements: tuple[str, ...] = ()  # where the verdicts and the portal's state differ
    skill_error: str | None = None
    compared_units: int = 0
    # The portal's own state at the end of the run, per filing: what tests check against.
    truth: Mapping[str, Truth] = field(default_factory=dict)
    submissions: int = 0  # submission requests that reached the portal

    def gate(self) -> GateResult:
        """This run by the rule of ``ajantik test judge`` (core/run_gate.py)."""
        error = self.skill_error
        timed_out = error if error and error.startswith(TIMED_OUT) else None
        return self.judgement.gate(crashed=None if timed_out else error, timed_out=timed_out)


@dataclass(frozen=True)
class Conclusion:
    holds: bool
    text: str


def _find(outcomes: list[RunOutcome], skill: str, fault: str | None) -> RunOutcome | None:
    return next((o for o in outcomes if o.spec.skill == skill and o.spec.fault == fault), None)


def _silent_wrong(o: RunOutcome) -> list[str]:
    return [u.unit for u in o.judgement.units if u.verdict is Verdict.SILENT_WRONG]


@dataclass
class _Tally:
    compared: int = 0
    disagreements: list[str] = field(default_factory=list)


def conclusions(outcomes: list[RunOutcome]) -> list[Conclusion]:
    out = []
    blind_ps = _find(outcomes, "blind", "phantom_success")
    if blind_ps is not None:
        units = _silent_wrong(blind_ps)
        out.append(Conclusion(bool(units), "blind skill under phantom_success: silent wrong on "
                              + (", ".join(units) if units else "no unit")))
    blind_pf = _find(outcomes, "blind", "phantom_failure")
    if blind_pf is not None:
        damage = [f"{d.kind} ({d.detail})" for d in blind_pf.judgement.damage]
        out.append(Conclusion(bool(damage), "blind skill under phantom_failure: damage "
                              + ("; ".join(damage) if damage else "none")))
    out.extend(_gate_conclusion(outcomes))
    tally = _Tally()
    for o in outcomes:
        tally.compared += o.compared_units
        tally.disagreements.extend(f"{o.spec.label}: {d}" for d in o.disagreements)
    total = sum(len(o.judgement.units) for o in outcomes)
    out.append(Conclusion(
        not tally.disagreements,
        f"the verdicts agree with the portal's own state for {tally.compared} of {total} "
        "units (unscorable units cannot be compared)" if not tally.disagreements else
        "the verdicts DISAGREE with the portal's own state: " + "; ".join(tally.disagreements)))
    crashed = [f"{o.spec.label} ({o.skill_error})" for o in outcomes if o.skill_error]
    if crashed:
        out.append(Conclusion(False, "the scripted skill stopped with an error in "
                              + "; ".join(crashed)))
    return out


def _gate_conclusion(outcomes: list[RunOutcome]) -> list[Conclusion]:
    """The verifying skill passes the gate (the rule of ajantik test judge) in every run:
    every unit scored, no silent wrong, no damage."""
    verifying = [(o, o.gate()) for o in outcomes if o.spec.skill == "verifying"]
    if not verifying:
        return []
    bad = [f"{o.spec.label} ({g.outcome.label}: {'; '.join(g.failing)})"
           for o, g in verifying if not g.passed]
    failed = [o.spec.label for o in outcomes if o.spec.skill != "verifying"
              and not o.gate().passed]
    blind = (f"; the gate fails {len(failed)} blind run(s): {', '.join(failed)}" if failed
             else "")
    if bad:
        return [Conclusion(False, "verifying skill fails the gate in: " + "; ".join(bad))]
    return [Conclusion(True, "verifying skill: passes the gate in every run (every unit "
                       f"scored, no silent wrong, no damage){blind}")]


def cell_text(o: RunOutcome, unit: str) -> tuple[str, str]:
    """(verdict label, note) of one unit in one run: damage, a fault that never fired."""
    result = next(u for u in o.judgement.units if u.unit == unit)
    notes = sorted({d.kind for d in result.damage})
    if o.judgement.record.fault_fired is False:
        notes.append("fault did not fire")
    return result.verdict.label, ", ".join(notes)
