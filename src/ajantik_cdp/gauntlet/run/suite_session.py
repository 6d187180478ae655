"""A suite from start to files: the shop, the executor, the runs, then ``results.json``
and ``report.html``.

The runs are planned (slowest first), handed to the executor up to its workers, and
each is scored as it comes back; the caller gets every scored run through ``on_done``
at once. The files are written even when the suite is interrupted (marked so), because
runs that finished are data nobody should lose, and an interrupted suite with no
finished run says exactly that (zero runs, interrupted) rather than nothing."""

from __future__ import annotations

import asyncio
import contextlib
import platform
import re
import secrets
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ajantik_cdp import __version__
from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.gauntlet.evidence.run_data import RunSpec
from ajantik_cdp.gauntlet.report.report_page import render_report
from ajantik_cdp.gauntlet.run.executor import Executor, ShopAccess
from ajantik_cdp.gauntlet.run.local_executor import LocalExecutor
from ajantik_cdp.gauntlet.score.results_file import RunContext, encode_results, results_data
from ajantik_cdp.gauntlet.score.scoring import Scored, score
from ajantik_cdp.gauntlet.score.suite_summary import Summary, summarise_suite
from ajantik_cdp.gauntlet.suite.suite_file import Suite
from ajantik_shop import ShopServer

RESULTS = "results.json"
REPORT = "report.html"

# Rough agent seconds per variant (bench/shop.py, the correct path): the slowest go
# first, so the last runs to finish are short ones and workers do not idle at the end.
COST = {"network_delay": 11.0, "slow_api": 7.0, "delayed_element": 4.5}
DEFAULT_COST = 2.5


def suite_run_id(name: str, when: datetime | None = None) -> str:
    """Fresh per suite run, so repeated suites meet fresh jitter; recorded in the results
    so any run's environment can be reproduced (`ajantik shop --suite-run ...`)."""
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "suite"
    return f"{slug}-{stamp}-{secrets.token_hex(3)}"


def plan_runs(suite: Suite, suite_run: str, out_dir: Path) -> list[RunSpec]:
    """Every run of the suite, in the order they are handed out (slowest first)."""
    specs = [
        RunSpec(run_id=f"{variant}-r{rep}", suite_run=suite_run, variant=variant,
                repetition=rep, agent=suite.agent, task_name=suite.task.name,
                task_text=suite.task.description, deadline=suite.deadline,
                artifacts=str(out_dir / "runs" / f"{variant}-r{rep}"))
        for rep in range(suite.repetitions) for variant in suite.variants]
    return sorted(specs, key=lambda s: (-COST.get(s.variant, DEFAULT_COST), s.repetition))


def result_order(suite: Suite, runs: list[Scored]) -> list[Scored]:
    """Runs in the suite's variant order, then by repetition, for files and pages."""
    rank = {v: i for i, v in enumerate(suite.variants)}
    return sorted(runs, key=lambda r: (rank.get(r.result.variant, 99), r.result.repetition))


async def run_suite(suite: Suite, executor: Executor, specs: list[RunSpec],
                    on_done: Callable[[Scored], None]) -> None:
    """Run every spec; scored runs go to ``on_done`` in the order they finish, at most
    as many at a time as the executor has workers (the suite's ``workers`` unless
    ``--workers`` says otherwise)."""
    gate = asyncio.Semaphore(max(1, executor.workers))

    async def one(spec: RunSpec) -> None:
        async with gate:
            result = await executor.submit(spec)
        on_done(score(result, suite.task.expect))

    async with asyncio.TaskGroup() as group:
        for spec in specs:
            group.create_task(one(spec))


@contextlib.asynccontextmanager
async def local_shop(access: ShopAccess | None = None) -> AsyncIterator[ShopAccess]:
    """The bundled shop in this process, on an ephemeral loopback port, unless the
    caller points at one already running."""
    if access is not None:
        yield access
        return
    shop = ShopServer()
    await shop.start()
    try:
        yield ShopAccess(shop.base_url, shop.secret)
    finally:
        await shop.stop()


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
    out_dir.mkdir(parents=True, exist_ok=True)
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
    """Run the suite and write its files. Interrupted (cancelled) or broken part way,
    the files are still written, marked interrupted, for the runs that finished: zero
    runs included, so a results.json never claims more than happened."""
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
                specs = plan_runs(suite, suite_run, out_dir)
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
        # Synchronously, on purpose: a second Ctrl-C cannot cut the files in half.
        summary, data = write_outputs(suite, out_dir, list(runs), ctx)
    return SessionOutcome(summary, result_order(suite, runs), data, out_dir / RESULTS,
                          out_dir / REPORT, time.monotonic() - t0)
