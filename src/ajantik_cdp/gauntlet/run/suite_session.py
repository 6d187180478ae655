"""A suite from start to files: the shop, the executor, the runs, then ``results.json``
and ``report.html``.

The runs are planned (slowest first), handed to the executor up to its workers, and
each is scored as it comes back; the caller gets every scored run through ``on_done``
at once. A run whose browser or node was lost under it is infrastructure, never the
agent's: it is run again on another worker (``Placement.retries`` times at most) and
the loss is noted with the run. ``results.json`` is written again after every
finished run (marked interrupted until the last), so a suite killed outright, or its
machine gone, loses only the runs in flight; ``--resume`` carries on from it
(``resume``). A suite interrupted (Ctrl-C) before any run finished still writes both
files, saying exactly that (zero runs, interrupted), rather than nothing."""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import re
import secrets
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ajantik_cdp import __version__
from ajantik_cdp.browser.endpoints import EndpointScrubber
from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.gauntlet.evidence.run_data import RunResult, RunSpec
from ajantik_cdp.gauntlet.report.report_page import render_report
from ajantik_cdp.gauntlet.run.endpoint_scrubbing import scrubbed_logging
from ajantik_cdp.gauntlet.run.executor import Executor, ShopAccess
from ajantik_cdp.gauntlet.run.local_executor import LocalExecutor
from ajantik_cdp.gauntlet.run.placement import DEFAULT_RETRIES, Placement
from ajantik_cdp.gauntlet.run.resume import Resumed
from ajantik_cdp.gauntlet.run.run_films import films_for
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


def plan_runs(suite: Suite, suite_run: str, out_dir: Path,
              film: FilmPolicy | None = None) -> list[RunSpec]:
    """Every run of the suite, in the order they are handed out (slowest first); each
    filmed by ``film`` unless it is None (the spec carries its rate: a spec is JSON-able,
    and the rate is the policy's only setting a suite chooses)."""
    specs = [
        RunSpec(run_id=run, suite_run=suite_run, variant=variant, repetition=rep,
                agent=suite.agent, task_name=suite.task.name,
                task_text=suite.task.description, deadline=suite.deadline,
                artifacts=str(out_dir / "runs" / run),
                film_fps=film.fps if film is not None else None, redact=suite.redact)
        for variant, rep, run in suite.planned_runs]
    return sorted(specs, key=lambda s: (-COST.get(s.variant, DEFAULT_COST), s.repetition))


def result_order(suite: Suite, runs: list[Scored]) -> list[Scored]:
    """Runs in the suite's variant order, then by repetition, for files and pages."""
    rank = {v: i for i, v in enumerate(suite.variants)}
    return sorted(runs, key=lambda r: (rank.get(r.result.variant, 99), r.result.repetition))


def lost_to_infrastructure(result: RunResult) -> bool:
    """A browser or node lost under the run: another worker may well carry it out. A
    shop that failed or a harness bug would fail the same way anywhere."""
    return result.infra is not None and result.infra.kind == "browser"


ATTEMPT = re.compile(r"[a-z]+-attempt-\d+")


def _set_aside(folder: Path, why: str) -> None:
    """The files of an attempt that did not count (``lost`` with its browser, or
    ``interrupted`` with the suite), kept beside the run's: evidence of what happened."""
    if not folder.is_dir():
        return
    mine = [i for i in folder.iterdir() if not ATTEMPT.fullmatch(i.name)]
    if not mine:
        return
    n = 1
    while any((folder / f"{w}-attempt-{n}").exists() for w in ("lost", "interrupted")):
        n += 1
    target = folder / f"{why}-attempt-{n}"
    target.mkdir()
    for item in mine:
        item.rename(target / item.name)


async def run_suite(suite: Suite, executor: Executor, specs: list[RunSpec],
                    on_done: Callable[[Scored], None], *, retries: int = DEFAULT_RETRIES,
                    notes: list[str] | None = None) -> None:
    """Run every spec; scored runs go to ``on_done`` in the order they finish, at most
    as many at a time as the executor has workers (the suite's ``workers`` unless
    ``--workers`` says otherwise). A run lost to infrastructure is run again on another
    worker, up to ``retries`` times; what was lost goes to ``notes`` and to the run."""
    gate = asyncio.Semaphore(max(1, executor.workers))

    async def one(spec: RunSpec) -> None:
        async with gate:
            result = await executor.submit(spec)
            lost: list[RunResult] = []
            while lost_to_infrastructure(result) and len(lost) < retries:
                lost.append(result)
                assert result.infra is not None
                line = (f"{spec.run_id}: attempt {len(lost)} on worker {result.worker} was "
                        f"lost to infrastructure ({result.infra.kind}: "
                        f"{result.infra.message}); run again on another worker")
                if notes is not None:
                    notes.append(line)
                await asyncio.to_thread(_set_aside, Path(spec.artifacts), "lost")
                result = await executor.submit(spec, frozenset(r.worker for r in lost))
                result = replace(result, notes=(line, *result.notes))
        on_done(score(result, suite.task.expect))

    async with asyncio.TaskGroup() as group:
        for spec in specs:
            group.create_task(one(spec))


@contextlib.asynccontextmanager
async def local_shop(access: ShopAccess | None = None, host: str = "127.0.0.1"
                     ) -> AsyncIterator[ShopAccess]:
    """The bundled shop in this process, on an ephemeral port of ``host`` (loopback
    unless the browsers are elsewhere), unless the caller points at one already running."""
    if access is not None:
        yield access
        return
    shop = ShopServer(host=host)
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


def _write_atomically(path: Path, data: bytes) -> None:
    """Never half a file: a suite killed while writing keeps the previous one."""
    part = path.with_name(f".{path.name}.part")
    part.write_bytes(data)
    os.replace(part, path)


def write_results(suite: Suite, out_dir: Path, runs: list[Scored], ctx: RunContext
                  ) -> tuple[Summary, dict[str, Any]]:
    ordered = result_order(suite, runs)
    summary = summarise_suite(ordered, suite.variants, suite.repetitions, suite.confidence,
                              suite.thresholds)
    data = results_data(suite, ctx, summary, ordered)
    _write_atomically(out_dir / RESULTS, encode_results(data))
    return summary, data


def write_outputs(suite: Suite, out_dir: Path, runs: list[Scored], ctx: RunContext
                  ) -> tuple[Summary, dict[str, Any]]:
    summary, data = write_results(suite, out_dir, runs, ctx)
    _write_atomically(out_dir / REPORT, render_report(
        data, screenshots_for(out_dir, data), films_for(out_dir, data)).encode("utf-8"))
    return summary, data


def _executor(placement: Placement, workers: int, access: ShopAccess,
              chromes: list[ChromeProcess] | None) -> Executor:
    if placement.executor == "ray":
        from ajantik_cdp.gauntlet.run.ray_executor import RayExecutor

        return RayExecutor(workers, access, address=placement.ray_address)
    return LocalExecutor(workers, access, chromes=chromes,
                         remote=list(placement.browsers) or None)


def _shop_host(placement: Placement) -> str:
    if placement.shop_host:
        return placement.shop_host
    if placement.executor == "ray":
        from ajantik_cdp.gauntlet.run.ray_executor import connect_ray

        return connect_ray(placement.ray_address)  # the driver as the nodes reach it
    return "127.0.0.1"


async def run_session(suite: Suite, out_dir: Path, *, workers: int,
                      on_done: Callable[[Scored], None] = lambda s: None,
                      shop: ShopAccess | None = None,
                      chromes: list[ChromeProcess] | None = None,
                      on_start: Callable[[int, int], None] = lambda total, workers: None,
                      placement: Placement | None = None,
                      suite_run: str | None = None,
                      resume: Resumed | None = None,
                      film: FilmPolicy | None = None,
                      ) -> SessionOutcome:
    """Run the suite into ``out_dir`` (prepared by the caller). With ``resume``, the runs
    it kept count as they are (scored again from their evidence) and only the others
    run, under the original suite run id. Cancelled (Ctrl-C) part way, the files are
    still written, marked interrupted, for the runs that finished: zero runs included,
    so a results.json never claims more than happened. With ``film`` every run is
    filmed into its folder and the report shows a player per run."""
    placement = placement or Placement()
    started = datetime.now(UTC)
    t0 = time.monotonic()
    notes: list[str] = []
    runs: list[Scored] = []
    if resume is not None:
        suite_run = resume.suite_run
        runs = [score(r, suite.task.expect) for r in resume.kept]
        notes.append(f"resumed: {counted(len(resume.kept), 'run')} kept from an earlier session of "
                     f"this suite run; the times above are this session's")
        notes += [f"{r}: lost to infrastructure in the earlier session; run again"
                  for r in resume.rerun]
    suite_run = suite_run or suite_run_id(suite.name, started)
    interrupted = True
    executor: Executor | None = None
    scrubber = EndpointScrubber(placement.browsers)

    def context() -> RunContext:
        where: dict[str, Any] = (executor.environment() if executor else
                                 {"executor": placement.executor, "workers": workers,
                                  "browser": "unknown"})
        return RunContext(
            suite_run=suite_run, started_at=_iso(started), finished_at=_iso(datetime.now(UTC)),
            wall_seconds=time.monotonic() - t0, interrupted=interrupted,
            environment={
                "ajantik": __version__, "python": sys.version.split()[0],
                "platform": platform.platform(terse=True), **where,
            },
            notes=tuple(scrubber.scrub(n) for n in
                        [*(executor.notes if executor else []), *notes]))

    cancelled = False
    try:
        with scrubbed_logging(scrubber):
            host = shop.base_url if shop else _shop_host(placement)
            async with local_shop(shop, host) as access:
                executor = _executor(placement, workers, access, chromes)
                try:
                    await executor.start()
                    kept = {s.result.run_id for s in runs}
                    specs = [s for s in plan_runs(suite, suite_run, out_dir, film)
                             if s.run_id not in kept]
                    for spec in specs:  # what an interrupted session left of them
                        await asyncio.to_thread(_set_aside, Path(spec.artifacts),
                                                "interrupted")
                    on_start(len(specs), executor.workers)

                    def done(s: Scored) -> None:
                        runs.append(s)
                        on_done(s)
                        # After every run: a suite killed outright keeps what finished.
                        write_results(suite, out_dir, runs, context())

                    await run_suite(suite, executor, specs, done, retries=placement.retries,
                                    notes=notes)
                    interrupted = False
                finally:
                    await executor.close()
    except asyncio.CancelledError:
        cancelled = True
        raise
    finally:
        if placement.executor == "ray":  # joined for the shop's address even if no run
            from ajantik_cdp.gauntlet.run.ray_executor import disconnect_ray

            disconnect_ray()
        if cancelled:
            # Ctrl-C, zero runs included: the files say what finished. Synchronously, on
            # purpose: a second Ctrl-C cannot cut them in half.
            summary, data = write_outputs(suite, out_dir, runs, context())
        elif runs or not interrupted:
            summary, data = await asyncio.to_thread(write_outputs, suite, out_dir, runs,
                                                    context())
    return SessionOutcome(summary, result_order(suite, runs), data, out_dir / RESULTS,
                          out_dir / REPORT, time.monotonic() - t0)
