from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest_asyncio

from ajantik_cdp.demo.portal_system import guard_config_data
from ajantik_portal_pilot.portal import Portal
from ajantik_portal_pilot.sign_in import sign_in
from tests.conftest import GuardFactory, RunningGuard


@pytest_asyncio.fixture(loop_scope="session")
async def portal() -> AsyncIterator[Portal]:
    p = Portal()
    await p.start()
    yield p
    await p.stop()


@dataclass
class Session:
    portal: Portal
    guard: RunningGuard
    page: Any


@pytest_asyncio.fixture(loop_scope="session")
async def session(pw: Any, guard: GuardFactory, portal: Portal) -> AsyncIterator[Session]:
    """A signed-in browser context behind a guard running the example's guard.json."""
    g = await guard(guard_config_data(portal.origin))
    browser = await pw.chromium.connect_over_cdp(g.url)
    context = await browser.new_context()
    page = await context.new_page()
    await sign_in(page, portal.origin)
    yield Session(portal, g, page)
    # A test that shut the guard down to read the finished record has already closed
    # this connection.
    with contextlib.suppress(Exception):
        await context.close()
    with contextlib.suppress(Exception):
        await browser.close()
