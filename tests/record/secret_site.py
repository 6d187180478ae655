"""A site that takes secrets in and hands secrets out, for the redaction corpus test.

Served on two loopback origins (127.0.0.1 for the app, 127.0.0.2 as the login host). Its
hit log keeps every request exactly as received, headers included, so a test can prove a
secret really travelled before it checks that the record does not hold it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import web

from ajantik_cdp.local_http import start_app

CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, PUT",
    "Access-Control-Allow-Headers": "Content-Type, Authorization, X-API-Key",
}


@dataclass(frozen=True)
class SecretHit:
    method: str
    host: str
    path_qs: str
    headers: dict[str, str]
    body: bytes

    def carries(self, text: str) -> bool:
        blob = self.path_qs + "\n" + "\n".join(f"{k}: {v}" for k, v in self.headers.items())
        return text in blob or text.encode() in self.body


@dataclass
class SecretSite:
    # What /api/token answers with: body fields and response headers full of secrets.
    token_body: bytes = b"{}"
    token_headers: dict[str, str] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)
    hits: list[SecretHit] = field(default_factory=list)
    port: int = 0
    runner: web.AppRunner | None = None

    @property
    def a(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def b(self) -> str:
        return f"http://127.0.0.2:{self.port}"

    def page(self, name: str, html: str) -> str:
        self.pages[name] = html
        return f"{self.a}/page/{name}"

    def hits_to(self, path_part: str) -> list[SecretHit]:
        return [h for h in self.hits if path_part in h.path_qs]

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/page/{name}", self._page)
        app.router.add_route("*", "/{tail:.*}", self._api)
        self.runner, self.port = await start_app(app, more_hosts=("127.0.0.2",))

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    async def _page(self, request: web.Request) -> web.Response:
        html = self.pages.get(request.match_info["name"], "no such page")
        return web.Response(text=html, content_type="text/html")

    async def _api(self, request: web.Request) -> web.Response:
        if request.method == "OPTIONS":
            return web.Response(status=204, headers=CORS)
        self.hits.append(SecretHit(request.method, request.host, request.path_qs,
                                   dict(request.headers), await request.read()))
        if request.path.startswith("/api/token"):
            return web.Response(body=self.token_body, content_type="application/json",
                                headers={**CORS, **self.token_headers})
        if request.path == "/api/profile":
            return web.Response(body=b'{"name": "Ada Lovelace"}',
                                content_type="application/json", headers=CORS)
        return web.json_response({"ok": True}, headers=CORS)
