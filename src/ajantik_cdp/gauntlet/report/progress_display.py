"""Progress on the terminal while a suite runs: a live bar with pass/fail/left-out counts
on a terminal, one line per finished run otherwise (CI logs, pipes). Each line names the
run's outcome on the ladder next to pass, FAIL or left out."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from ajantik_cdp.gauntlet.score.run_outcome import Outcome
from ajantik_cdp.gauntlet.score.scoring import Scored


def tally(s: Scored) -> str:
    """Which of the progress counts a run adds to."""
    return "pass" if s.passed else ("fail" if s.counted else "left out")


def run_line(s: Scored) -> str:
    r = s.result
    c = s.classification
    what = {"pass": "pass", "fail": "FAIL", "left out": "left out"}[tally(s)]
    why = f"  {c.category}/{c.rule}" if c and c.category != s.outcome.value else (
        f"  {c.rule}" if c else "")
    fired = "  (fault did not fire)" if s.fault_fired is False and \
        s.outcome is not Outcome.FAULT_DID_NOT_FIRE else ""
    # Fixed-width columns first and the ones of varying length last, so that pass and
    # FAIL rows line up in a CI log.
    steps = (f"{r.agent.step_count:>4} steps" if r.agent.step_count is not None
             else " " * 10)
    return (f"{r.run_id:<30} {what:<8} {s.outcome.label:<18} {r.timings.total:>6.1f}s "
            f"{steps}{why}{fired}").rstrip()


class SuiteProgress:
    def __init__(self, total: int, console: Console, *, lines: bool | None = None) -> None:
        self.total = total
        self.console = console
        self.lines = (not console.is_terminal) if lines is None else lines
        self.counts = {"pass": 0, "fail": 0, "left out": 0}
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> SuiteProgress:
        if not self.lines:
            self._bar = Progress(TextColumn("[bold]gauntlet"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("{task.description}"),
                                 TimeElapsedColumn(), console=self.console, transient=True)
            self._bar.__enter__()
            self._task = self._bar.add_task(self._description(), total=self.total)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, exc, tb)

    def _description(self) -> str:
        c = self.counts
        return f"{c['pass']} pass, {c['fail']} fail, {c['left out']} left out"

    def done(self, s: Scored) -> None:
        self.counts[tally(s)] += 1
        finished = sum(self.counts.values())
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=1, description=self._description())
            if not s.passed:
                self._bar.console.print(f"  {run_line(s)}", highlight=False, markup=False)
        else:
            counter = f"[{finished:>{len(str(self.total))}}/{self.total}]"
            self.console.print(f"  {counter} {run_line(s)}", highlight=False, markup=False,
                               soft_wrap=True)
