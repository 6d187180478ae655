"""The client gate closes a real race: a client releasing a new target before the guard
has installed itself there. The guard's install is slowed down on purpose to widen it.

Since the browser-wide net, a target released early still has its requests decided (the
net pauses them whatever is attached); what the early release would cost is the guard's
page scripts: a press on a denied control in the target's first document."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import aiohttp
import orjson
import pytest
import websockets

from ajantik_cdp.core.guard.client_gate import ClientGate
from ajantik_cdp.core.guard.targets import Target, TargetState
from ajantik_cdp.core.record.record_schema import BlockLine
from ajantik_cdp.proxy.guardian import Guardian
from tests.conftest import GuardFactory
from tests.guard.attacks import install
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

SLOW = 1.5


def slow_install(monkeypatch: pytest.MonkeyPatch, seconds: float = SLOW) -> None:
    original = Guardian._install

    async def delayed(self: Guardian, target: Target, waiting: bool,
                      context_id: str | None = None) -> None:
        if target.target_type == "page" and waiting:
            await asyncio.sleep(seconds)
        await original(self, target, waiting, context_id)

    monkeypatch.setattr(Guardian, "_install", delayed)


# A popup whose own script presses its denied button at once: only the guard's page
# script, installed before the popup runs, swallows that press. The popup is opened on the
# other origin (its own renderer process), and its button posts back to the first. Right
# after the press it reads /hit/after-press: the sign that the press has happened (its
# post, if any, was sent before).
PRESSING_PAGE = """<button id="go" onclick="fetch('{A}/hit/pressed-race',
    {method: 'POST', body: 'p'})">Proceed to submission</button>
    <script>document.getElementById('go').click(); fetch('{A}/hit/after-press')</script>"""
CONFIG = {"deny": ["denied"], "deny_clicks": ["proceed to submission"]}


async def open_popup(pw: Any, url: str, site: HitSite, target: str,
                     played_out: Callable[[], object], must_not_come: bool) -> None:
    """``played_out``: what shows the popup has done what it does (its hit, or the
    guard's line), waited for (past the slowed install) before the tab is let go; then,
    when the test checks that something did not arrive, one short wait for it."""
    browser = await pw.chromium.connect_over_cdp(url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.a + "/page/popup")
    await page.evaluate(f"window.open('{target}')")
    await site.wait_for(played_out, timeout=20.0)
    if must_not_come:
        await site.settle(0.5)
    await ctx.close()
    await browser.close()


def without_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    route = ClientGate.route
    monkeypatch.setattr(ClientGate, "route", lambda self, msg, status: route(
        self, msg, lambda _tid: TargetState.GUARDED))


async def test_without_the_gate_a_client_releases_a_popup_before_its_page_scripts(
        pw, guard: GuardFactory, site: HitSite, monkeypatch: pytest.MonkeyPatch) -> None:
    install(site)
    site.pages["pressing"] = PRESSING_PAGE
    slow_install(monkeypatch, 3.0)
    without_the_gate(monkeypatch)
    g = await guard(CONFIG)
    await open_popup(pw, g.url, site, site.b + "/page/pressing",
                     lambda: site.writes("pressed-race"), must_not_come=False)
    assert site.writes("pressed-race"), "the race did not happen: this test proves nothing"


async def test_the_gate_holds_the_release_until_the_guard_is_in_place(
        pw, guard: GuardFactory, site: HitSite, monkeypatch: pytest.MonkeyPatch) -> None:
    install(site)
    site.pages["pressing"] = PRESSING_PAGE
    slow_install(monkeypatch, 3.0)
    g = await guard(CONFIG)
    await open_popup(pw, g.url, site, site.b + "/page/pressing",
                     lambda: site.gets("/hit/after-press"), must_not_come=True)
    assert site.gets("/page/pressing"), "the popup never loaded"
    assert site.writes("pressed-race") == []


async def test_without_the_gate_the_net_still_stops_a_denied_popup_load(
        pw, guard: GuardFactory, site: HitSite, monkeypatch: pytest.MonkeyPatch) -> None:
    # The race the gate was first built for: released before the guard is in place, the
    # popup's denied page load is still paused and failed by the browser-wide net.
    install(site)
    slow_install(monkeypatch)
    without_the_gate(monkeypatch)
    g = await guard(CONFIG)
    await open_popup(pw, g.url, site, site.a + "/denied-race", lambda: any(
        isinstance(b, BlockLine) and "denied-race" in (b.url or "") for b in g.lines()),
        must_not_come=True)
    assert site.gets("denied-race") == []


async def test_a_target_the_guard_cannot_guard_is_never_released(
        chrome: Any, guard: GuardFactory, site: HitSite, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(self: Guardian, target: Target, waiting: bool,
                     context_id: str | None = None) -> None:
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


HELD = 4.0  # how long the guard's install of the held tab is slowed


async def test_a_target_the_gate_holds_never_holds_another_targets_commands(
        guard: GuardFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tab the guard has not finished installing itself on (slowed here; in the trial of
    issue 28, a service worker the guard had lost track of) holds its own commands, and
    only those: a command for a guarded tab sent right behind one for it is answered at
    once, and the held one is sent, in order, once its tab is guarded."""
    armed: list[bool] = []
    original = Guardian._install

    async def delayed(self: Guardian, target: Target, waiting: bool,
                      context_id: str | None = None) -> None:
        if target.target_type == "page" and armed:
            armed.clear()
            await asyncio.sleep(HELD)
        await original(self, target, waiting, context_id)

    monkeypatch.setattr(Guardian, "_install", delayed)
    g = await guard({"deny": ["denied"]})
    async with aiohttp.ClientSession() as http:
        version = orjson.loads(await (await http.get(g.url + "/json/version")).read())
    async with websockets.connect(version["webSocketDebuggerUrl"], max_size=None) as ws:
        answers: dict[int, tuple[float, Any]] = {}
        loop = asyncio.get_running_loop()

        async def send(msg_id: int, method: str, params: dict[str, Any] | None = None,
                       session: str | None = None) -> None:
            msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
            if session is not None:
                msg["sessionId"] = session
            await ws.send(orjson.dumps(msg).decode())

        async def answer(msg_id: int) -> Any:
            while msg_id not in answers:
                msg = orjson.loads(await asyncio.wait_for(ws.recv(), 20.0))
                if "id" in msg:
                    answers[msg["id"]] = (loop.time(), msg)
            return answers[msg_id][1]

        async def tab(first: int) -> tuple[str, str]:
            await send(first, "Target.createTarget", {"url": "about:blank"})
            target = (await answer(first))["result"]["targetId"]
            await send(first + 1, "Target.attachToTarget", {"targetId": target,
                                                             "flatten": True})
            return target, (await answer(first + 1))["result"]["sessionId"]

        evaluate = {"expression": "1 + 1", "returnByValue": True}
        guarded, guarded_session = await tab(1)
        await send(3, "Runtime.evaluate", evaluate, guarded_session)
        assert (await answer(3))["result"]["result"]["value"] == 2
        armed.append(True)
        held, held_session = await tab(4)
        sent = loop.time()
        await send(6, "Runtime.evaluate", evaluate, held_session)
        await send(7, "Runtime.evaluate", evaluate, guarded_session)
        assert (await answer(7))["result"]["result"]["value"] == 2
        assert answers[7][0] - sent < 1.5, "the guarded tab's command waited behind the held one"
        assert (await answer(6))["result"]["result"]["value"] == 2  # sent once guarded
        assert answers[6][0] > answers[7][0]
        for n, target in ((8, guarded), (9, held)):
            await send(n, "Target.closeTarget", {"targetId": target})
            await answer(n)
