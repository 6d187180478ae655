"""The test site: one aiohttp app served on two loopback origins (127.0.0.1 and 127.0.0.2,
same port), so a frame from one inside a page from the other is out-of-process.

Its hit log is the truth of "did the write happen": tests never trust the client's view
or the guard's own log for that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

from aiohttp import web

from ajantik_cdp.local_http import start_app
from tests.support.waiting import eventually

CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE",
    "Access-Control-Allow-Headers": "Content-Type",
}


@dataclass(frozen=True)
class Hit:
    method: str
    host: str
    path: str
    body: bytes


@dataclass
class HitSite:
    port: int = 0
    hits: list[Hit] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)
    scripts: dict[str, str] = field(default_factory=dict)
    runner: web.AppRunner | None = None
    # WebSockets to a path with "-held-" stay open until the browser closes them: (path,
    # messages received) for each one closed.
    held_closed: list[tuple[str, int]] = field(default_factory=list)

    @property
    def a(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def b(self) -> str:
        return f"http://127.0.0.2:{self.port}"

    def writes(self, path_part: str = "") -> list[Hit]:
        """Non-preflight hits whose method writes, optionally filtered by path."""
        return [h for h in self.hits
                if h.method not in ("GET", "HEAD", "OPTIONS") and path_part in h.path]

    def gets(self, path_part: str) -> list[Hit]:
        return [h for h in self.hits if h.method == "GET" and path_part in h.path]

    def redirect(self, to: str, code: int = 302, origin: str | None = None) -> str:
        return f"{origin or self.a}/redirect?code={code}&to={quote(to, safe='')}"

    def page(self, name: str, html: str) -> str:
        self.pages[name] = html
        return f"{self.a}/page/{name}"

    async def wait_for(self, predicate: Callable[[], object], timeout: float = 10.0) -> bool:
        return await eventually(predicate, timeout)

    async def settle(self, seconds: float = 0.5) -> None:
        """Give a request that should NOT arrive the time it would have needed."""
        await asyncio.sleep(seconds)

    # -- server -------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/page/{name}", self._page)
        app.router.add_route("*", "/js/{name}", self._script)
        app.router.add_get("/redirect", self._redirect)
        app.router.add_route("POST", "/redirect", self._redirect)
        app.router.add_route("*", "/{tail:.*}", self._hit)
        self.runner, self.port = await start_app(app, more_hosts=("127.0.0.2",))

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    def _render(self, text: str) -> str:
        return text.replace("{A}", self.a).replace("{B}", self.b)

    async def _page(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        self.hits.append(Hit(request.method, request.host, request.path, await request.read()))
        html = self.pages.get(name)
        if html is None:
            return web.Response(status=404, text="no such page")
        return web.Response(text=self._render(html), content_type="text/html")

    async def _script(self, request: web.Request) -> web.Response:
        body = self.scripts.get(request.match_info["name"])
        if body is None:
            return web.Response(status=404)
        return web.Response(text=self._render(body), content_type="text/javascript",
                            headers={"Service-Worker-Allowed": "/"})

    async def _redirect(self, request: web.Request) -> web.Response:
        self.hits.append(Hit(request.method, request.host, request.path, await request.read()))
        code = int(request.query.get("code", "302"))
        return web.Response(status=code, headers={"Location": request.query["to"], **CORS})

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A handshake is a GET hit (logged above); the socket says hello and closes."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        if "-held-" in request.path:
            received = 0
            async for _msg in ws:
                received += 1
            self.held_closed.append((request.path, received))
            return ws
        await ws.send_str("hello")
        await ws.close()
        return ws

    async def _hit(self, request: web.Request) -> web.StreamResponse:
        if request.method == "OPTIONS":
            return web.Response(status=204, headers=CORS)
        self.hits.append(Hit(request.method, request.host, request.path, await request.read()))
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._websocket(request)
        if "text/event-stream" in request.headers.get("Accept", ""):
            return web.Response(text="retry: 60000\ndata: hello\n\n",
                                content_type="text/event-stream", headers=CORS)
        if request.path.startswith("/denied") and request.method == "GET":
            return web.Response(text="<h1>denied page loaded</h1>", content_type="text/html")
        return web.json_response({"ok": True, "path": request.path}, headers=CORS)
