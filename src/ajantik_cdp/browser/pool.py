"""A pool of browsers, one per lane, for work that runs in parallel.

Runs on one browser must not overlap when each has a guard: a guard keeps a session on
every target of its browser, so two guards on one browser would intercept (and fault)
each other's requests. Parallel work therefore gets a browser per lane. The pool starts
headless Chromiums together (all or none: one that fails to start closes the others),
replaces one that died, and closes what it started. Browsers a caller hands in (a test
session's) are used as they are and never closed or replaced here; nor are remote
browsers (a DevTools endpoint elsewhere), which the pool only knows by their address and
by whether their connection was seen to drop.

A pool given a ledger notes there the Chromiums it runs, so that a successor process
(a restarted Ray worker) can end the ones its killed predecessor left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
from pathlib import Path
from types import TracebackType

from ajantik_cdp.browser.endpoints import RemoteBrowser
from ajantik_cdp.browser.launch import PROFILE_PREFIX, ChromeProcess, start_chrome_async


class BrowserGone(Exception):
    """A browser the pool does not own died: it cannot start another in its place."""


class BrowserPool:
    def __init__(self, chromes: list[ChromeProcess], *, own: bool,
                 remote: list[RemoteBrowser] | None = None, ledger: Path | None = None
                 ) -> None:
        self.chromes = chromes
        self.own = own
        self.remote = list(remote or [])
        self.ledger = ledger
        self._lost: set[int] = set()  # remote lanes whose connection dropped

    @classmethod
    async def start(cls, count: int, *, ledger: Path | None = None) -> BrowserPool:
        """``count`` headless Chromiums, started at once."""
        started = await asyncio.gather(*(start_chrome_async() for _ in range(count)),
                                       return_exceptions=True)
        chromes = [c for c in started if not isinstance(c, BaseException)]
        errors = [c for c in started if isinstance(c, BaseException)]
        if errors:
            for chrome in chromes:
                _close(chrome)
            raise errors[0]
        pool = cls(chromes, own=True, ledger=ledger)
        pool._note()
        return pool

    @classmethod
    def given(cls, chromes: list[ChromeProcess]) -> BrowserPool:
        return cls(list(chromes), own=False)

    @classmethod
    def of_remote(cls, browsers: list[RemoteBrowser]) -> BrowserPool:
        return cls([], own=False, remote=browsers)

    @property
    def size(self) -> int:
        return len(self.remote) or len(self.chromes)

    def cdp_url(self, lane: int) -> str:
        """Where a client connects to the lane's browser (a credential when remote)."""
        return self.remote[lane].url if self.remote else self.chromes[lane].http_url

    def label(self, lane: int) -> str:
        return self.remote[lane].label if self.remote else f"Chromium {lane + 1}"

    def alive(self, lane: int) -> bool:
        if self.remote:
            return lane not in self._lost
        return self.chromes[lane].proc.poll() is None

    def mark_lost(self, lane: int) -> None:
        """A remote browser's connection dropped: it has no process to poll."""
        if self.remote:
            self._lost.add(lane)

    async def replace(self, lane: int) -> ChromeProcess | None:
        """A new Chromium in place of the lane's dead one; for a remote browser, another
        try (it is somebody else's to restart), and None."""
        if self.remote:
            self._lost.discard(lane)
            return None
        if not self.own:
            raise BrowserGone("the shared Chromium is gone")
        _close(self.chromes[lane])
        self.chromes[lane] = await start_chrome_async()
        self._note()
        return self.chromes[lane]

    async def close(self) -> None:
        if self.own:
            await asyncio.gather(*(asyncio.to_thread(_close, c) for c in self.chromes))
            if self.ledger is not None:
                with contextlib.suppress(OSError):
                    self.ledger.unlink()
        self.chromes = []

    def _note(self) -> None:
        if self.ledger is None:
            return
        entries = [{"pid": c.proc.pid, "profile": str(c.profile)} for c in self.chromes]
        self.ledger.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.ledger.with_suffix(".tmp")
        tmp.write_text(json.dumps(entries), encoding="utf-8")
        os.replace(tmp, self.ledger)

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


def end_leftovers(ledger: Path) -> int:
    """End the Chromiums a pool noted in ``ledger`` that still run (their owner was killed
    and could not close them); returns how many. A process is ended only if it is still
    the one noted (its command line names the noted profile), never a stranger that
    reused the pid."""
    try:
        entries = json.loads(ledger.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    ended = 0
    for entry in entries if isinstance(entries, list) else []:
        try:
            pid, profile = int(entry["pid"]), str(entry["profile"])
        except (KeyError, TypeError, ValueError):
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            cmdline = b""
        if f"--user-data-dir={profile}".encode() in cmdline:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # Chromium leads its own session
                ended += 1
        if Path(profile).name.startswith(PROFILE_PREFIX):  # only a profile launch made
            shutil.rmtree(profile, ignore_errors=True)
    with contextlib.suppress(OSError):
        ledger.unlink()
    return ended
