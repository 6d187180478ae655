"""A portal behind HTTP Basic authentication: the ``Authorization`` header Chrome adds from
its own credential cache is the session.

The person logs in as a browser does it (the page's ``XMLHttpRequest`` with a user and
password answers the portal's challenge; Chrome then keeps the credentials for the realm
and sends them with every later request). Its hit log records, for every request, whether
it carried the password: that is the truth of "a replay landed", never what a client says.
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass, field

from aiohttp import web

from ajantik_cdp.local_http import start_app

USER = "alice"

LOGIN_PAGE = """<!doctype html><title>Portal</title>
<script>
function logIn(user, password) {
  const x = new XMLHttpRequest();
  x.open('GET', '/app/login', true, user, password);
  x.onload = () => { if (x.status === 200) location.href = '/app/home'; };
  x.send();
}
</script>"""

HOME_PAGE = """<!doctype html><title>Home</title><h1>Logged in</h1>
<button id=draft onclick="fetch('/app/draft', {method: 'POST', body: 'x'})
  .then(r => document.title = 'draft ' + r.status)">Save draft</button>"""


@dataclass(frozen=True)
class BasicHit:
    method: str
    path: str
    authenticated: bool


@dataclass
class BasicPortal:
    # A fresh password per portal: a test's run can never reuse an earlier one's.
    password: str = field(default_factory=lambda: secrets.token_hex(12))
    port: int = 0
    hits: list[BasicHit] = field(default_factory=list)
    runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def header(self) -> str:
        """The header value a replay needs (and that must never reach a client)."""
        return "Basic " + base64.b64encode(f"{USER}:{self.password}".encode()).decode()

    @property
    def token(self) -> str:
        """The base64 text alone, the part a frame must not carry in any case."""
        return self.header.split(" ", 1)[1]

    def writes(self, path: str, *, authenticated: bool | None = None) -> list[BasicHit]:
        return [h for h in self.hits if h.method == "POST" and h.path == path
                and (authenticated is None or h.authenticated == authenticated)]

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._login_page)
        app.router.add_route("*", "/app/{tail:.*}", self._app)
        self.runner, self.port = await start_app(app)

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    async def _login_page(self, request: web.Request) -> web.Response:
        return web.Response(text=LOGIN_PAGE, content_type="text/html")

    async def _app(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        ok = request.headers.get("Authorization") == self.header
        self.hits.append(BasicHit(request.method, request.path, ok))
        if not ok:
            return web.Response(status=401, text="log in",
                                headers={"WWW-Authenticate": 'Basic realm="portal"'})
        if request.path == "/app/ws":
            ws = web.WebSocketResponse()
            await ws.prepare(request)
            await ws.send_str("hello")
            await ws.close()
            return web.Response()  # aiohttp has answered already; never sent
        if request.path == "/app/home":
            return web.Response(text=HOME_PAGE, content_type="text/html")
        return web.json_response({"ok": True})
