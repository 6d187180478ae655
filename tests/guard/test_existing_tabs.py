"""Tabs that were open before the guard started are guarded too, whoever drives them."""

from __future__ import annotations

import asyncio

import orjson
import pytest
import websockets

from tests.conftest import GuardFactory, origin_rule
from tests.guard.attacks import install
from tests.support.http import get_json, request
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

FETCH = "fetch('/hit/denied-existing', {method: 'POST', body: 'x'}).then(r => r.status, " \
        "e => 'error')"


async def evaluate_directly(page_ws: str, expression: str) -> object:
    """Another program on Chrome's own port (or a person's console) runs a script."""
    async with websockets.connect(page_ws, max_size=None) as ws:
        await ws.send(orjson.dumps({"id": 1, "method": "Runtime.evaluate", "params": {
            "expression": expression, "awaitPromise": True}}).decode())
        while True:
            msg = orjson.loads(await ws.recv())
            if msg.get("id") == 1:
                return msg["result"]["result"].get("value")


async def committed(page_ws: str, url: str, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while await evaluate_directly(page_ws, "location.href") != url:
        assert asyncio.get_running_loop().time() < deadline, f"the tab never showed {url}"
        await asyncio.sleep(0.05)


async def test_a_tab_opened_before_the_guard_is_guarded(chrome, pw, guard: GuardFactory,
                                                        site: HitSite) -> None:
    install(site)
    tab = await get_json(f"{chrome.http_url}/json/new?{site.a}/page/blank", "PUT")
    try:
        await site.wait_for(lambda: site.gets("/page/blank"))
        # The site saw the request before the tab committed the page: a fetch from the
        # tab's first about:blank would fail on its relative URL.
        await committed(tab["webSocketDebuggerUrl"], site.a + "/page/blank")
        assert await evaluate_directly(tab["webSocketDebuggerUrl"], FETCH) == 200
        assert len(site.writes("denied-existing")) == 1

        g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]})
        # Driven from outside the guard: still stopped, because the guard is in the tab.
        assert await evaluate_directly(tab["webSocketDebuggerUrl"], FETCH) == "error"
        # Driven through the guard by a skill that finds the existing tab.
        browser = await pw.chromium.connect_over_cdp(g.url)
        page = next(p for c in browser.contexts for p in c.pages if p.url == tab["url"])
        assert await page.evaluate(FETCH) == "error"
        assert await page.evaluate(FETCH.replace("denied-existing", "allowed-existing")) == 200
        await browser.close()
        await site.settle(0.3)
        assert len(site.writes("denied-existing")) == 1
        assert len(site.writes("allowed-existing")) == 1
    finally:
        await request("GET", f"{chrome.http_url}/json/close/{tab['id']}")
