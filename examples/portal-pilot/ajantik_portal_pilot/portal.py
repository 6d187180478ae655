"""Harbour Registry: an invented company-registry portal, served by aiohttp.

A filing agent signs in (a session cookie) and files annual confirmations for the two
customer accounts it acts for. Each filing (R-101..R-103) is saved section by section
through JSON writes, takes an uploaded accounts document, has a review page, and ends with
"Proceed to submission", which a test must never reach.

``Portal.state`` is the registry's own, authoritative state. Tests and ``ajantik demo``
read it in-process; no page or API exposes it beyond what a signed-in agent may see.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from ajantik_cdp.local_http import start_app
from ajantik_portal_pilot import portal_pages
from ajantik_portal_pilot.filing_state import FilingError, RegistryState, filing_json

USERNAME = "agent@ledgerquay.test"
PASSWORD = "harbour-demo-2024"  # an invented login for a local example, not a secret
COOKIE = "hr_session"


@dataclass(frozen=True)
class ApiHit:
    """One API request as the portal saw it: its own log, the truth of what arrived."""

    method: str
    path: str
    status: int


@dataclass
class Portal:
    state: RegistryState = field(default_factory=RegistryState.fresh)
    hits: list[ApiHit] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)
    # Test hook, never reachable over HTTP: API writes whose path this matches are applied,
    # then their connection is cut before any answer leaves (a proxy timing out, a pod
    # dying after the commit). The client and the guard see no answer at all.
    drop_answers: re.Pattern[str] | None = None
    port: int = 0
    runner: web.AppRunner | None = None
    reset_token: str | None = None
    # The registry's state and API hits before each reset, oldest first.
    history: list[tuple[RegistryState, list[ApiHit]]] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def snapshot(self, record_id: str) -> dict[str, Any]:
        """A filing as the registry holds it, in the same JSON shape its API answers."""
        return filing_json(self.state.filing(record_id))

    def submissions(self) -> list[ApiHit]:
        """Every submission request that reached the registry, whatever it answered."""
        return [h for h in self.hits if h.method == "POST" and h.path.endswith("/submission")]

    # -- server -------------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._log_api], client_max_size=8 * 1024 * 1024)
        r = app.router
        r.add_get("/", self._root)
        r.add_get("/login", self._login_form)
        r.add_post("/login", self._login)
        r.add_post("/logout", self._logout)
        r.add_get("/static/portal.js", self._script)
        # Every app route serves the same single-page app; the app picks the view.
        for path in ("/dashboard", "/filings/{rid}", "/filings/{rid}/review",
                     "/filings/{rid}/documents", "/filings/{rid}/sections/{section}"):
            r.add_get(path, self._app)
        r.add_get("/api/filings", self._api_list)
        r.add_get("/api/filings/{rid}", self._api_get)
        r.add_put("/api/filings/{rid}/sections/{section}", self._api_section)
        r.add_post("/api/filings/{rid}/documents", self._api_upload)
        r.add_post("/api/filings/{rid}/submission", self._api_submit)
        r.add_post("/_test/reset", self._reset)
        return app

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.runner, self.port = await start_app(self.app(), host, port)

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    # -- sessions -----------------------------------------------------------------------

    def _signed_in(self, request: web.Request) -> bool:
        return request.cookies.get(COOKIE, "") in self.sessions

    @web.middleware
    async def _log_api(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not request.path.startswith("/api/"):
            response: web.StreamResponse = await handler(request)
            return response
        if not self._signed_in(request):
            self.hits.append(ApiHit(request.method, request.path, 401))
            return web.json_response({"error": "sign in first"}, status=401)
        try:
            response = await handler(request)
        except FilingError as exc:
            response = web.json_response({"error": exc.message}, status=exc.status)
        except web.HTTPException as exc:
            self.hits.append(ApiHit(request.method, request.path, exc.status))
            raise
        self.hits.append(ApiHit(request.method, request.path, response.status))
        if (self.drop_answers is not None and request.method != "GET"
                and self.drop_answers.search(request.path) and request.transport is not None):
            request.transport.close()
        return response

    async def _root(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPSeeOther("/dashboard")

    async def _login_form(self, request: web.Request) -> web.Response:
        return web.Response(text=portal_pages.login_page(), content_type="text/html")

    async def _login(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        if form.get("username") != USERNAME or form.get("password") != PASSWORD:
            return web.Response(text=portal_pages.login_page("Wrong email or password."),
                                content_type="text/html", status=401)
        token = secrets.token_urlsafe(24)
        self.sessions.add(token)
        response = web.Response(status=303, headers={"Location": "/dashboard"})
        response.set_cookie(COOKIE, token, httponly=True, samesite="Lax", path="/")
        return response

    async def _logout(self, request: web.Request) -> web.StreamResponse:
        self.sessions.discard(request.cookies.get(COOKIE, ""))
        raise web.HTTPSeeOther("/login")

    async def _script(self, request: web.Request) -> web.Response:
        return web.Response(text=portal_pages.PORTAL_JS, content_type="text/javascript")

    async def _app(self, request: web.Request) -> web.Response:
        if not self._signed_in(request):
            raise web.HTTPSeeOther("/login")
        return web.Response(text=portal_pages.app_page(), content_type="text/html")

    async def _reset(self, request: web.Request) -> web.Response:
        given = request.headers.get("X-Reset-Token", "")
        if self.reset_token is None or not secrets.compare_digest(given, self.reset_token):
            return web.json_response({"error": "no such thing"}, status=404)
        self.history.append((self.state, self.hits))
        self.state, self.hits = RegistryState.fresh(), []
        return web.json_response({"reset": True, "resets": len(self.history)})

    # -- API ----------------------------------------------------------------------------

    async def _api_list(self, request: web.Request) -> web.Response:
        filings = [filing_json(f) for f in self.state.filings.values()]
        return web.json_response({"filings": filings})

    async def _api_get(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"filing": filing_json(self.state.filing(request.match_info["rid"]))})

    async def _api_section(self, request: web.Request) -> web.Response:
        try:
            fields = await request.json()
        except ValueError:
            raise FilingError(400, "the body is not JSON") from None
        filing = self.state.save_section(request.match_info["rid"],
                                         request.match_info["section"], fields)
        return web.json_response({"filing": filing_json(filing)})

    async def _api_upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if not isinstance(upload, web.FileField):
            raise FilingError(422, "attach the document as the 'file' field")
        data = upload.file.read()
        filing = self.state.add_document(request.match_info["rid"], upload.filename, data)
        return web.json_response({"filing": filing_json(filing)})

    async def _api_submit(self, request: web.Request) -> web.Response:
        filing = self.state.submit(request.match_info["rid"])
        return web.json_response({"filing": filing_json(filing)})
