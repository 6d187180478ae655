"""A portal with a login: the session cookie it sets is what a write needs to be accepted.

Its hit log records, for every write, whether it carried a valid session: that is the
truth of "the write landed" in the session tests, never what a client reports.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from aiohttp import web

from ajantik_cdp.local_http import start_app

LOGIN_PAGE = """<!doctype html><title>Portal</title>
<form method=post action=/login><input name=user value=alice>
<button id=login>Log in</button></form>"""

HOME_PAGE = """<!doctype html><title>Home</title><h1>Logged in</h1>
<button id=draft onclick="fetch('/draft', {method: 'POST', body: 'x'})
  .then(r => document.title = 'draft ' + r.status)">Save draft</button>"""


@dataclass(frozen=True)
class PortalHit:
    method: str
    path: str
    authenticated: bool
    status: int


@dataclass
class SessionPortal:
    port: int = 0
    hits: list[PortalHit] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)
    runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def writes(self, path: str, *, authenticated: bool | None = None) -> list[PortalHit]:
        return [h for h in self.hits if h.method == "POST" and h.path == path
                and (authenticated is None or h.authenticated == authenticated)]

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._login_page)
        app.router.add_post("/login", self._login)
        app.router.add_get("/home", self._home)
        app.router.add_route("*", "/{tail:.*}", self._write)
        self.runner, self.port = await start_app(app)

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    def _authenticated(self, request: web.Request) -> bool:
        return request.cookies.get("portal_session") in self.sessions

    async def _login_page(self, request: web.Request) -> web.Response:
        return web.Response(text=LOGIN_PAGE, content_type="text/html")

    async def _login(self, request: web.Request) -> web.Response:
        token = secrets.token_hex(16)
        self.sessions.add(token)
        resp = web.HTTPFound("/home")
        resp.set_cookie("portal_session", token, httponly=True, samesite="Lax")
        resp.set_cookie("portal_theme", "dark")  # readable by page scripts
        raise resp

    async def _home(self, request: web.Request) -> web.Response:
        if not self._authenticated(request):
            raise web.HTTPFound("/")
        return web.Response(text=HOME_PAGE, content_type="text/html")

    async def _write(self, request: web.Request) -> web.Response:
        await request.read()
        ok = self._authenticated(request)
        status = 200 if ok else 401
        self.hits.append(PortalHit(request.method, request.path, ok, status))
        return web.json_response({"ok": ok}, status=status)
