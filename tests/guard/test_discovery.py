"""Discovery endpoints: answered like Chrome's, pointing at the guard, never at Chrome."""

from __future__ import annotations

import aiohttp
import orjson
import pytest

from tests.conftest import GuardFactory
from tests.support.http import request
from tests.support.site import HitSite

pytestmark = pytest.mark.browser


async def get(url: str, method: str = "GET", headers: dict[str, str] | None = None,
              ) -> tuple[int, bytes]:
    return await request(method, url, headers)


async def test_every_endpoint_points_at_the_guard(chrome, guard: GuardFactory,
                                                  site: HitSite) -> None:
    g = await guard({})
    chrome_netloc = f"127.0.0.1:{chrome.port}"
    guard_netloc = f"127.0.0.1:{g.server.port}"
    bodies: list[bytes] = []

    for path in ("/json/version", "/json/version/", "/json", "/json/list", "/json/list/"):
        status, body = await get(g.url + path)
        assert status == 200, path
        bodies.append(body)
    version = orjson.loads(bodies[0])
    assert version["webSocketDebuggerUrl"].startswith(f"ws://{guard_netloc}/devtools/browser/")
    assert version["Browser"].startswith(("Chrome/", "HeadlessChrome/"))
    pages = [t for t in orjson.loads(bodies[2]) if t["type"] == "page"]
    assert pages and all(t["webSocketDebuggerUrl"].startswith(f"ws://{guard_netloc}/")
                         for t in pages)

    status, body = await get(f"{g.url}/json/new?{site.a}/page/blank", "PUT")
    assert status == 200
    bodies.append(body)
    new = orjson.loads(body)
    assert new["url"] == f"{site.a}/page/blank"
    assert new["webSocketDebuggerUrl"] == f"ws://{guard_netloc}/devtools/page/{new['id']}"
    assert await site.wait_for(lambda: site.gets("/page/blank"))

    status, body = await get(f"{g.url}/json/new", "GET")  # older clients
    assert status == 200
    bodies.append(body)
    other = orjson.loads(body)

    for path in (f"/json/activate/{new['id']}", f"/json/close/{new['id']}",
                 f"/json/close/{other['id']}"):
        status, body = await get(g.url + path)
        assert status == 200, (path, body)
        bodies.append(body)

    status, body = await get(g.url + "/json/protocol")
    assert status == 200 and any(d["domain"] == "Fetch" for d in orjson.loads(body)["domains"])

    for body in bodies:
        assert chrome_netloc.encode() not in body
        assert f":{chrome.port}".encode() not in body


async def test_host_header_must_be_ip_or_localhost(guard: GuardFactory) -> None:
    g = await guard({})
    status, body = await get(g.url + "/json/version", headers={"Host": "evil.example:9333"})
    assert status == 500 and b"not an IP address or localhost" in body
    status, _ = await get(g.url + "/json/version",
                          headers={"Host": f"localhost:{g.server.port}"})
    assert status == 200


async def test_web_pages_are_refused_unless_allowed(chrome, guard: GuardFactory,
                                                     site: HitSite) -> None:
    # Chrome itself refuses a websocket handshake with an Origin...
    async with aiohttp.ClientSession() as http:
        version = orjson.loads(await (await http.get(f"{chrome.http_url}/json/version")).read())
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await http.ws_connect(version["webSocketDebuggerUrl"],
                                  headers={"Origin": "https://evil.example"})

    g = await guard({})
    async with aiohttp.ClientSession() as http:
        version = orjson.loads(await (await http.get(f"{g.url}/json/version")).read())
        ws_url = version["webSocketDebuggerUrl"]
        # ...and the guard refuses a cross-site page, on websockets and on HTTP.
        with pytest.raises(aiohttp.WSServerHandshakeError) as info:
            await http.ws_connect(ws_url, headers={"Origin": "https://evil.example"})
        assert info.value.status == 403
        resp = await http.put(f"{g.url}/json/new?{site.a}/denied",
                              headers={"Sec-Fetch-Site": "cross-site"})
        assert resp.status == 403
        # A tool with no Origin is served.
        ws = await http.ws_connect(ws_url)
        await ws.send_str('{"id":1,"method":"Browser.getVersion"}')
        reply = orjson.loads((await ws.receive()).data)
        assert reply["id"] == 1 and "product" in reply["result"]
        await ws.close()

    allowed = await guard({}, allow_origins=("https://tools.example",))
    async with aiohttp.ClientSession() as http:
        version = orjson.loads(await (await http.get(f"{allowed.url}/json/version")).read())
        # The guard accepts the named origin and does not forward it: Chrome would refuse.
        ws = await http.ws_connect(version["webSocketDebuggerUrl"],
                                   headers={"Origin": "https://tools.example"})
        await ws.send_str('{"id":1,"method":"Browser.getVersion"}')
        assert orjson.loads((await ws.receive()).data)["id"] == 1
        await ws.close()
    assert site.gets("/denied") == []
