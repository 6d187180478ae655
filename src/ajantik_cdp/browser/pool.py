"""A pool of headless Chromiums, one per lane, for work that runs in parallel.

Runs on one Chromium must not overlap when each has a guard: a guard keeps a session on
every target of its browser, so two guards on one browser would intercept (and fault)
each other's requests. Parallel work therefore gets a browser per lane. The pool starts
them together (all or none: one that fails to start closes the others), replaces one
that died, and closes what it started. Browsers a caller hands in (a test session's) are
used as they are and never closed or replaced here.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from types import TracebackType

from ajantik_cdp.browser.launch import ChromeProcess, start_chrome_async


class BrowserGone(Exception):
    """A browser the pool does not own died: it cannot start another in its place."""


class BrowserPool:
    def __init__(self, chromes: list[ChromeProcess], *, own: bool) -> None:
        self.chromes = chromes
        self.own = own

    @classmethod
    async def start(cls, count: int) -> BrowserPool:
        """``count`` headless Chromiums, started at once."""
        started = await asyncio.gather(*(start_chrome_async() for _ in range(count)),
                                       return_exceptions=True)
        chromes = [c for c in started if not isinstance(c, BaseException)]
        errors = [c for c in started if isinstance(c, BaseException)]
        if errors:
            for chrome in chromes:
                _close(chrome)
            raise errors[0]
        return cls(chromes, own=True)

    @classmethod
    def given(cls, chromes: list[ChromeProcess]) -> BrowserPool:
        return cls(list(chromes), own=False)

    def alive(self, lane: int) -> bool:
        return self.chromes[lane].proc.poll() is None

    async def replace(self, lane: int) -> ChromeProcess:
        """A new Chromium in place of the lane's dead one."""
        if not self.own:
            raise BrowserGone("the shared Chromium is gone")
        _close(self.chromes[lane])
        self.chromes[lane] = await start_chrome_async()
        return self.chromes[lane]

    async def close(self) -> None:
        if self.own:
            await asyncio.gather(*(asyncio.to_thread(_close, c) for c in self.chromes))
        self.chromes = []

    async def __aenter__(self) -> BrowserPool:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


def _close(chrome: ChromeProcess) -> None:
    # A browser that is already gone, or will not die within close()'s wait, must not
    # keep the pool's other browsers from being closed.
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        chrome.close()
