"""Pass-through: what a client sends and gets back through the guard is what it would
get from Chrome: text frames, in order, uncompressed, at browser and page level."""

from __future__ import annotations

import asyncio
import base64

import orjson
import pytest
import websockets
from aiohttp import web

from ajantik_cdp.local_http import start_app
from tests.conftest import GuardFactory
from tests.support.http import browser_ws, get_json, request
from tests.support.site import HitSite

pytestmark = pytest.mark.browser


async def test_order_and_text_frames_on_a_page_session(guard: GuardFactory,
                                                       site: HitSite) -> None:
    g = await guard({})
    async with websockets.connect(await browser_ws(g.url), max_size=None,
                                  compression="deflate") as ws:
        # The guard does not negotiate compression even when the client offers it.
        assert "permessage-deflate" not in (
            ws.response.headers.get("Sec-WebSocket-Extensions") or "")
        await ws.send('{"id":1,"method":"Target.createTarget","params":{"url":"about:blank"}}')
        target = orjson.loads(await ws.recv())["result"]["targetId"]
        await ws.send(orjson.dumps({"id": 2, "method": "Target.attachToTarget",
                                    "params": {"targetId": target, "flatten": True}}).decode())
        session = None
        while session is None:
            msg = orjson.loads(await ws.recv())
            if msg.get("id") == 2:
                session = msg["result"]["sessionId"]
        for i in range(100, 300):
            await ws.send(orjson.dumps({"id": i, "method": "Runtime.evaluate", "sessionId":
                                        session, "params": {"expression": f"{i}*2"}}).decode())
        seen = []
        while len(seen) < 200:
            frame = await ws.recv()
            assert isinstance(frame, str)  # text, never binary
            msg = orjson.loads(frame)
            if msg.get("id", 0) >= 100:
                assert msg["result"]["result"]["value"] == msg["id"] * 2
                seen.append(msg["id"])
        assert seen == list(range(100, 300))
        await ws.send(orjson.dumps({"id": 3, "method": "Target.closeTarget",
                                    "params": {"targetId": target}}).decode())


async def test_binary_frame_from_a_client_is_carried_as_text(chrome, guard: GuardFactory,
                                                              ) -> None:
    # Chrome drops a connection that sends a binary frame...
    async with websockets.connect(await browser_ws(chrome.http_url), max_size=None) as ws:
        await ws.send(b'{"id":1,"method":"Browser.getVersion"}')
        try:
            reply = await ws.recv()
        except websockets.ConnectionClosed:
            reply = None
        assert reply is None
    # ...the guard sends the same JSON to Chrome as text.
    g = await guard({})
    async with websockets.connect(await browser_ws(g.url), max_size=None) as ws:
        await ws.send(b'{"id":1,"method":"Browser.getVersion"}')
        assert orjson.loads(await ws.recv())["id"] == 1


async def test_page_level_websocket_and_large_messages(pw, guard: GuardFactory,
                                                       site: HitSite) -> None:
    g = await guard({})
    site.pages["big"] = "<body style='background:linear-gradient(red,blue)'>" + "x" * 20000
    target = await get_json(f"{g.url}/json/new?{site.a}/page/big", "PUT")
    async with websockets.connect(target["webSocketDebuggerUrl"], max_size=None) as ws:
        for i in range(100):  # /json/new answers once the load has started, not finished
            await ws.send(orjson.dumps({"id": 1000 + i, "method": "Runtime.evaluate", "params": {
                "expression": "document.readyState"}}).decode())
            state = orjson.loads(await ws.recv())
            if state.get("result", {}).get("result", {}).get("value") == "complete":
                break
            await asyncio.sleep(0.05)
        await ws.send('{"id":1,"method":"Page.captureScreenshot","params":{"format":"png"}}')
        shot = orjson.loads(await ws.recv())
        png = base64.b64decode(shot["result"]["data"])
        assert png.startswith(b"\x89PNG") and len(png) > 1000
        await ws.send('{"id":2,"method":"Runtime.evaluate","params":'
                      '{"expression":"document.body.textContent.length"}}')
        assert orjson.loads(await ws.recv())["result"]["result"]["value"] == 20000
    await request("GET", f"{g.url}/json/close/{target['id']}")


async def test_http_auth_still_works_through_the_guard(pw, guard: GuardFactory) -> None:
    async def protected(request: web.Request) -> web.Response:
        expected = "Basic " + base64.b64encode(b"ada:lovelace").decode()
        if request.headers.get("Authorization") != expected:
            return web.Response(status=401, headers={"WWW-Authenticate": 'Basic realm="x"'})
        return web.Response(text="<h1>inside</h1>", content_type="text/html")

    app = web.Application()
    app.router.add_get("/", protected)
    runner, port = await start_app(app)
    try:
        g = await guard({"deny": ["denied"]})
        browser = await pw.chromium.connect_over_cdp(g.url)
        ctx = await browser.new_context(http_credentials={"username": "ada",
                                                          "password": "lovelace"})
        page = await ctx.new_page()
        await page.goto(f"http://127.0.0.1:{port}/")
        assert await page.text_content("h1") == "inside"
        await ctx.close()
        await browser.close()
    finally:
        await runner.cleanup()
