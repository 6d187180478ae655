"""One judged run for CI: a testcase per unit and one for the gate, an ``::error::`` per
silent wrong unit and for a gate that fails, the verdict matrix. Pure.

The gate's testcase is the one that matches the exit code; the units' testcases say
which unit it was. A run the gate does not count (our side broke, or its fault never
fired) is an ``error``: no test of the skill, and never a pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from ajantik_cdp.ci.github import annotation, capped, cell, table
from ajantik_cdp.ci.junit import NOT_RUN, Case, Problem
from ajantik_cdp.ci.outputs import CiOutputs
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.scoring.run_gate import GatePolicy, GateResult
from ajantik_cdp.core.scoring.verdicts import Verdict
from ajantik_cdp.judge.adapter_api import Record
from ajantik_cdp.judge.judging import Judgement, UnitResult
from ajantik_cdp.judge.verdict_table import held_words, said_words, summary_line

SUITE = "ajantik test judge"
GATE = "gate"


def _unit_problem(u: UnitResult, policy: GatePolicy) -> Problem | None:
    detail = f"system holds: {held_words(u)}\nskill said: {said_words(u)}"
    if u.verdict is Verdict.SILENT_WRONG:
        return Problem("failure", "silent_wrong",
                       f"silent wrong: claimed done; {held_words(u)}", detail)
    if u.damage:
        return Problem("failure", "damage",
                       "damage: " + "; ".join(f"{d.kind}: {d.detail}" for d in u.damage),
                       detail)
    if u.verdict is Verdict.UNSCORABLE:
        note = " (let through by --allow-unscorable)" if policy.allow_unscorable else ""
        return Problem("skipped" if policy.allow_unscorable else "failure", "unscorable",
                       f"unscorable: {u.reason}{note}", detail)
    if u.verdict in policy.fail_on:
        return Problem("failure", u.verdict.value,
                       f"{u.verdict.label} (named by --fail-on)", detail)
    return None


def _gate_problem(gate: GateResult) -> Problem | None:
    if gate.passed:
        return None
    # The outcome is the type; the reasons already name it ("1 silent wrong (R-102)").
    return Problem("failure" if gate.counted else "error", gate.outcome.value,
                   "; ".join(gate.failing))


def _seconds(times: Iterable[str]) -> float:
    """The seconds from the first to the last of record times (ISO 8601), 0 for fewer
    than two."""
    parsed = sorted(datetime.fromisoformat(t) for t in times if t)
    return (parsed[-1] - parsed[0]).total_seconds() if len(parsed) > 1 else 0.0


def _line_times(record: Record, numbers: Iterable[int]) -> list[str]:
    wanted = set(numbers)
    times = []
    for number, line in record.numbered:
        if number in wanted:
            times += [t for t in (getattr(line, "started", None), line.time) if t]
    return times


def run_seconds(record: Record) -> float:
    """How long the guard ran: its record's first line to its last."""
    return _seconds([line.time for _, line in record.numbered])


def run_started(record: Record) -> str | None:
    return record.numbered[0][1].time if record.numbered else None


def judge_outputs(run: str, j: Judgement, gate: GateResult, policy: GatePolicy, *,
                  classname: str | None = None) -> CiOutputs:
    """``run`` names the run in messages (the record's file name); ``classname`` (by
    default ``run``) groups its cases in a CI's view. A unit's case takes as long as its
    evidence in the record spans (its first line's request to its last line's answer);
    the gate's, the whole record."""
    group = classname or run
    cases = [Case(group, u.unit, _seconds(_line_times(j.record, u.evidence)),
                  problem=_unit_problem(u, policy),
                  output=f"{u.verdict.label}; system holds: {held_words(u)}; "
                         f"skill said: {said_words(u)}") for u in j.units]
    seconds = run_seconds(j.record)
    cases.append(Case(group, GATE, seconds, problem=_gate_problem(gate),
                      output=gate.summary()))
    silent = [u for u in j.units if u.verdict is Verdict.SILENT_WRONG]
    notes = capped("error", [(f"silent wrong: {u.unit}",
                              f"{run}: the skill claimed {u.unit} done; "
                              f"the system holds: {held_words(u)}") for u in silent],
                   f"{run}: further silent wrong units; see the verdicts")
    if not gate.passed:
        notes.append(annotation("error", f"{SUITE}: the gate fails ({gate.outcome.label})",
                                f"{run}: " + "; ".join(gate.failing)))
    rows = [[u.unit, u.verdict.label, held_words(u), said_words(u),
             "; ".join(f"{d.kind}: {d.detail}" for d in u.damage) or "–"] for u in j.units]
    verdict = "passes" if gate.passed else f"FAILS ({gate.outcome.label})"
    parts = [f"### {SUITE}: {cell(run)}: the gate {verdict}\n\n",
             cell(summary_line(j)) + "\n\n",
             table(["unit", "verdict", "system holds", "skill said", "damage"], rows)]
    if gate.failing:
        parts.append("\n**Failing:** " + cell("; ".join(gate.failing)) + "\n")
    if gate.allowed:
        parts.append("\n**Let through by --allow-unscorable:** "
                     + cell("; ".join(gate.allowed)) + "\n")
    unit_free = [d for d in j.damage if d.unit is None]
    if unit_free:
        parts.append("\n**Damage tied to no unit:**\n\n"
                     + "".join(f"- {cell(d.kind)}: {cell(d.detail)}\n" for d in unit_free))
    return CiOutputs(SUITE, tuple(cases), tuple(notes), "".join(parts), seconds,
                     run_started(j.record))


def not_run_case(run: str, why: str) -> Case:
    """A planned run that never ran (interrupted, or the test stopped first): its gate is
    an ``error``, never a pass, and no unit of it is scored."""
    return Case(run, GATE, problem=Problem("error", NOT_RUN, f"not run: {why}"))


def runs_outputs(suite: str, runs: Sequence[tuple[str, Judgement, GateResult]],
                 policy: GatePolicy, *, seconds: float | None = None,
                 not_run: Sequence[tuple[str, str]] = ()) -> CiOutputs:
    """Many judged runs (``ajantik test run``): each run's cases, its annotations (capped
    together, as GitHub caps them per step) and its summary, one after the other.
    ``not_run``: (run, why) of each planned run that did not run."""
    parts = [judge_outputs(name, j, gate, policy) for name, j, gate in runs]
    cases = (*(c for o in parts for c in o.cases),
             *(not_run_case(name, why) for name, why in not_run))
    silent = [(u.unit, name, held_words(u)) for name, j, _ in runs for u in j.units
              if u.verdict is Verdict.SILENT_WRONG]
    notes = capped("error", [(f"silent wrong: {unit}", f"{name}: the skill claimed {unit} "
                              f"done; the system holds: {held}") for unit, name, held in silent],
                   f"{suite}: further silent wrong units; see the report")
    notes += capped("error", [(f"{SUITE}: the gate fails ({gate.outcome.label})",
                               f"{name}: " + "; ".join(gate.failing))
                              for name, _, gate in runs if not gate.passed],
                    f"{suite}: further runs fail the gate; see the report")
    if not_run:
        notes.append(annotation("error", f"{suite}: {counted(len(not_run), 'run')} not run",
                                f"{suite}: " + "; ".join(f"{name} ({why})"
                                                         for name, why in not_run[:10])))
    failed = sum(not gate.passed for _, _, gate in runs)
    head = f"### {cell(suite)}: {failed} of {counted(len(runs), 'run')} fail the gate"
    if not_run:
        head += f"; {counted(len(not_run), 'planned run')} not run"
    head += "\n\n"
    started = sorted(o.timestamp for o in parts if o.timestamp)
    return CiOutputs(suite, cases, tuple(notes),
                     head + "\n".join(o.summary.replace("### ", "#### ", 1) for o in parts),
                     seconds, started[0] if started else None)
