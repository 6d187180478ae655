"""Fixtures for the storefront's tests: one shop server and one Playwright connection to
the session's Chromium, shared by every test (runs are isolated by their tokens)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest_asyncio

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_shop import RunCoordinates, RunInfo, ShopServer


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shop() -> AsyncIterator[ShopServer]:
    server = ShopServer()
    await server.start()
    yield server
    await server.stop()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def cdp_browser(pw: Any, chrome: ChromeProcess) -> AsyncIterator[Any]:
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    yield browser
    await browser.close()


def new_run(shop: ShopServer, variant: str = "baseline", repetition: int = 0,
            suite_run: str = "tests") -> RunInfo:
    return shop.create_run(RunCoordinates(suite_run, variant, repetition))


async def post(http: aiohttp.ClientSession, info: RunInfo, action: str,
               body: object) -> tuple[int, Any]:
    """A write as the shop's page script sends it."""
    async with http.post(f"{info.start_url}api/{action}", json=body) as response:
        return response.status, await response.json(content_type=None)


async def get_page(http: aiohttp.ClientSession, info: RunInfo, path: str = "",
                   cookies: dict[str, str] | None = None) -> str:
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in (cookies or {}).items())}
    async with http.get(f"{info.start_url}{path}", headers=headers if cookies else None) \
            as response:
        assert response.status == 200, (path, response.status)
        return await response.text()


async def eventually(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll the server's own state until ``predicate`` holds (no timing is asserted)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True
