"""What the demo runs and what it concludes: pure, so it is tested without a browser.

The demo is ``ajantik test run`` applied twice, to the two scripted skills: a clean run
each, then every fault kind on the second write of ``POST /api/filings/*/documents``
(R-102's accounts upload: a create that is not idempotent, in the middle of the work,
with a filing done before it and one after).

The conclusions are computed from the judged runs. They state what the demo sets out to
show (the blind skill goes silent wrong under phantom_success and leaves damage under
phantom_failure; the verifying skill does neither and passes ``ajantik test run``'s gate);
whether each holds is read from the verdicts, never assumed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_cdp.core.scoring.verdicts import Verdict
from ajantik_cdp.demo.portal_system import PortalCheck
from ajantik_cdp.testrun.plan.run_plan import ALL_KINDS, At
from ajantik_cdp.testrun.plan.write_points import WritePoint
from ajantik_cdp.testrun.run.runner import JudgedRun, RunOptions, SessionResult, SkillTestResult
from ajantik_cdp.testrun.score.matrix import Firing

SKILLS = ("blind", "verifying")
UPLOADS = WritePoint("POST", "/api/filings/*/documents")
RUN_DEADLINE = 180.0  # seconds; a wedged run is reported, not waited on forever
OPTIONS = RunOptions(kinds=ALL_KINDS, reps=1, at=At("2"), only=(UPLOADS,),
                      deadline=RUN_DEADLINE)
# The blind skill's runs the gate must fail: fooled, and leaving a duplicate.
BLIND_FAILS = (FaultKind.PHANTOM_SUCCESS, FaultKind.PHANTOM_FAILURE)


@dataclass(frozen=True)
class Conclusion:
    holds: bool
    text: str


def _test(outcome: SessionResult, skill: str) -> SkillTestResult | None:
    return next((t for t in outcome.tests if t.test.name == skill), None)


def _under(t: SkillTestResult | None, kind: FaultKind) -> JudgedRun | None:
    return next((r for r in t.runs if r.planned.kind is kind), None) if t else None


def label(r: JudgedRun) -> str:
    return f"{r.test} · {r.planned.kind.value if r.planned.kind else 'clean'}"


def portal_check(r: JudgedRun) -> PortalCheck:
    data = r.check.data if r.check is not None else None
    return data if isinstance(data, PortalCheck) else PortalCheck()


def conclusions(outcome: SessionResult) -> list[Conclusion]:
    out = []
    blind = _test(outcome, "blind")
    ps = _under(blind, FaultKind.PHANTOM_SUCCESS)
    if ps is not None:
        units = [u.unit for u in ps.judgement.units if u.verdict is Verdict.SILENT_WRONG]
        out.append(Conclusion(bool(units), "blind skill under phantom_success: silent wrong on "
                              + (", ".join(units) if units else "no unit")))
    pf = _under(blind, FaultKind.PHANTOM_FAILURE)
    if pf is not None:
        damage = [f"{d.kind} ({d.detail})" for d in pf.judgement.damage]
        out.append(Conclusion(bool(damage), "blind skill under phantom_failure: damage "
                              + ("; ".join(damage) if damage else "none")))
    out.extend(_gate_conclusions(outcome))
    runs = [r for t in outcome.tests for r in t.all_runs]
    missed = [label(r) for r in runs if r.firing in (Firing.NOT_FIRED, Firing.ELSEWHERE)]
    if missed:
        out.append(Conclusion(False, "the fault did not fire on R-102's upload in: "
                              + ", ".join(missed)))
    compared = sum(portal_check(r).compared for r in runs)
    problems = [f"{label(r)}: {p}" for r in runs for p in (r.check.problems if r.check else ())]
    total = sum(len(r.judgement.units) for r in runs)
    out.append(Conclusion(
        not problems,
        f"the verdicts agree with the portal's own state for {compared} of "
        f"{counted(total, 'unit')} "
        "(unscorable units cannot be compared)" if not problems else
        "the verdicts DISAGREE with the portal's own state: " + "; ".join(problems)))
    stopped = [f"{label(r)} ({r.skill.crashed or r.skill.timed_out})" for r in runs
               if r.skill.crashed or r.skill.timed_out]
    stopped += [f"{t.test.name}: {t.stopped}" for t in outcome.tests if t.stopped]
    if stopped:
        out.append(Conclusion(False, "the scripted skill did not finish in "
                              + "; ".join(stopped)))
    return out


def _gate_conclusions(outcome: SessionResult) -> list[Conclusion]:
    """The demo exits on the gate: each skill's test by the rule of `ajantik test run`.
    The verifying skill passes it (every run: every unit scored, no silent wrong, no
    damage); the blind one fails it, in exactly the runs where it is fooled or damages."""
    out = []
    verifying = _test(outcome, "verifying")
    if verifying is not None:
        bad = [f"{label(r)} ({r.gate.outcome.label}: {'; '.join(r.gate.failing)})"
               for r in verifying.all_runs if not r.gate.passed]
        if verifying.passed:
            out.append(Conclusion(True, "verifying skill: passes the gate of ajantik test run "
                                  "in every run (every unit scored, no silent wrong, no "
                                  "damage): its test exits 0"))
        else:
            out.append(Conclusion(False, "verifying skill fails the gate in: "
                                  + ("; ".join(bad) or verifying.stopped or "a run missing")))
    blind = _test(outcome, "blind")
    if blind is not None and blind.all_runs:
        failed = [r for r in blind.all_runs if not r.gate.passed]
        expected = {k for k in BLIND_FAILS if _under(blind, k) is not None}
        got = {r.planned.kind for r in failed}
        names = ", ".join(label(r) for r in failed) or "none"
        out.append(Conclusion(got == expected and bool(expected),
                              f"blind skill: the gate fails {counted(len(failed), 'run')} "
                              f"({names}), so its test exits 1"))
    return out
