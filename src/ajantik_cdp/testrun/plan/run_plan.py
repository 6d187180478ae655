"""The plan of a test: one run per write point x fault kind x repetition, each with the
fault on the first, last or N-th write of its point. Pure.

A plan comes from a clean run's writes (``plan_from_writes``: it knows how many writes
each point makes, so ``--at last`` and ``--at N`` are exact, and the guard's index is
computed for points whose URLs overlap) or from the adapter's own list of write points
(``plan_from_points``: nothing has run; counts are what the adapter says, if anything).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_cdp.testrun.plan.write_points import (
    PointUse,
    Write,
    WritePoint,
    group,
    guard_at,
    overlaps,
)

ALL_KINDS: tuple[FaultKind, ...] = tuple(FaultKind)


class PlanError(ValueError):
    """An option the plan cannot honour, in one line for the person who gave it."""


@dataclass(frozen=True)
class At:
    """Which write of a point takes the fault: ``first``, ``last`` or the N-th."""

    text: str  # "first", "last" or a number, as given

    @classmethod
    def parse(cls, text: str) -> At:
        value = text.strip().lower()
        if value in ("first", "last"):
            return cls(value)
        if value.isdigit() and int(value) >= 1:
            return cls(str(int(value)))
        raise PlanError(f"--at must be first, last or a number from 1, got {text!r}")

    def write_of(self, count: int | None) -> int | None:
        """The k of "the k-th write of the point" for a point with ``count`` writes (None:
        unknown); None when there is no such write."""
        if self.text == "first":
            return 1 if count is None or count >= 1 else None
        if self.text == "last":
            return count if count else None
        k = int(self.text)
        return k if count is None or k <= count else None


def parse_kinds(text: str | None) -> tuple[FaultKind, ...]:
    """``--faults phantom_success,session_drop`` (None: every kind), in the given order."""
    if text is None:
        return ALL_KINDS
    known = ", ".join(k.value for k in FaultKind)
    kinds: list[FaultKind] = []
    for name in (n.strip() for n in text.split(",")):
        if not name:
            continue
        try:
            kind = FaultKind(name)
        except ValueError:
            raise PlanError(f"unknown fault kind {name!r} in --faults (kinds: {known})"
                            ) from None
        if kind not in kinds:
            kinds.append(kind)
    if not kinds:
        raise PlanError(f"--faults names no fault kind (kinds: {known})")
    return tuple(kinds)


@dataclass(frozen=True)
class PlannedRun:
    """One run of the plan. The clean run has no point and no kind."""

    point: WritePoint | None
    kind: FaultKind | None
    rep: int = 1
    write: int = 1  # the k-th write of the point takes the fault
    guard_at: int = 1  # what the guard is told (--fault-at), see write_points.guard_at
    number: int = 0  # its place in the plan, from 1; the clean run is 0

    @property
    def is_clean(self) -> bool:
        return self.kind is None

    @property
    def slug(self) -> str:
        """A folder name: unique within a plan (its number leads), readable, and the
        same for the same plan."""
        if self.point is None or self.kind is None:
            return "00-clean"
        path = re.sub(r"[^A-Za-z0-9]+", "-", self.point.pattern.replace("*", "x")).strip("-")
        return (f"{self.number:02d}-{self.kind.value}-{self.point.method.lower()}-"
                f"{path[:48].strip('-') or 'root'}-w{self.write}-r{self.rep}")

    @property
    def label(self) -> str:
        if self.point is None or self.kind is None:
            return "clean"
        return f"{self.kind.value} on {self.point.label} (write {self.write}, rep {self.rep})"

    @property
    def fault_text(self) -> str | None:
        """``KIND:REGEX`` as ``ajantik cdp --fault`` takes it."""
        if self.point is None or self.kind is None:
            return None
        return f"{self.kind.value}:{self.point.regex}"


CLEAN = PlannedRun(None, None)


@dataclass(frozen=True)
class Skipped:
    """A cell of the plan that cannot run: the clean run made too few writes of it."""

    point: WritePoint
    reason: str


@dataclass(frozen=True)
class Plan:
    points: tuple[PointUse, ...]  # every point the plan knows, with its writes (-1: unknown)
    kinds: tuple[FaultKind, ...]
    reps: int
    at: At
    runs: tuple[PlannedRun, ...]
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    source: str = "the clean run's record"  # or "the adapter's write_points()"

    @property
    def writes_per_run(self) -> int | None:
        """Writes a run makes, if it writes as the clean run did (None: unknown)."""
        if any(p.writes < 0 for p in self.points):
            return None
        return sum(p.writes for p in self.points)

    def writes_reaching(self) -> int | None:
        """About how many writes of the faulted runs reach the real system: each run's
        writes but the faulted one (which phantom_failure sends too). The skill decides
        the rest: one that retries writes more, one that stops early writes less."""
        per_run = self.writes_per_run
        if per_run is None:
            return None
        return sum(per_run - (0 if r.kind is FaultKind.PHANTOM_FAILURE else 1)
                   for r in self.runs)


def _select(uses: Sequence[PointUse], only: Sequence[WritePoint]) -> list[PointUse]:
    if not only:
        return list(uses)
    known = {u.point: u for u in uses}
    missing = [p.label for p in only if p not in known]
    if missing:
        have = "; ".join(u.point.label for u in uses) or "none"
        raise PlanError(f"--only {missing[0]!r} is not a write point of this skill "
                        f"(its write points: {have})")
    return [known[p] for p in dict.fromkeys(only)]


def plan_from_writes(writes: Sequence[Write], kinds: Sequence[FaultKind], reps: int, at: At,
                     only: Sequence[WritePoint] = ()) -> Plan:
    """The plan from a clean run's writes, in record order."""
    if reps < 1:
        raise PlanError(f"--reps must be 1 or more, got {reps}")
    uses = group(writes)
    chosen = _select(uses, only)
    runs: list[PlannedRun] = []
    skipped: list[Skipped] = []
    for use in chosen:
        k = at.write_of(use.writes)
        index = guard_at(writes, use.point, k) if k is not None else None
        if k is None or index is None:
            skipped.append(Skipped(use.point, "the clean run made "
                                   f"{counted(use.writes, 'write')} of {use.point.label}, "
                                   f"so there is no write {at.text} to fault"))
            continue
        for kind in kinds:
            for rep in range(1, reps + 1):
                runs.append(PlannedRun(use.point, kind, rep, k, index, len(runs) + 1))
    _refuse_empty(at, skipped, runs, [(u.point.label, u.writes) for u in chosen],
                  "the clean run made")
    return Plan(tuple(uses), tuple(kinds), reps, at, tuple(runs), tuple(skipped))


def _refuse_empty(at: At, skipped: Sequence[Skipped], runs: Sequence[PlannedRun],
                  counts: Sequence[tuple[str, int]], source: str) -> None:
    """A plan that --at left with no run at all is an option the plan cannot honour: it
    is refused, naming how many writes each point makes, rather than run as nothing. A
    plan where --at leaves out only some points runs the rest; those are listed as not
    planned."""
    if runs or not skipped:
        return
    said = "; ".join(f"{label}: {'not said' if n < 0 else counted(n, 'write')}"
                     for label, n in counts)
    which = "a known last write" if at.text == "last" else f"a write {at.text}"
    raise PlanError(f"--at {at.text} leaves nothing to fault: {source} ({said}), so no "
                    f"write point has {which}; give a smaller --at, or --at last")


def plan_from_points(declared: Sequence[tuple[WritePoint, int | None]],
                     kinds: Sequence[FaultKind], reps: int, at: At,
                     only: Sequence[WritePoint] = ()) -> Plan:
    """The plan from the adapter's list of (point, writes per run or None)."""
    if reps < 1:
        raise PlanError(f"--reps must be 1 or more, got {reps}")
    uses = [PointUse(p, -1 if n is None else n) for p, n in declared]
    chosen = _select(uses, only)
    points = [u.point for u in uses]
    runs: list[PlannedRun] = []
    skipped: list[Skipped] = []
    notes: list[str] = []
    for use in chosen:
        k = at.write_of(None if use.writes < 0 else use.writes)
        if k is None:
            why = ("the adapter does not say how many writes it makes"
                   if use.writes < 0 else f"the adapter says it makes {use.writes}")
            skipped.append(Skipped(use.point, f"no write {at.text} of {use.point.label}: "
                                   f"{why}; a clean run (`ajantik test run`) finds it"))
            continue
        mixed = [o.label for o in points if overlaps(use.point, o)]
        if mixed:
            notes.append(f"{use.point.label}: the guard counts writes by URL, and "
                         f"{', '.join(mixed)} match it too, so write {k} is counted among "
                         "both; `ajantik test run` aims it exactly from its clean run")
        for kind in kinds:
            for rep in range(1, reps + 1):
                runs.append(PlannedRun(use.point, kind, rep, k, k, len(runs) + 1))
    _refuse_empty(at, skipped, runs, [(u.point.label, u.writes) for u in chosen],
                  "the adapter's write_points() say")
    return Plan(tuple(uses), tuple(kinds), reps, at, tuple(runs), tuple(skipped),
                tuple(notes), source="the adapter's write_points()")
