"""Running a suite: plan its runs, hand them to an executor up to its concurrency, score
each as it comes back. The caller gets every scored run through ``on_done`` as soon as
it is scored, so an interrupted suite still has everything that finished."""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path

from ajantik_cdp.gauntlet.evidence.run_data import RunSpec
from ajantik_cdp.gauntlet.executor import Executor, ShopAccess
from ajantik_cdp.gauntlet.score.scoring import Scored, score
from ajantik_cdp.gauntlet.suite.suite_file import Suite
from ajantik_shop import ShopServer

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


def plan(suite: Suite, suite_run: str, out_dir: Path) -> list[RunSpec]:
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
    """Run every spec; scored runs go to ``on_done`` in the order they finish. The
    executor's workers set the concurrency (the suite's ``concurrency`` is how many
    workers the command starts unless ``--workers`` says otherwise)."""
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
