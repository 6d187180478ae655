"""One filmed `ajantik demo` per test session, shared by the tests that read it: the
demo's verdicts checked against the portal (tests/portal_pilot/test_demo_end_to_end.py)
and its report read on a phone and a desktop (tests/film/test_pages_on_screens.py). The
demo takes a minute of the suite each time it runs; filmed, as `ajantik demo` can be, it
also shows that filming leaves every verdict as it was."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.demo.runner import run_demo
from ajantik_cdp.testrun.run.runner import JudgedRun, SessionResult, SkillTestResult


@dataclass
class Seen:
    """The progress the runner reported, run by run."""

    runs: list[JudgedRun] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)

    def planned(self, result: SkillTestResult, total: int) -> None:
        self.totals.append(total)

    def finished(self, run: JudgedRun, done: int, total: int) -> None:
        self.runs.append(run)


@dataclass(frozen=True)
class DemoRun:
    out: Path
    outcome: SessionResult
    seen: Seen


async def filmed_demo_run(chrome: ChromeProcess, out: Path) -> DemoRun:
    seen = Seen()
    outcome = await run_demo(out, seen, chromes=[chrome], film=FilmPolicy(fps=2))
    return DemoRun(out, outcome, seen)
