"""The executor for this machine: N workers, each with a browser of its own.

The browsers are headless Chromiums it starts (or a test session's), or remote browsers
given by their DevTools endpoint (``--browser``), one run at a time each. A worker
carries out one run at a time in a fresh browser context (contexts are cheap; browsers
are not). A worker whose Chromium died gets a new one before its next run, and the run
it was on is reported as infrastructure. Remote endpoints are credentials: they are
scrubbed from every run's evidence and its agent's output files.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from ajantik_cdp.browser.endpoints import EndpointScrubber, RemoteBrowser
from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.browser.pool import BrowserPool
from ajantik_cdp.gauntlet.evidence.run_data import RunResult, RunSpec
from ajantik_cdp.gauntlet.run.endpoint_scrubbing import scrub_agent_files, scrub_result
from ajantik_cdp.gauntlet.run.executor import ExecutorStartError, ShopAccess, infra_result
from ajantik_cdp.gauntlet.run.failures import first_line
from ajantik_cdp.gauntlet.run.idle_workers import IdleWorkers
from ajantik_cdp.gauntlet.run.lane import Lane
from ajantik_cdp.gauntlet.run.run_harness import run_once
from ajantik_shop import ShopHarness


class LocalExecutor:
    name = "local"

    def __init__(self, workers: int, shop: ShopAccess, *,
                 chromes: list[ChromeProcess] | None = None,
                 remote: list[RemoteBrowser] | None = None) -> None:
        """``chromes``: browsers to use, one worker each, that this executor must not
        close (tests pass their session's); ``remote``: browsers elsewhere, one worker
        each; otherwise ``workers`` Chromiums are started here."""
        if workers < 1:
            raise ValueError("an executor needs at least one worker")
        self._count = len(remote) if remote else len(chromes) if chromes else workers
        self._given = chromes
        self._remote = list(remote or [])
        self.scrubber = EndpointScrubber(self._remote)
        self._shop = shop
        self._playwright_cm: Any = None
        self._harness: ShopHarness | None = None
        self._browsers: BrowserPool | None = None
        self._idle: IdleWorkers[Lane] = IdleWorkers()
        self.lanes: list[Lane] = []
        self._notes: list[str] = []  # the lanes' notes, kept once they are closed
        self.browser_version = "unknown"

    @property
    def workers(self) -> int:
        return self._count

    @property
    def notes(self) -> list[str]:
        return [self.scrubber.scrub(n) for n in
                [*self._notes, *(n for w in self.lanes for n in w.notes)]]

    def environment(self) -> dict[str, Any]:
        env: dict[str, Any] = {"executor": self.name, "workers": self.workers,
                               "browser": self.browser_version}
        if self._remote:  # by label: an endpoint is a credential
            env["browsers"] = [b.label for b in self._remote]
        return env

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        self._playwright_cm = async_playwright()
        playwright = await self._playwright_cm.__aenter__()
        self._harness = ShopHarness(self._shop.base_url, self._shop.secret)
        try:
            if self._remote:
                self._browsers = BrowserPool.of_remote(self._remote)
            elif self._given:
                self._browsers = BrowserPool.given(self._given)
            else:
                self._browsers = await BrowserPool.start(self._count)
            for i in range(self._browsers.size):
                lane = Lane(i, playwright, self._browsers)
                self.lanes.append(lane)
                self._idle.add(lane)
            versions = await asyncio.gather(*(self._warm_up(w) for w in self.lanes))
            self.browser_version = next((v for v in versions if v), "unknown")
        except BaseException:
            await self.close()
            raise

    async def _warm_up(self, lane: Lane) -> str | None:
        try:
            return await lane.warm_up(self._shop.base_url)
        except Exception as exc:
            if not self._remote:
                return None  # a local Chromium that fails here is replaced at its first run
            # A remote browser that cannot be reached now will not be later: say which.
            raise ExecutorStartError(self.scrubber.scrub(
                f"{lane.label} cannot be used: {first_line(exc)}")) from None

    async def submit(self, spec: RunSpec, avoid: frozenset[int] = frozenset()) -> RunResult:
        lane = await self._idle.take(avoid)
        try:
            assert self._harness is not None
            result = await run_once(spec, self._harness, lane)
        except Exception as exc:  # run_once keeps its own failures; this is a last resort
            result = infra_result(spec, lane.index, "harness", first_line(exc))
        finally:
            await self._idle.give(lane)
        if self.scrubber:
            scrub_agent_files(Path(spec.artifacts), self.scrubber)
            result = scrub_result(result, self.scrubber)
        return result

    async def close(self) -> None:
        self._notes += [n for w in self.lanes for n in w.notes]
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
