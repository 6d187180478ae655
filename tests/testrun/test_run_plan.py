"""The plan: write point x fault kind x repetition, --at first|last|N, --only, and the
count of writes that really reach the system."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_cdp.testrun.plan.run_plan import (
    ALL_KINDS,
    At,
    PlanError,
    parse_kinds,
    plan_from_points,
    plan_from_writes,
)
from ajantik_cdp.testrun.plan.write_points import Write, WritePoint

ORIGIN = "http://127.0.0.1:8765"
SECTIONS = ("company", "officers", "capital", "declaration")


def portal_writes() -> list[Write]:
    """The writes of one clean run of the portal-pilot skill, in its order."""
    out = []
    for rid in ("R-101", "R-102", "R-103"):
        for s in SECTIONS[:3]:
            out.append(Write("PUT", f"{ORIGIN}/api/filings/{rid}/sections/{s}"))
        out.append(Write("POST", f"{ORIGIN}/api/filings/{rid}/documents"))
        out.append(Write("PUT", f"{ORIGIN}/api/filings/{rid}/sections/declaration"))
    return out


DOCS = WritePoint("POST", "/api/filings/*/documents")


def test_every_point_times_every_kind_from_a_clean_run() -> None:
    plan = plan_from_writes(portal_writes(), ALL_KINDS, 1, At.parse("first"))
    assert [u.point.label for u in plan.points] == [
        *(f"PUT /api/filings/*/sections/{s}" for s in SECTIONS[:3]),
        "POST /api/filings/*/documents", "PUT /api/filings/*/sections/declaration"]
    assert len(plan.runs) == 5 * 4
    assert len({r.slug for r in plan.runs}) == len(plan.runs)
    assert [r.number for r in plan.runs] == list(range(1, 21))
    assert plan.writes_per_run == 15
    # Every run's writes but its faulted one; phantom_failure sends that one too.
    assert plan.writes_reaching() == 20 * 14 + 5


@pytest.mark.parametrize(("at", "write"), [("first", 1), ("last", 3), ("2", 2), ("02", 2)])
def test_at_picks_the_write_of_the_point(at: str, write: int) -> None:
    plan = plan_from_writes(portal_writes(), (FaultKind.PHANTOM_SUCCESS,), 1, At.parse(at),
                            only=(DOCS,))
    (run,) = plan.runs
    assert (run.point, run.write, run.guard_at) == (DOCS, write, write)
    assert run.fault_text == f"phantom_success:{DOCS.regex}"
    assert "write " + str(write) in run.label


def test_at_beyond_some_points_writes_skips_those_with_the_reason() -> None:
    extra = [Write("POST", f"{ORIGIN}/api/notes") for _ in range(4)]
    plan = plan_from_writes([*portal_writes(), *extra], (FaultKind.SESSION_DROP,), 1,
                            At.parse("4"))
    assert [r.point.label for r in plan.runs if r.point] == ["POST /api/notes"]
    skip = next(s for s in plan.skipped if s.point == DOCS)
    assert "made 3 writes" in skip.reason


def test_at_beyond_every_points_writes_is_refused_with_their_counts() -> None:
    # A plan of no run is refused, not run as nothing (the trial: exit 0, 0 runs).
    with pytest.raises(PlanError, match=r"--at 4 leaves nothing to fault: the clean run "
                       r"made \(POST /api/filings/\*/documents: 3 writes\)"):
        plan_from_writes(portal_writes(), ALL_KINDS, 2, At.parse("4"), only=(DOCS,))
    with pytest.raises(PlanError, match=r"say \(POST /api/filings/\*/documents: not said\)"
                       r".*no write point has a known last write"):
        plan_from_points([(DOCS, None)], ALL_KINDS, 1, At.parse("last"))


def test_reps_repeat_every_cell() -> None:
    plan = plan_from_writes(portal_writes(), (FaultKind.SESSION_DROP,), 3, At.parse("last"),
                            only=(DOCS,))
    assert [r.rep for r in plan.runs] == [1, 2, 3]
    assert len({r.slug for r in plan.runs}) == 3


def test_only_names_a_point_the_skill_does_not_have() -> None:
    with pytest.raises(PlanError, match=r"not a write point of this skill.*POST /api/filings"):
        plan_from_writes(portal_writes(), ALL_KINDS, 1, At.parse("first"),
                         only=(WritePoint("DELETE", "/api/filings/*"),))


@pytest.mark.parametrize("bad", ["0", "-1", "middle", "", "1.5"])
def test_a_bad_at_is_refused(bad: str) -> None:
    with pytest.raises(PlanError, match="--at must be first, last or a number"):
        At.parse(bad)


def test_fault_kinds_are_parsed_in_order_once() -> None:
    assert parse_kinds(None) == ALL_KINDS
    assert parse_kinds("session_drop, phantom_success,session_drop") == (
        FaultKind.SESSION_DROP, FaultKind.PHANTOM_SUCCESS)
    with pytest.raises(PlanError, match="unknown fault kind 'timeout'"):
        parse_kinds("phantom_success,timeout")
    with pytest.raises(PlanError, match="names no fault kind"):
        parse_kinds(" , ")


def test_a_plan_from_the_adapters_points_runs_nothing_it_cannot_aim() -> None:
    declared = [(DOCS, 3), (WritePoint("PUT", "/api/filings/*/sections/company"), None)]
    first = plan_from_points(declared, (FaultKind.PHANTOM_FAILURE,), 1, At.parse("first"))
    assert len(first.runs) == 2 and first.writes_per_run is None
    assert first.writes_reaching() is None
    last = plan_from_points(declared, (FaultKind.PHANTOM_FAILURE,), 1, At.parse("last"))
    assert [r.write for r in last.runs] == [3]
    assert "does not say how many" in last.skipped[0].reason
    assert last.source == "the adapter's write_points()"


def test_points_whose_urls_overlap_are_said_when_planned_without_a_clean_run() -> None:
    declared = [(WritePoint("POST", "/items/*"), 2), (WritePoint("POST", "/items/export"), 1)]
    plan = plan_from_points(declared, (FaultKind.PHANTOM_SUCCESS,), 1, At.parse("first"))
    assert any("POST /items/export match it too" in n for n in plan.notes)


@settings(deadline=None)  # no timing assertions: shared machine
@given(st.integers(1, 4), st.sets(st.sampled_from(ALL_KINDS), min_size=1),
       st.sampled_from(["first", "last", "1", "2", "3", "5"]))
def test_the_plan_is_points_times_kinds_times_reps(reps: int, kinds: set[FaultKind],
                                                  at: str) -> None:
    try:
        plan = plan_from_writes(portal_writes(), tuple(kinds), reps, At.parse(at))
    except PlanError:
        assert at == "5"  # beyond every point's writes (3 each): refused
        return
    live = len(plan.points) - len(plan.skipped)
    assert len(plan.runs) == live * len(kinds) * reps
    assert len({r.slug for r in plan.runs}) == len(plan.runs)
    for r in plan.runs:
        assert r.kind in kinds and 1 <= r.rep <= reps and r.point is not None
