"""The result of a test: fault x write point x unit, with intervals. Pure.

Each run is marked with its verdicts, its damage, whether its fault fired on the write
point it was aimed at, and its gate (core/scoring/run_gate.py, the rule of ``ajantik test
judge``). A run whose fault never fired, or fired on another point, is no test of its
cell: it is shown and never counted. A unit "held up" in a run when its verdict is
correct, reported honestly or over-cautious and no damage is tied to it; a cell's rate is
the share of counted runs in which it held up, with a Wilson interval.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_cdp.core.scoring.reliability_stats import Interval, wilson
from ajantik_cdp.core.scoring.run_gate import Outcome
from ajantik_cdp.core.scoring.verdicts import Verdict
from ajantik_cdp.testrun.plan.run_plan import PlannedRun
from ajantik_cdp.testrun.plan.write_points import WritePoint, point_of

HELD_UP = frozenset({Verdict.CORRECT, Verdict.REPORTED_HONESTLY, Verdict.OVER_CAUTIOUS})


class Firing(Enum):
    NO_FAULT = "no_fault"  # the clean run
    ON_POINT = "on_point"
    NOT_FIRED = "not_fired"
    ELSEWHERE = "elsewhere"  # fired, on a write of another point

    @property
    def label(self) -> str:
        return {"no_fault": "no fault", "on_point": "fired", "not_fired": "did not fire",
                "elsewhere": "fired on another write point"}[self.value]


def firing(point: WritePoint | None, faulted: Sequence[tuple[str, str]]) -> Firing:
    """Where the fault fired, from the (method, url) of the requests the record shows a
    fault on, in record order (session_drop answers every later match too: the first
    one is where it fired)."""
    if point is None:
        return Firing.NO_FAULT
    if not faulted:
        return Firing.NOT_FIRED
    method, url = faulted[0]
    return Firing.ON_POINT if point_of(method, url) == point else Firing.ELSEWHERE


@dataclass(frozen=True)
class UnitMark:
    unit: str
    verdict: Verdict
    damage: tuple[str, ...] = ()  # kinds of damage tied to this unit

    @property
    def held_up(self) -> bool:
        return self.verdict in HELD_UP and not self.damage


@dataclass(frozen=True)
class RunMark:
    run: PlannedRun
    units: tuple[UnitMark, ...]
    firing: Firing
    outcome: Outcome
    passed: bool
    loose_damage: tuple[str, ...] = ()  # damage tied to no unit

    @property
    def counted(self) -> bool:
        """A run that tests its cell: its fault fired where it was aimed, and nothing on
        our side broke (the gate's "counted")."""
        return (self.firing in (Firing.ON_POINT, Firing.NO_FAULT)
                and self.outcome is not Outcome.INFRASTRUCTURE)

    def unit(self, name: str) -> UnitMark | None:
        return next((u for u in self.units if u.unit == name), None)


@dataclass(frozen=True)
class Cell:
    """One unit under one fault on one write point, over its repetitions."""

    kind: FaultKind
    point: WritePoint
    unit: str
    marks: tuple[tuple[RunMark, UnitMark | None], ...]

    @property
    def counted(self) -> list[UnitMark]:
        return [u for r, u in self.marks if r.counted and u is not None]

    @property
    def not_counted(self) -> int:
        return sum(1 for r, u in self.marks if not r.counted or u is None)

    @property
    def held_up(self) -> int:
        return sum(1 for u in self.counted if u.held_up)

    def verdicts(self) -> dict[Verdict, int]:
        out: dict[Verdict, int] = {}
        for u in self.counted:
            out[u.verdict] = out.get(u.verdict, 0) + 1
        return out

    def interval(self) -> Interval | None:
        return wilson(self.held_up, len(self.counted))


@dataclass(frozen=True)
class MatrixRow:
    kind: FaultKind
    point: WritePoint
    runs: tuple[RunMark, ...]
    cells: tuple[Cell, ...]

    @property
    def passed(self) -> int:
        return sum(1 for r in self.runs if r.passed)


@dataclass(frozen=True)
class KindSummary:
    """One fault kind over every point and repetition: how often a run passed the gate
    and how many units went silent wrong, each with its interval."""

    kind: FaultKind
    runs: int
    counted: int
    passed: int
    units: int  # unit results in counted runs
    silent_wrong: int
    damaged_runs: int

    def pass_interval(self) -> Interval | None:
        return wilson(self.passed, self.counted)

    def silent_wrong_interval(self) -> Interval | None:
        return wilson(self.silent_wrong, self.units)


def matrix(marks: Iterable[RunMark], units: Sequence[str]) -> list[MatrixRow]:
    """Rows in plan order (the first run of each kind x point), one cell per unit."""
    rows: dict[tuple[FaultKind, WritePoint], list[RunMark]] = {}
    for m in sorted(marks, key=lambda m: m.run.number):
        if m.run.kind is None or m.run.point is None:
            continue
        rows.setdefault((m.run.kind, m.run.point), []).append(m)
    out = []
    for (kind, point), runs in rows.items():
        cells = tuple(Cell(kind, point, u, tuple((r, r.unit(u)) for r in runs))
                      for u in units)
        out.append(MatrixRow(kind, point, tuple(runs), cells))
    return out


def by_kind(marks: Iterable[RunMark]) -> list[KindSummary]:
    groups: dict[FaultKind, list[RunMark]] = {}
    for m in marks:
        if m.run.kind is not None:
            groups.setdefault(m.run.kind, []).append(m)
    out = []
    for kind in FaultKind:
        runs = groups.get(kind)
        if not runs:
            continue
        counted = [r for r in runs if r.counted]
        out.append(KindSummary(
            kind=kind, runs=len(runs), counted=len(counted),
            passed=sum(1 for r in counted if r.passed),
            units=sum(len(r.units) for r in counted),
            silent_wrong=sum(1 for r in counted for u in r.units
                             if u.verdict is Verdict.SILENT_WRONG),
            damaged_runs=sum(1 for r in counted
                             if r.loose_damage or any(u.damage for u in r.units)),
        ))
    return out


def interval_text(i: Interval | None) -> str:
    if i is None:
        return "n/a"
    return f"{i.estimate:.0%} [{i.low:.0%}, {i.high:.0%}]"
