"""Issue 27, class 5: the session in other headers than cookies.

With an HTTP Basic portal the session is the ``Authorization`` header Chrome adds from its
credential cache. On Chrome's own port a bare client watching the network reads it (in
``Network.requestWillBeSentExtraInfo`` and the other events that carry request headers)
and replays it from its own process: the portal's hit log shows the replay landing with
the person's password. Through the guard no frame the client receives carries it, the
replay is refused, and the person's own login in the browser still works.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio

from tests.conftest import GuardFactory
from tests.support.basic_portal import BasicPortal
from tests.support.direct_cdp import direct

pytestmark = pytest.mark.browser

DENY = {"deny": ["submission"]}


@pytest_asyncio.fixture(loop_scope="session")
async def portal() -> AsyncIterator[BasicPortal]:
    p = BasicPortal()
    await p.start()
    yield p
    await p.stop()


async def _watch_a_login(cdp_url: str, portal: BasicPortal, pw: Any) -> list[str]:
    """The person logs in (the page answers the challenge with the password) and saves a
    draft, while a bare client watches every event that carries request headers. Returns
    every frame the client received."""
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(portal.url + "/")
    seen: list[str] = []
    async with direct(cdp_url) as cdp:
        def on_event(msg: dict[str, Any]) -> None:
            seen.append(orjson.dumps(msg).decode())
            if msg.get("method") == "Fetch.requestPaused":
                cdp.post("Fetch.continueRequest", {"requestId": msg["params"]["requestId"]},
                         msg.get("sessionId"))

        cdp.on_event = on_event
        targets = (await cdp.send("Target.getTargets"))["targetInfos"]
        target = next(t for t in targets if t["type"] == "page"
                      and t["url"].startswith(portal.url))
        sid = (await cdp.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                        "flatten": True}))["sessionId"]
        await cdp.send("Network.enable", {}, sid)
        await cdp.send("Fetch.enable", {"patterns": [
            {"urlPattern": "*", "requestStage": "Request"},
            {"urlPattern": "*", "requestStage": "Response"}]}, sid)
        await page.evaluate(f"logIn('alice', {portal.password!r})")
        await page.wait_for_url("**/app/home")
        await page.click("#draft")
        await page.wait_for_function("document.title.startsWith('draft ')")
        assert await page.title() == "draft 200"  # the browser's own login works
        # A WebSocket to the portal: Chrome sends the cached credentials in its handshake.
        assert await page.evaluate("""new Promise(r => { const w = new WebSocket(
            location.origin.replace('http', 'ws') + '/app/ws');
            w.onmessage = e => r(e.data); w.onerror = () => r('error'); })""") == "hello"
        await cdp.send("Fetch.disable", {}, sid)
    await browser.close()
    return seen


async def _replay(portal: BasicPortal, frames: list[str]) -> int | None:
    """What a skill would do: take an Authorization header from what it was shown and send
    a write from its own process. The portal's answer, or None if none was shown."""
    for frame in frames:
        for line in frame.replace("\\r\\n", "\n").replace('"', "\n").split("\n"):
            if line.strip().lower().startswith("basic "):
                async with aiohttp.ClientSession() as http, http.post(
                        portal.url + "/app/submission", data="x",
                        headers={"Authorization": line.strip()}) as resp:
                    return resp.status
    return None


def _carriers(frames: list[str], token: str) -> set[str]:
    return {str(orjson.loads(f).get("method")) for f in frames if token in f}


async def test_the_basic_auth_header_is_read_on_chromes_port_and_never_through_the_guard(
        pw: Any, chrome: Any, guard: GuardFactory, portal: BasicPortal) -> None:
    seen = await _watch_a_login(chrome.http_url, portal, pw)
    carriers = _carriers(seen, portal.token)
    assert "Network.requestWillBeSentExtraInfo" in carriers, carriers
    assert "Network.webSocketWillSendHandshakeRequest" in carriers, carriers
    assert await _replay(portal, seen) == 200
    assert len(portal.writes("/app/submission", authenticated=True)) == 1

    g = await guard(DENY)
    seen = await _watch_a_login(g.url, portal, pw)
    assert _carriers(seen, portal.token) == set()
    assert not any("authorization" in f.lower() for f in seen)
    assert await _replay(portal, seen) is None
    assert len(portal.writes("/app/submission", authenticated=True)) == 1  # the unguarded
    # The events still reach the client, only without the header; the draft landed.
    assert any("Network.requestWillBeSentExtraInfo" in f for f in seen)
    assert len(portal.writes("/app/draft", authenticated=True)) == 2
    print(f"Authorization: in {sorted(carriers)} on Chrome's port, in no frame through "
          "the guard; replay landed 1/1 without, 0/1 with")
    await asyncio.sleep(0)
