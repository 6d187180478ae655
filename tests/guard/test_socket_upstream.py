"""``--upstream ws://HOST:PORT/devtools/browser/ID`` when Chrome serves no ``/json/*``.

A Chrome attached through chrome://inspect (Chrome 144+) is a browser websocket and
nothing else. The stand-in here is a real server that proxies only the browser websocket
of a real Chromium: every other path answers 404, as such a Chrome does.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import aiohttp
import orjson
import pytest
import pytest_asyncio
from aiohttp import web

from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.local_http import start_app
from ajantik_cdp.proxy.server import GuardOptions, GuardServer, GuardStartError
from tests.conftest import GuardFactory, origin_rule
from tests.support.http import browser_ws, request
from tests.support.site import HitSite

pytestmark = pytest.mark.browser


async def _pipe(src: object, dst: object) -> None:
    async for frame in src:  # type: ignore[attr-defined]
        if frame.type is aiohttp.WSMsgType.TEXT:
            await dst.send_str(frame.data)  # type: ignore[attr-defined]
        else:
            break


@pytest_asyncio.fixture(loop_scope="session")
async def socket_only(chrome) -> AsyncIterator[str]:
    """ws://127.0.0.1:PORT/devtools/browser/ID of a server with no /json endpoints."""
    real = await browser_ws(chrome.http_url)
    path = urlsplit(real).path
    http = aiohttp.ClientSession()

    async def browser(request: web.Request) -> web.StreamResponse:
        client = web.WebSocketResponse(max_msg_size=0, compress=False)
        await client.prepare(request)
        async with http.ws_connect(real, max_msg_size=0, compress=0) as up:
            tasks = [asyncio.create_task(_pipe(client, up)),
                     asyncio.create_task(_pipe(up, client))]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for t in tasks:
                t.cancel()
        await client.close()
        return client

    app = web.Application()
    app.router.add_get(path, browser)
    runner, port = await start_app(app)
    yield f"ws://127.0.0.1:{port}{path}"
    await runner.cleanup()
    await http.close()


async def test_socket_only_chrome_has_no_discovery(socket_only: str) -> None:
    base = "http://" + urlsplit(socket_only).netloc
    for path in ("/json/version", "/json/list", "/json/protocol"):
        assert (await request("GET", base + path))[0] == 404


async def test_guard_serves_discovery_from_target_commands(
        pw, socket_only: str, guard: GuardFactory, site: HitSite) -> None:
    # socket_only comes before guard: the guard (set up later) is stopped first, so the
    # stand-in never waits out its shutdown timeout on the guard's open websockets.
    # Without the guard a client on the socket lands a denied write.
    browser = await pw.chromium.connect_over_cdp(socket_only)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.page("blank", "<p>blank</p>"))
    assert await page.evaluate(
        "fetch('/hit/denied-socket', {method: 'POST', body: 'x'}).then(r => r.status)") == 200
    await browser.close()
    assert len(site.writes("denied-socket")) == 1

    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]},
                    upstream=socket_only)
    guard_netloc = f"127.0.0.1:{g.server.port}"
    status, body = await request("GET", g.url + "/json/version")
    version = orjson.loads(body)
    assert status == 200
    assert version["Browser"].startswith(("Chrome/", "HeadlessChrome/"))
    assert version["webSocketDebuggerUrl"] == \
        f"ws://{guard_netloc}{urlsplit(socket_only).path}"
    assert g.lines()[0].browser == version["Browser"]  # the record's start line

    status, body = await request("PUT", f"{g.url}/json/new?{site.a}/page/blank")
    assert status == 200
    made = orjson.loads(body)
    assert made["webSocketDebuggerUrl"] == f"ws://{guard_netloc}/devtools/page/{made['id']}"
    listed = orjson.loads((await request("GET", g.url + "/json/list"))[1])
    assert made["id"] in {t["id"] for t in listed}
    assert all(t["type"] not in ("browser", "tab") for t in listed)
    assert await request("GET", f"{g.url}/json/activate/{made['id']}") == \
        (200, b"Target activated")
    assert await request("GET", f"{g.url}/json/close/{made['id']}") == \
        (200, b"Target is closing")
    assert (await request("GET", f"{g.url}/json/close/NOPE"))[0] == 404
    assert (await request("GET", g.url + "/json/protocol"))[0] == 404

    # A client finds the browser through the guard's own /json/version and is guarded.
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.page("blank", "<p>blank</p>"))
    post = "p => fetch(p, {method: 'POST', body: 'x'}).then(r => r.status, () => 'error')"
    assert await page.evaluate(post, "/hit/denied-socket") == "error"
    assert await page.evaluate(post, "/hit/allowed-socket") == 200
    await browser.close()
    await site.settle(0.3)
    assert len(site.writes("denied-socket")) == 1
    assert len(site.writes("allowed-socket")) == 1


async def test_a_socket_that_is_not_chrome_is_one_line(site: HitSite) -> None:
    bad = f"ws://127.0.0.1:{site.port}/devtools/browser/none"
    # The test site answers WebSocket handshakes on some paths (test_connections.py), so
    # the socket may open and then speak something that is not CDP.
    with pytest.raises(GuardStartError, match=r"refused the websocket|is it Chrome"):
        await GuardServer.start(GuardOptions(upstream=bad, config=parse_config({}), port=0,
                                             record_path=None,
                                             install_signal_handlers=False))


async def test_the_http_address_of_a_socket_only_chrome_says_what_to_pass(
        socket_only: str) -> None:
    base = "http://" + urlsplit(socket_only).netloc
    with pytest.raises(GuardStartError, match=r"answered 404.*--upstream ws://HOST:PORT/"):
        await GuardServer.start(GuardOptions(upstream=base, config=parse_config({}), port=0,
                                             record_path=None,
                                             install_signal_handlers=False))
