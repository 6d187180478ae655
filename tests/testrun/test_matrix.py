"""The matrix: cells over repetitions, runs that are no test of their cell left out, and
intervals."""

from __future__ import annotations

from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_cdp.core.scoring.run_gate import Outcome
from ajantik_cdp.core.scoring.verdicts import Verdict
from ajantik_cdp.testrun.plan.run_plan import PlannedRun
from ajantik_cdp.testrun.plan.write_points import WritePoint
from ajantik_cdp.testrun.score.matrix import (
    Firing,
    RunMark,
    UnitMark,
    by_kind,
    firing,
    interval_text,
    matrix,
)

DOCS = WritePoint("POST", "/api/filings/*/documents")
PS = FaultKind.PHANTOM_SUCCESS


def mark(rep: int, r102: Verdict, fired: Firing = Firing.ON_POINT,
         damage: tuple[str, ...] = ()) -> RunMark:
    run = PlannedRun(DOCS, PS, rep, 2, 2, rep)
    units = (UnitMark("R-101", Verdict.CORRECT), UnitMark("R-102", r102, damage))
    bad = r102 is Verdict.SILENT_WRONG or bool(damage) or fired is not Firing.ON_POINT
    outcome = (Outcome.SILENT_WRONG if r102 is Verdict.SILENT_WRONG else
               Outcome.DAMAGE if damage else
               Outcome.FAULT_DID_NOT_FIRE if fired is not Firing.ON_POINT else
               Outcome.DONE_RIGHT)
    return RunMark(run, units, fired, outcome, not bad)


def test_where_the_fault_fired_is_read_from_the_faulted_requests() -> None:
    assert firing(None, []) is Firing.NO_FAULT
    assert firing(DOCS, []) is Firing.NOT_FIRED
    assert firing(DOCS, [("POST", "http://h:1/api/filings/R-102/documents"),
                         ("PUT", "http://h:1/x")]) is Firing.ON_POINT
    assert firing(DOCS, [("PUT", "http://h:1/api/filings/R-102/documents")]) is (
        Firing.ELSEWHERE)


def test_a_cell_counts_only_runs_whose_fault_fired_on_its_point() -> None:
    marks = [mark(1, Verdict.SILENT_WRONG), mark(2, Verdict.CORRECT),
             mark(3, Verdict.CORRECT, Firing.NOT_FIRED),
             mark(4, Verdict.REPORTED_HONESTLY, Firing.ELSEWHERE)]
    (row,) = matrix(marks, ["R-101", "R-102"])
    r101, r102 = row.cells
    assert len(r102.counted) == 2 and r102.not_counted == 2
    assert r102.held_up == 1
    assert r102.verdicts() == {Verdict.SILENT_WRONG: 1, Verdict.CORRECT: 1}
    assert r101.held_up == 2
    interval = r102.interval()
    assert interval is not None and interval.low < 0.5 < interval.high
    assert row.passed == 1
    (summary,) = by_kind(marks)
    assert (summary.runs, summary.counted, summary.passed) == (4, 2, 1)
    assert (summary.units, summary.silent_wrong) == (4, 1)


def test_damage_on_a_unit_is_not_holding_up() -> None:
    (row,) = matrix([mark(1, Verdict.CORRECT, damage=("duplicate",))], ["R-102"])
    assert row.cells[0].held_up == 0
    assert by_kind([mark(1, Verdict.CORRECT, damage=("duplicate",))])[0].damaged_runs == 1


def test_no_counted_run_gives_no_interval() -> None:
    (row,) = matrix([mark(1, Verdict.CORRECT, Firing.NOT_FIRED)], ["R-102"])
    assert row.cells[0].interval() is None
    assert interval_text(None) == "n/a"
    assert interval_text(row.cells[0].interval()) == "n/a"
