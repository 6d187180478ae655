"""A suite run for CI: one testcase per run and per threshold, an ``::error::`` per
silent wrong run and per missed threshold, the per-variant verdict matrix. Pure.

A run that failed is a ``failure`` typed by what went wrong (``silent_wrong`` first,
then ``damage``, then the classifier's category); a run the harness could not judge is
an ``error`` (our side, never the agent's score); a threshold is a testcase of its own,
so a suite whose every run passed can still fail its gate in the CI's own view.
"""

from __future__ import annotations

from collections.abc import Sequence

from ajantik_cdp.ci.github import annotation, capped, cell, table
from ajantik_cdp.ci.junit import NOT_RUN, Case, Problem
from ajantik_cdp.ci.outputs import CiOutputs
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.scoring.reliability_stats import Interval
from ajantik_cdp.core.scoring.verdicts import VERDICT_ORDER, Verdict
from ajantik_cdp.gauntlet.score.scoring import Scored
from ajantik_cdp.gauntlet.score.suite_summary import Summary, ThresholdCheck

COMMAND = "ajantik gauntlet"
THRESHOLDS = "thresholds"


def _why(s: Scored) -> str:
    c = s.classification
    said = s.result.agent.claim.status or "no claim"
    text = f"{s.verdict.label}: the shop: {s.world.reason}; the agent said: {said}"
    return text + (f"; {c.category}/{c.rule}: {c.reason}" if c else "")


def _problem(s: Scored) -> Problem | None:
    if s.passed:
        return None
    if not s.counted:
        infra = str(s.result.infra.kind) if s.result.infra else "not_judged"
        return Problem("error", infra, f"not judged: {s.world.reason}", _why(s))
    damage = list(s.check.damage) if s.check else []
    if s.verdict is Verdict.SILENT_WRONG:
        return Problem("failure", "silent_wrong",
                       f"silent wrong: the agent claimed done; {s.world.reason}", _why(s))
    if damage:
        return Problem("failure", "damage", "damage: " + "; ".join(damage), _why(s))
    kind = s.classification.category if s.classification else s.verdict.value
    return Problem("failure", kind, _why(s).split("; the agent said")[0], _why(s))


def run_case(s: Scored) -> Case:
    r = s.result
    return Case(classname=r.variant, name=r.run_id, seconds=r.timings.total,
                problem=_problem(s), output=_why(s))


def threshold_case(c: ThresholdCheck) -> Case:
    problem = None if c.met else Problem("failure", "threshold", f"not met: {c.detail}")
    return Case(classname=THRESHOLDS, name=f"{c.scope} {c.metric}", problem=problem,
                output=c.detail)


def _interval(r: Interval | None) -> str:
    if r is None:
        return "–"
    return f"{r.estimate * 100:.0f}% ({r.low * 100:.0f}–{r.high * 100:.0f}%)"


def matrix(s: Summary) -> str:
    """Per variant: passes, reliability with its interval, the verdict counts."""
    header = ["variant", "kind", "pass", f"reliability ({s.confidence * 100:.0f}% interval)",
              *(v.label for v in VERDICT_ORDER), "left out"]
    rows = []
    for v in s.variants:
        g = v.group
        rows.append([v.variant + (" (flaky)" if v.flaky else ""), v.kind,
                     f"{g.passes}/{g.scored}", _interval(g.reliability),
                     *(str(g.verdicts.get(k.value, 0)) for k in VERDICT_ORDER),
                     str(g.left_out)])
    o = s.overall
    rows.append(["**overall**", "", f"{o.passes}/{o.scored}", _interval(o.reliability),
                 *(str(o.verdicts.get(k.value, 0)) for k in VERDICT_ORDER), str(o.left_out)])
    return table(header, rows)


def not_run_case(variant: str, run_id: str) -> Case:
    return Case(classname=variant, name=run_id, problem=Problem(
        "error", NOT_RUN, "not run: the suite was interrupted before this run finished"))


def undecided_case(c: ThresholdCheck, finished: int, planned: int) -> Case:
    """A threshold of an interrupted suite: decided on part of its runs, it is no
    verdict either way (a rate that met it might not have, and the reverse)."""
    return Case(classname=THRESHOLDS, name=f"{c.scope} {c.metric}", problem=Problem(
        "error", NOT_RUN, f"not decided: the suite was interrupted after {finished} of "
        f"{counted(planned, 'run')}"), output=c.detail)


def gauntlet_outputs(suite: str, runs: Sequence[Scored], summary: Summary, *,
                     seconds: float | None = None, timestamp: str | None = None,
                     unfinished: Sequence[tuple[str, str]] | None = None) -> CiOutputs:
    """``unfinished``: None for a suite that ran to its end; for an interrupted one, the
    (variant, run id) of every run that did not finish (each an ``error``, as are the
    thresholds, which part of the runs cannot decide)."""
    if unfinished is None:
        cases = [run_case(s) for s in runs] + [threshold_case(c) for c in summary.checks]
    else:
        planned = len(runs) + len(unfinished)
        cases = ([run_case(s) for s in runs] + [not_run_case(v, r) for v, r in unfinished]
                 + [undecided_case(c, len(runs), planned) for c in summary.checks])
    silent = [s for s in runs if s.verdict is Verdict.SILENT_WRONG]
    notes = capped("error", [(f"silent wrong: {s.result.run_id}",
                              f"{suite}: {s.result.variant}: the agent claimed done; "
                              f"the shop: {s.world.reason}") for s in silent],
                   f"{suite}: further silent wrong runs; see the report")
    notes += [annotation("error", f"threshold missed: {c.scope} {c.metric}",
                         f"{suite}: {c.detail}") for c in summary.failed_checks]
    left_out = [s for s in runs if not s.counted]
    if left_out:
        notes.append(annotation("warning", "runs not judged",
                                f"{suite}: {counted(len(left_out), 'run')} left out "
                                "(infrastructure or writes in flight): "
                                + ", ".join(s.result.run_id for s in left_out[:10])))
    if unfinished is not None:
        notes.append(annotation("error", "interrupted",
                                f"{suite}: interrupted after {len(runs)} of "
                                f"{counted(len(runs) + len(unfinished), 'run')}; the "
                                "thresholds were not decided"))
    failed = summary.failed_checks
    head = (f"FAILS: {counted(len(failed), 'threshold')} missed" if failed else
            "every threshold met" if summary.checks else "no thresholds set")
    if unfinished is not None:
        head = (f"INTERRUPTED after {len(runs)} of "
                f"{counted(len(runs) + len(unfinished), 'run')}: no threshold decided")
    parts = [f"### {COMMAND}: {cell(suite)}: {head}\n\n",
             f"{counted(len(runs), 'run')}; Wilson intervals.\n\n", matrix(summary)]
    if failed:
        parts.append("\n**Not met:**\n\n" + "".join(f"- {cell(c.scope)}: {cell(c.detail)}\n"
                                                    for c in failed))
    if silent:
        parts.append("\n**Silent wrong** (the agent claimed done over a wrong state):\n\n"
                     + "".join(f"- {cell(s.result.run_id)}: {cell(s.world.reason)}\n"
                               for s in silent[:20]))
    return CiOutputs(suite, tuple(cases), tuple(notes), "".join(parts), seconds, timestamp)
