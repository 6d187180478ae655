"""The client gate closes a real race: a client releasing a new target before the guard
has installed itself there. The guard's install is slowed down on purpose to widen it."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import orjson
import pytest
import websockets

from ajantik_cdp.core.client_gate import ClientGate
from ajantik_cdp.core.targets import TargetState
from ajantik_cdp.proxy.guardian import Guardian, Target
from tests.conftest import GuardFactory, origin_rule
from tests.guard.attacks import install
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

SLOW = 1.5


def slow_install(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Guardian._install

    async def delayed(self: Guardian, target: Target, waiting: bool) -> None:
        if target.target_type == "page" and waiting:
            await asyncio.sleep(SLOW)
        await original(self, target, waiting)

    monkeypatch.setattr(Guardian, "_install", delayed)


async def open_popup(pw: Any, url: str, site: HitSite) -> None:
    browser = await pw.chromium.connect_over_cdp(url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.a + "/page/popup")
    await page.evaluate(f"window.open('{site.a}/denied-race')")
    await site.settle(SLOW + 1.0)
    await ctx.close()
    await browser.close()


async def test_without_the_gate_a_client_releases_a_popup_unguarded(
        pw, guard: GuardFactory, site: HitSite, monkeypatch: pytest.MonkeyPatch) -> None:
    install(site)
    slow_install(monkeypatch)
    route = ClientGate.route
    monkeypatch.setattr(ClientGate, "route", lambda self, msg, status: route(
        self, msg, lambda _tid: TargetState.GUARDED))
    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]})
    await open_popup(pw, g.url, site)
    assert site.gets("denied-race"), "the race did not happen: this test proves nothing"


async def test_the_gate_holds_the_release_until_the_guard_is_in_place(
        pw, guard: GuardFactory, site: HitSite, monkeypatch: pytest.MonkeyPatch) -> None:
    install(site)
    slow_install(monkeypatch)
    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]})
    await open_popup(pw, g.url, site)
    assert site.gets("denied-race") == []


async def test_a_target_the_guard_cannot_guard_is_never_released(
        chrome: Any, guard: GuardFactory, site: HitSite, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(self: Guardian, target: Target, waiting: bool) -> None:
        self._settle(target, TargetState.FAILED)  # as if Fetch.enable had failed

    g = await guard({"deny": ["denied"]})
    monkeypatch.setattr(Guardian, "_install", broken)
    async with aiohttp.ClientSession() as http:
        version = orjson.loads(await (await http.get(g.url + "/json/version")).read())
    async with websockets.connect(version["webSocketDebuggerUrl"], max_size=None) as ws:
        await ws.send(orjson.dumps({"id": 1, "method": "Target.setAutoAttach", "params": {
            "autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}}).decode())
        await ws.send(orjson.dumps({"id": 2, "method": "Target.createTarget", "params": {
            "url": site.a + "/page/never"}}).decode())
        session = target = None
        while session is None or target is None:
            msg = orjson.loads(await ws.recv())
            if msg.get("method") == "Target.attachedToTarget" and \
                    msg["params"]["waitingForDebugger"]:
                session = msg["params"]["sessionId"]
            if msg.get("id") == 2:
                target = msg["result"]["targetId"]
        await ws.send(orjson.dumps({"id": 3, "method": "Runtime.runIfWaitingForDebugger",
                                    "sessionId": session}).decode())
        reply = None
        while reply is None:
            msg = orjson.loads(await ws.recv())
            if msg.get("id") == 3:
                reply = msg
        assert "could not be guarded" in reply["error"]["message"]
        await site.settle(0.5)
        assert site.gets("/page/never") == []
    async with aiohttp.ClientSession() as http:  # the paused tab is closed behind the guard
        await http.get(f"{chrome.http_url}/json/close/{target}")
