"""``results.json`` of ``ajantik test run`` (and ``ajantik demo``): versioned, and written
even when a test stops early or is interrupted (what finished is in it, and why it
stopped). A change of meaning bumps ``version``; adding a field does not.
"""

from __future__ import annotations

from typing import Any

import orjson

from ajantik_cdp import __version__
from ajantik_cdp.core.scoring.reliability_stats import Interval
from ajantik_cdp.core.scoring.run_gate import GatePolicy
from ajantik_cdp.judge.verdict_file import damage_data, gate_data, unit_data
from ajantik_cdp.testrun.plan.run_plan import Plan, PlannedRun
from ajantik_cdp.testrun.run.runner import JudgedRun, SessionResult, SkillTestResult
from ajantik_cdp.testrun.score.matrix import by_kind, matrix

RESULTS_FORMAT = "ajantik-test-run"
RESULTS_VERSION = 1
EXIT_INTERRUPTED = 130


def exit_code(outcome: SessionResult) -> int:
    """0 only when every test passed (no silent wrong, no damage, every run's gate);
    2 when a test stopped on bad input; 130 when interrupted; 1 otherwise."""
    if outcome.interrupted:
        return EXIT_INTERRUPTED
    if any(t.stopped and t.stop_code == 2 for t in outcome.tests):
        return 2
    return 0 if outcome.tests and all(t.passed for t in outcome.tests) else 1


def _interval(i: Interval | None) -> dict[str, float] | None:
    if i is None:
        return None
    return {"estimate": round(i.estimate, 4), "low": round(i.low, 4), "high": round(i.high, 4)}


def planned_data(p: PlannedRun) -> dict[str, Any] | None:
    if p.point is None or p.kind is None:
        return None
    return {"kind": p.kind.value, "point": p.point.label, "write": p.write,
            "guard_at": p.guard_at, "regex": p.point.regex}


def run_data(r: JudgedRun, policy: GatePolicy) -> dict[str, Any]:
    s = r.skill
    return {
        "slug": r.planned.slug,
        "folder": r.folder,
        "label": r.planned.label,
        "fault": planned_data(r.planned),
        "rep": r.planned.rep,
        "seconds": round(r.seconds, 1),
        "fault_fired": r.firing.value,
        "skill": {"exit_code": s.exit_code, "crashed": s.crashed, "timed_out": s.timed_out,
                  "seconds": round(s.seconds, 1), "stderr_tail": s.stderr_tail[-500:],
                  "asks": [{"ask": a.ask.data, "ok": a.answer.ok, "message": a.answer.message}
                           for a in s.asks]},
        "units": [unit_data(u) for u in r.judgement.units],
        "damage": [damage_data(d) for d in r.judgement.damage],
        "notes": [*r.judgement.notes, *r.notes],
        "gate": gate_data(r.gate, policy),
        "check": ({"facts": [list(f) for f in r.check.facts],
                   "problems": list(r.check.problems)} if r.check is not None else None),
    }


def plan_data(plan: Plan) -> dict[str, Any]:
    return {
        "source": plan.source,
        "kinds": [k.value for k in plan.kinds],
        "reps": plan.reps,
        "at": plan.at.text,
        "points": [{"point": u.point.label, "method": u.point.method,
                    "pattern": u.point.pattern, "regex": u.point.regex,
                    "writes": None if u.writes < 0 else u.writes} for u in plan.points],
        "skipped": [{"point": s.point.label, "reason": s.reason} for s in plan.skipped],
        "notes": list(plan.notes),
        "runs": len(plan.runs),
        "writes_per_run": plan.writes_per_run,
        "writes_reaching": plan.writes_reaching(),
    }


def test_data(t: SkillTestResult) -> dict[str, Any]:
    o = t.test.options
    units = [u.unit for u in t.clean.judgement.units] if t.clean else []
    marks = [r.mark() for r in t.runs]
    return {
        "name": t.test.name,
        "skill": t.test.skill.label,
        "adapter": {"path": str(t.test.adapter.path), "sha256": t.test.adapter.sha256},
        "options": {"faults": [k.value for k in o.kinds], "reps": o.reps, "at": o.at.text,
                    "only": [p.label for p in o.only], "deadline": o.deadline,
                    "allow_unscorable": o.policy.allow_unscorable},
        "passed": t.passed,
        "stopped": t.stopped,
        "plan": plan_data(t.plan) if t.plan else None,
        "clean": run_data(t.clean, o.policy) if t.clean else None,
        "runs": [run_data(r, o.policy) for r in sorted(t.runs, key=lambda r: r.planned.number)],
        "matrix": [{"kind": c.kind.value, "point": c.point.label, "unit": c.unit,
                    "runs": len(c.marks), "counted": len(c.counted), "held_up": c.held_up,
                    "verdicts": {v.value: n for v, n in c.verdicts().items()},
                    "held_up_interval": _interval(c.interval())}
                   for row in matrix(marks, units) for c in row.cells],
        "by_kind": [{"kind": s.kind.value, "runs": s.runs, "counted": s.counted,
                     "passed": s.passed, "pass_interval": _interval(s.pass_interval()),
                     "units": s.units, "silent_wrong": s.silent_wrong,
                     "silent_wrong_interval": _interval(s.silent_wrong_interval()),
                     "damaged_runs": s.damaged_runs} for s in by_kind(marks)],
    }


def results_data(outcome: SessionResult, *, command: list[str] | None = None,
                 conclusions: list[tuple[bool, str]] | None = None) -> dict[str, Any]:
    return {
        "format": RESULTS_FORMAT,
        "version": RESULTS_VERSION,
        "ajantik_version": __version__,
        "command": command,
        "seconds": round(outcome.seconds, 1),
        "interrupted": outcome.interrupted,
        "declined": outcome.declined,
        "exit_code": exit_code(outcome),
        "conclusions": [{"holds": ok, "text": text} for ok, text in conclusions or []],
        "tests": [test_data(t) for t in outcome.tests],
    }


def encode_results(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2, default=str) + b"\n"
