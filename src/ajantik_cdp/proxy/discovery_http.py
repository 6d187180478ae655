"""The guard's HTTP face: Chrome's discovery endpoints, and the checks every request passes.

``/json/version``, ``/json`` and ``/json/list``, ``/json/new`` (PUT, and GET for older
clients), ``/json/activate/<id>``, ``/json/close/<id>`` and ``/json/protocol`` are answered
from Chrome's, with every websocket and front-end URL rewritten to the guard's address.
``/json/new`` opens the tab blank and navigates it once the guard holds it; one for a
privileged page (``core/guard/privileged_urls.py``) is refused before any tab is made.

When Chrome serves only its browser websocket (``Upstream.socket_only``), the same answers
are made from Target commands on the guard's own browser connection: ``getTargets`` for
the listings, ``createTarget``, ``activateTarget`` and ``closeTarget``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from ajantik_cdp.core.guard.discovery import (
    host_is_acceptable,
    listing_from_targets,
    new_tab_url,
    origin_is_allowed,
    rewrite_addresses,
)
from ajantik_cdp.core.guard.privileged_urls import PRIVILEGED_REFUSAL, privileged_scheme
from ajantik_cdp.proxy.cdp_connection import CdpError
from ajantik_cdp.proxy.guardian import Guardian
from ajantik_cdp.proxy.upstream import Upstream

log = logging.getLogger("ajantik.cdp")

Handler = Callable[["DiscoveryEndpoints", web.Request], Awaitable[web.StreamResponse]]


class DiscoveryEndpoints:
    def __init__(self, upstream: Upstream, http: aiohttp.ClientSession, guardian: Guardian,
                 own_netloc: str, hold_timeout: float) -> None:
        self.upstream = upstream
        self.http = http
        self.guardian = guardian
        self.own_netloc = own_netloc
        self.hold_timeout = hold_timeout

    def _guard_netloc(self, request: web.Request) -> str:
        host = request.headers.get("Host")
        if host and host_is_acceptable(host) and not host.startswith("0.0.0.0"):
            return host
        return self.own_netloc

    def _json(self, request: web.Request, data: Any) -> web.Response:
        body = rewrite_addresses(data, self.upstream.netloc, self._guard_netloc(request))
        return web.Response(body=orjson.dumps(body, option=orjson.OPT_INDENT_2),
                            content_type="application/json")

    async def _upstream_json(self, method: str, path: str) -> tuple[int, Any, bytes]:
        async with self.http.request(method, self.upstream.base + path) as resp:
            raw = await resp.read()
            try:
                return resp.status, orjson.loads(raw), raw
            except orjson.JSONDecodeError:
                return resp.status, None, raw

    async def _targets(self) -> list[Any]:
        """Chrome's /json/list, or its equivalent made from Target.getTargets."""
        if self.upstream.socket_only:
            infos = (await self.guardian.conn.send("Target.getTargets"))["targetInfos"]
            return listing_from_targets(infos, self.upstream.netloc)
        _, data, _ = await self._upstream_json("GET", "/json/list")
        return data if isinstance(data, list) else []

    async def version(self, request: web.Request) -> web.StreamResponse:
        if self.upstream.socket_only:
            return self._json(request, self.upstream.version)
        _, data, _ = await self._upstream_json("GET", "/json/version")
        return self._json(request, data)

    async def listing(self, request: web.Request) -> web.StreamResponse:
        return self._json(request, await self._targets())

    async def new_tab(self, request: web.Request) -> web.StreamResponse:
        url = new_tab_url(request.rel_url.raw_query_string)
        why = privileged_scheme(url) if url != "about:blank" else None
        if why is not None:
            # Refused before a tab is made: an answer naming a tab would say it opened.
            return web.Response(status=403, text="ajantik cdp refuses to open that URL: "
                                + PRIVILEGED_REFUSAL.format(why=why))
        target_id = await self.guardian.create_tab(url, self.hold_timeout)
        targets = await self._targets()
        entry = next((t for t in targets if t.get("id") == target_id), None)
        if entry is None:
            return web.Response(status=500, text=f"could not find new target {target_id}")
        return self._json(request, {**entry, "url": url})

    async def forward(self, request: web.Request) -> web.StreamResponse:
        if self.upstream.socket_only:
            return await self._target_command(request)
        status, data, raw = await self._upstream_json(request.method, request.path)
        if data is None:
            text = raw.decode("utf-8", "replace").replace(self.upstream.netloc,
                                                          self.own_netloc)
            return web.Response(status=status, text=text)
        return self._json(request, data)

    async def _target_command(self, request: web.Request) -> web.StreamResponse:
        """/json/activate and /json/close answered as Chrome words them."""
        target_id = request.match_info["target_id"]
        activate = request.path.startswith("/json/activate")
        method = "Target.activateTarget" if activate else "Target.closeTarget"
        try:
            await self.guardian.conn.send(method, {"targetId": target_id})
        except CdpError:
            return web.Response(status=404, text=f"No such target id: {target_id}")
        return web.Response(text="Target activated" if activate else "Target is closing")

    async def protocol(self, request: web.Request) -> web.StreamResponse:
        if self.upstream.socket_only:
            return web.Response(status=404, text="Chrome's protocol description is not "
                                "available: the guard's upstream is a browser websocket only")
        async with self.http.get(self.upstream.base + "/json/protocol") as resp:
            return web.Response(body=await resp.read(), status=resp.status,
                                content_type="application/json")


# Chrome answers each endpoint with and without a trailing slash; Playwright asks for
# /json/version/.
ENDPOINTS: tuple[tuple[str, str, Handler], ...] = (
    ("/json/version", "GET", DiscoveryEndpoints.version),
    ("/json", "GET", DiscoveryEndpoints.listing),
    ("/json/list", "GET", DiscoveryEndpoints.listing),
    ("/json/new", "PUT", DiscoveryEndpoints.new_tab),
    ("/json/new", "GET", DiscoveryEndpoints.new_tab),
    ("/json/activate/{target_id}", "*", DiscoveryEndpoints.forward),
    ("/json/close/{target_id}", "*", DiscoveryEndpoints.forward),
    ("/json/protocol", "GET", DiscoveryEndpoints.protocol),
)


def refusal(request: web.Request, own_netloc: str, port: int,
            allow_origins: tuple[str, ...]) -> web.Response | None:
    """Why a request may not reach the guard, as the answer to give, or None.

    A ``Host`` that is neither an IP address nor localhost is refused as Chrome does
    (DNS rebinding); a request from a web page (a cross-site ``Origin``, or a browser's
    ``Sec-Fetch-Site``) is refused unless ``--allow-origin`` names it."""
    if not host_is_acceptable(request.headers.get("Host")):
        return web.Response(status=500, text="Host header is specified and is not an IP "
                            "address or localhost.")
    own = {f"http://{own_netloc}", f"http://localhost:{port}"}
    if not origin_is_allowed(request.headers.get("Origin"),
                             request.headers.get("Sec-Fetch-Site"), own, allow_origins):
        origin = request.headers.get("Origin") or "a web page"
        log.warning("refused a %s %s from %s", request.method, request.path, origin)
        return web.Response(
            status=403,
            text=f"Rejected a request from {origin}. Use --allow-origin={origin} to allow it.",
        )
    return None
