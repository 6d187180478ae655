"""Failures that are not the agent's: left out of reliability, reported apart, and the
suite goes on."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.gauntlet.evidence.run_data import RunSpec
from ajantik_cdp.gauntlet.run.executor import ShopAccess
from ajantik_cdp.gauntlet.run.local_executor import LocalExecutor
from ajantik_cdp.gauntlet.score.run_outcome import Outcome
from ajantik_cdp.gauntlet.score.scoring import score
from ajantik_cdp.gauntlet.suite.suite_file import CommandAgentSpec, ReferenceAgentSpec
from ajantik_shop import ShopServer
from tests.gauntlet.builders import TASK, expectation
from tests.gauntlet.suites import python_command

pytestmark = pytest.mark.browser


def spec(run_id: str, folder: Path, agent: ReferenceAgentSpec | CommandAgentSpec,
         variant: str = "baseline", deadline: float = 30) -> RunSpec:
    return RunSpec(run_id, "infra-tests", variant, 0, agent, "Checkout", TASK, deadline,
                   str(folder / run_id))


async def test_a_browser_crash_is_infrastructure_and_the_worker_recovers(
        tmp_path: Path) -> None:
    started = tmp_path / "started"
    script = tmp_path / "wait.py"
    script.write_text(f"import pathlib, time\npathlib.Path({str(started)!r}).touch()\n"
                      "time.sleep(30)\n")
    agent = CommandAgentSpec("wait", tuple(python_command(script).split()), str(tmp_path))
    async with ShopServer() as shop:
        executor = LocalExecutor(1, ShopAccess(shop.base_url, shop.secret))
        await executor.start()
        try:
            running = asyncio.create_task(executor.submit(spec("crash", tmp_path, agent)))
            for _ in range(300):
                if started.exists():
                    break
                await asyncio.sleep(0.05)
            chrome = executor.lanes[0].chrome
            assert chrome is not None and started.exists()
            chrome.kill()  # as a crash would
            crashed = await running
            after = await executor.submit(spec("after", tmp_path, ReferenceAgentSpec("reference")))
        finally:
            await executor.close()
    s = score(crashed, expectation())
    assert s.outcome is Outcome.INFRASTRUCTURE and not s.counted
    assert s.classification is not None and s.classification.rule == "browser_crashed"
    assert executor.lanes == [] and after.infra is None
    assert score(after, expectation()).outcome is Outcome.DONE_RIGHT  # on a new Chromium


async def test_an_unreachable_shop_is_infrastructure(tmp_path: Path,
                                                     chrome: ChromeProcess) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: nothing listens there
    executor = LocalExecutor(1, ShopAccess(f"http://127.0.0.1:{port}", "x"), chromes=[chrome])
    await executor.start()
    try:
        result = await executor.submit(spec("noshop", tmp_path, ReferenceAgentSpec("reference")))
    finally:
        await executor.close()
    s = score(result, expectation())
    assert s.outcome is Outcome.INFRASTRUCTURE and not s.counted
    assert s.classification is not None
    assert (s.classification.category, s.classification.rule) == ("infrastructure",
                                                                   "shop_unreachable")
    assert chrome.proc.poll() is None  # a borrowed browser is never closed
