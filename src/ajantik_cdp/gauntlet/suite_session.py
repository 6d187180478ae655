"""A suite from start to files: the shop, the executor, the runs, then ``results.json``
and ``report.html``. The files are written even when the suite is interrupted (marked
so), because runs that finished are data nobody should lose."""

from __future__ import annotations

import asyncio
import contextlib
import platform
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ajantik_cdp import __version__
from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.gauntlet.executor import ShopAccess
from ajantik_cdp.gauntlet.local_executor import LocalExecutor
from ajantik_cdp.gauntlet.report.report_page import render_report
from ajantik_cdp.gauntlet.score.results_file import RunContext, encode_results, results_data
from ajantik_cdp.gauntlet.score.scoring import Scored
from ajantik_cdp.gauntlet.score.suite_summary import Summary, summarise_suite
from ajantik_cdp.gauntlet.suite.suite_file import Suite
from ajantik_cdp.gauntlet.suite_runner import (
    local_shop,
    plan,
    result_order,
    run_suite,
    suite_run_id,
)

RESULTS = "results.json"
REPORT = "report.html"


@dataclass(frozen=True)
class SessionOutcome:
    summary: Summary
    runs: list[Scored]
    data: dict[str, Any]
    results: Path
    report: Path
    seconds: float


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds").replace("+00:00", "Z")


def screenshots_for(out_dir: Path, data: Mapping[str, Any]) -> dict[str, bytes]:
    """The end-of-run screenshots a results file names, read from ``runs/<id>/``."""
    shots: dict[str, bytes] = {}
    for run in data["runs"]:
        name = run["evidence"].get("screenshot")
        if name:
            with contextlib.suppress(OSError):
                shots[run["run_id"]] = (out_dir / "runs" / run["run_id"] / name).read_bytes()
    return shots


def write_outputs(suite: Suite, out_dir: Path, runs: list[Scored], ctx: RunContext
                  ) -> tuple[Summary, dict[str, Any]]:
    ordered = result_order(suite, runs)
    summary = summarise_suite(ordered, suite.variants, suite.repetitions, suite.confidence,
                              suite.thresholds)
    data = results_data(suite, ctx, summary, ordered)
    (out_dir / RESULTS).write_bytes(encode_results(data))
    (out_dir / REPORT).write_text(render_report(data, screenshots_for(out_dir, data)),
                                  encoding="utf-8")
    return summary, data


async def run_session(suite: Suite, out_dir: Path, *, workers: int,
                      on_done: Callable[[Scored], None] = lambda s: None,
                      shop: ShopAccess | None = None,
                      chromes: list[ChromeProcess] | None = None,
                      on_start: Callable[[int, int], None] = lambda total, workers: None,
                      ) -> SessionOutcome:
    started = datetime.now(UTC)
    t0 = time.monotonic()
    suite_run = suite_run_id(suite.name, started)
    runs: list[Scored] = []
    interrupted = True
    executor: LocalExecutor | None = None
    try:
        async with local_shop(shop) as access:
            executor = LocalExecutor(workers, access, chromes=chromes)
            await executor.start()
            try:
                specs = plan(suite, suite_run, out_dir)
                on_start(len(specs), executor.workers)

                def done(s: Scored) -> None:
                    runs.append(s)
                    on_done(s)

                await run_suite(suite, executor, specs, done)
                interrupted = False
            finally:
                await executor.close()
    finally:
        ctx = RunContext(
            suite_run=suite_run, started_at=_iso(started), finished_at=_iso(datetime.now(UTC)),
            wall_seconds=time.monotonic() - t0, interrupted=interrupted,
            environment={
                "ajantik": __version__, "python": sys.version.split()[0],
                "platform": platform.platform(terse=True),
                "browser": executor.browser_version if executor else "unknown",
                "executor": "local", "workers": executor.workers if executor else workers,
            },
            notes=tuple(executor.notes) if executor else ())
        if runs or not interrupted:
            summary, data = await asyncio.to_thread(write_outputs, suite, out_dir, runs, ctx)
    return SessionOutcome(summary, result_order(suite, runs), data, out_dir / RESULTS,
                          out_dir / REPORT, time.monotonic() - t0)
