"""The executor for this machine: N workers, each with a headless Chromium of its own.

A worker carries out one run at a time in a fresh browser context (contexts are cheap;
browsers are not). A worker whose Chromium died gets a new one before its next run, and
the run it was on is reported as infrastructure.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.browser.pool import BrowserPool
from ajantik_cdp.gauntlet.evidence.claim_line import no_claim
from ajantik_cdp.gauntlet.evidence.run_data import (
    AgentOutcome,
    InfraError,
    RunResult,
    RunSpec,
    Timings,
)
from ajantik_cdp.gauntlet.run.executor import ShopAccess
from ajantik_cdp.gauntlet.run.run_harness import Worker, run_once
from ajantik_shop import ShopHarness


class LocalExecutor:
    def __init__(self, workers: int, shop: ShopAccess, *,
                 chromes: list[ChromeProcess] | None = None) -> None:
        """``chromes``: browsers to use, one worker each, that this executor must not
        close (tests pass their session's); otherwise ``workers`` are started here."""
        if workers < 1:
            raise ValueError("an executor needs at least one worker")
        self._count = len(chromes) if chromes else workers
        self._given = chromes
        self._shop = shop
        self._playwright_cm: Any = None
        self._harness: ShopHarness | None = None
        self._browsers: BrowserPool | None = None
        self._idle: asyncio.Queue[Worker] = asyncio.Queue()
        self.lanes: list[Worker] = []
        self.browser_version = "unknown"

    @property
    def workers(self) -> int:
        return self._count

    @property
    def notes(self) -> list[str]:
        return [n for w in self.lanes for n in w.notes]

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        self._playwright_cm = async_playwright()
        playwright = await self._playwright_cm.__aenter__()
        self._harness = ShopHarness(self._shop.base_url, self._shop.secret)
        try:
            self._browsers = (BrowserPool.given(self._given) if self._given
                              else await BrowserPool.start(self._count))
            for i in range(len(self._browsers.chromes)):
                worker = Worker(i, playwright, self._harness, self._browsers)
                self.lanes.append(worker)
                self._idle.put_nowait(worker)
            await asyncio.gather(*(self._warm_up(w) for w in self.lanes))
        except BaseException:
            await self.close()
            raise

    async def _warm_up(self, worker: Worker) -> None:
        """A fresh Chromium's first context and page load cost seconds; pay them here,
        not in the first run's setup time."""
        with contextlib.suppress(Exception):
            browser = await worker.playwright.chromium.connect_over_cdp(
                worker.chrome.http_url)
            try:
                self.browser_version = f"{browser.version}"
                context = await browser.new_context()
                page = await context.new_page()
                await page.goto(self._shop.base_url + "/")
                await context.close()
            finally:
                await browser.close()

    async def submit(self, spec: RunSpec) -> RunResult:
        worker = await self._idle.get()
        try:
            return await run_once(spec, worker)
        except Exception as exc:  # run_once keeps its own failures; this is a last resort
            return RunResult(spec.run_id, spec.variant, spec.repetition, worker.index, "",
                             Timings(), AgentOutcome(no_claim("the agent did not run")),
                             infra=InfraError("harness", f"{type(exc).__name__}: {exc}"))
        finally:
            self._idle.put_nowait(worker)

    async def close(self) -> None:
        self.lanes.clear()
        if self._browsers is not None:
            await self._browsers.close()
            self._browsers = None
        if self._harness is not None:
            await self._harness.close()
            self._harness = None
        if self._playwright_cm is not None:
            with contextlib.suppress(Exception):
                await self._playwright_cm.__aexit__(None, None, None)
            self._playwright_cm = None
