"""Shared fixtures: one real Chromium per test session, a two-origin test site per test,
and guards started in-process against that Chromium.

A test that needs Chromium carries ``@pytest.mark.browser`` so that ``pytest -m "not
browser"`` runs the pure suite in seconds. Two checks keep the mark honest: a test that
asks for the ``chrome`` fixture (directly or through another fixture) without the mark
fails before Chromium starts, and an unmarked test that starts one anyway (in-process or
through an ``ajantik`` command it runs) finds ``$AJANTIK_CHROME`` pointing at a stand-in
that refuses to run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import settings

from ajantik_cdp.browser.launch import ChromeProcess, start_chrome
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.faults import parse_fault
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions, GuardServer
from ajantik_cdp.record.reader import load_record
from tests.support.demo_run import DemoRun, filmed_demo_run
from tests.support.examples import register_profiles
from tests.support.site import HitSite

# Before any test module is imported: ``@examples(n)`` reads the loaded profile's count
# when its module is collected. ``--hypothesis-profile=ci`` (in .ci/run) loads another
# after this one.
register_profiles()
settings.load_profile("dev")

NOT_MARKED = "this test starts Chromium but is not marked @pytest.mark.browser"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if "chrome" in getattr(item, "fixturenames", ()) and \
            item.get_closest_marker("browser") is None:
        pytest.fail(f"{NOT_MARKED} (it uses the chrome fixture)", pytrace=False)


@pytest.fixture(scope="session")
def chromium_stand_in(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("unmarked") / "chromium"
    path.write_text(f"#!/bin/sh\necho '{NOT_MARKED}' >&2\nexit 97\n")
    path.chmod(0o755)
    return path


@pytest.fixture(autouse=True)
def _chromium_only_when_marked(request: pytest.FixtureRequest,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("browser") is None:
        monkeypatch.setenv("AJANTIK_CHROME",
                           str(request.getfixturevalue("chromium_stand_in")))


@pytest.fixture(autouse=True)
def _ajantik_logger_restored() -> Iterator[None]:
    """A command run in-process points the ``ajantik`` logger at its runner's stderr,
    which is closed once the command returns; left in place, later tests would log into
    a closed stream (and a broken handler prints the exception it was handed, raw)."""
    logger = logging.getLogger("ajantik")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    yield
    logger.handlers[:], logger.level, logger.propagate = saved


@pytest.fixture(scope="session")
def chrome() -> Iterator[ChromeProcess]:
    # --site-per-process: the 127.0.0.2 frame inside a 127.0.0.1 page gets its own process
    # and its own DevTools target (an out-of-process iframe).
    proc = start_chrome(extra=("--site-per-process",))
    yield proc
    proc.close()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def pw() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        yield playwright


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def filmed_demo(chrome: ChromeProcess, tmp_path_factory: pytest.TempPathFactory
                      ) -> DemoRun:
    """The session's one filmed demo (tests/support/demo_run.py)."""
    return await filmed_demo_run(chrome, tmp_path_factory.mktemp("demo"))


@pytest_asyncio.fixture(loop_scope="session")
async def site() -> AsyncIterator[HitSite]:
    s = HitSite()
    await s.start()
    yield s
    await s.stop()


@pytest.fixture
def guard_log() -> Iterator[list[str]]:
    """Messages the guard logs, captured on its own logger: a command run in-process by an
    earlier test may have stopped propagation to the root logger (and so to caplog)."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler = Collect(logging.DEBUG)
    logger = logging.getLogger("ajantik")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    yield messages
    logger.removeHandler(handler)
    logger.setLevel(level)


@dataclass
class RunningGuard:
    server: GuardServer
    record: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def lines(self) -> list[Any]:
        return list(load_record(self.record).lines)

    async def wait_for_line(self, predicate: Callable[[Any], bool],
                            timeout: float = 30.0) -> bool:
        """Record lines are written once a request's outcome is known, a moment after the
        page saw it: poll rather than race."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if any(predicate(line) for line in self.lines()):
                return True
            await asyncio.sleep(0.05)
        return any(predicate(line) for line in self.lines())


GuardFactory = Callable[..., Awaitable[RunningGuard]]


def origin_rule(origin: str) -> str:
    return f"^{re.escape(origin)}/"


@pytest_asyncio.fixture(loop_scope="session")
async def guard(chrome: ChromeProcess, tmp_path: Path) -> AsyncIterator[GuardFactory]:
    started: list[RunningGuard] = []
    stack = contextlib.AsyncExitStack()

    async def start(config: dict[str, Any] | None = None, *, fault: str | None = None,
                    fault_at: int = 1, upstream: str | None = None,
                    **options: Any) -> RunningGuard:
        record = tmp_path / f"record-{len(started)}.jsonl"
        opts = GuardOptions(
            upstream=upstream or chrome.http_url,
            config=parse_config(config or {}),
            port=0,
            record_path=record,
            fault=parse_fault(fault, fault_at) if fault else None,
            install_signal_handlers=False,
            **options,
        )
        handle = await stack.enter_async_context(running_guard(opts, "test finished"))
        running = RunningGuard(handle.server, record)
        started.append(running)
        return running

    yield start
    await stack.aclose()
