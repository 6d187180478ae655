"""Progress on the terminal while a suite runs: a live bar with pass/fail/left-out counts
on a terminal, one line per finished run otherwise (CI logs, pipes). Each line names the
run's outcome on the ladder next to pass, FAIL or left out."""

from __future__ import annotations

from rich.console import Console

from ajantik_cdp.gauntlet.score.run_outcome import Outcome
from ajantik_cdp.gauntlet.score.scoring import Scored
from ajantik_cdp.live_bar import LiveBar


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


class SuiteProgress(LiveBar):
    def __init__(self, total: int, console: Console, *, lines: bool | None = None) -> None:
        super().__init__("gauntlet", console, lines=lines)
        self.total = total
        self.counts = {"pass": 0, "fail": 0, "left out": 0}

    def __enter__(self) -> SuiteProgress:
        self._open(self._description(), self.total)
        return self

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
