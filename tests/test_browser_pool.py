"""The pool of Chromiums, without starting one: what it closes, and what it never does."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ajantik_cdp.browser import pool as pool_module
from ajantik_cdp.browser.launch import ChromeStartError
from ajantik_cdp.browser.pool import BrowserGone, BrowserPool


class FakeProc:
    def __init__(self) -> None:
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode


class FakeChrome:
    """Stands in for ChromeProcess: the pool only polls and closes it."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.proc = FakeProc()
        self.closed = False

    def close(self) -> None:
        self.closed = True
        self.proc.returncode = 0


class Starts:
    """Every browser the pool started, in order (None where a start failed)."""

    def __init__(self) -> None:
        self.chromes: list[FakeChrome | None] = []
        self.fail: set[int] = set()  # which starts raise

    async def __call__(self, **_: object) -> FakeChrome:
        n = len(self.chromes)
        self.chromes.append(None)
        await asyncio.sleep(0)
        if n in self.fail:
            raise ChromeStartError(f"chrome {n} did not start")
        chrome = FakeChrome(n)
        self.chromes[n] = chrome
        return chrome


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> Starts:
    fake = Starts()
    monkeypatch.setattr(pool_module, "start_chrome_async", fake)
    return fake


async def test_it_starts_all_and_closes_what_it_started(starts: Starts) -> None:
    async with await BrowserPool.start(3) as pool:
        assert [c.n for c in pool.chromes] == [0, 1, 2] and pool.own
    assert all(c is not None and c.closed for c in starts.chromes)


async def test_one_that_fails_to_start_closes_the_others(starts: Starts) -> None:
    starts.fail.add(1)
    with pytest.raises(ChromeStartError, match="chrome 1"):
        await BrowserPool.start(3)
    assert [c.closed for c in starts.chromes if c is not None] == [True, True]


async def test_a_dead_one_is_replaced(starts: Starts) -> None:
    async with await BrowserPool.start(2) as pool:
        first = pool.chromes[1]
        first.proc.returncode = -9  # as a crash would
        assert not pool.alive(1) and pool.alive(0)
        new = await pool.replace(1)
        assert pool.chromes[1] is new is not first and first.closed and pool.alive(1)


async def test_browsers_handed_in_are_never_closed_or_replaced(tmp_path: Path) -> None:
    theirs = [FakeChrome(0)]
    async with BrowserPool.given(theirs) as pool:  # type: ignore[arg-type]
        theirs[0].proc.returncode = -9
        with pytest.raises(BrowserGone):
            await pool.replace(0)
    assert not theirs[0].closed
