"""Chrome's HTTP discovery endpoints, answered with the guard's address in place of Chrome's.

Clients find the browser through /json/version (Playwright, Puppeteer) or /json/list
(chrome-remote-interface). Every URL in those answers is rewritten to point at the guard,
so a client that follows them can only ever reach Chrome through it.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import unquote


def rewrite_addresses(value: Any, upstream_netloc: str, guard_netloc: str) -> Any:
    """Replace Chrome's host:port with the guard's, in every string of a JSON value."""
    if isinstance(value, str):
        return value.replace(upstream_netloc, guard_netloc)
    if isinstance(value, list):
        return [rewrite_addresses(v, upstream_netloc, guard_netloc) for v in value]
    if isinstance(value, dict):
        return {k: rewrite_addresses(v, upstream_netloc, guard_netloc) for k, v in value.items()}
    return value


def host_is_acceptable(host_header: str | None) -> bool:
    """Chrome's rule, kept by the guard against DNS rebinding: the Host header must be an
    IP address or localhost."""
    if not host_header:
        return True
    host = host_header
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    if host.lower() == "localhost":
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def origin_is_allowed(origin: str | None, sec_fetch_site: str | None, own_origins: set[str],
                      allowed: tuple[str, ...]) -> bool:
    """Refuse requests made by web pages, unless --allow-origin names the page's origin.

    Tools (Playwright, Puppeteer, curl) send neither Origin nor Sec-Fetch-Site. A browser
    sends Sec-Fetch-Site on every request and Origin on websocket handshakes and CORS.
    """
    if "*" in allowed:
        return True
    if origin is not None and origin != "null":
        return origin in own_origins or origin in allowed
    if origin == "null":
        return False
    return sec_fetch_site in (None, "none", "same-origin")


def new_tab_url(raw_query: str) -> str:
    """/json/new?<url>: Chrome takes the whole, unescaped query string as the URL."""
    return unquote(raw_query) if raw_query else "about:blank"


def version_from_browser(result: dict[str, Any], browser_ws: str) -> dict[str, Any]:
    """``Browser.getVersion``'s answer in the shape of Chrome's /json/version."""
    return {
        "Browser": str(result.get("product", "")),
        "Protocol-Version": str(result.get("protocolVersion", "")),
        "User-Agent": str(result.get("userAgent", "")),
        "V8-Version": str(result.get("jsVersion", "")),
        "WebKit-Version": str(result.get("revision", "")),
        "webSocketDebuggerUrl": browser_ws,
    }


# Chrome's /json/list leaves out the browser and its tab containers.
_UNLISTED_TYPES = frozenset({"browser", "tab"})


def listing_from_targets(infos: list[Any], upstream_netloc: str) -> list[dict[str, Any]]:
    """``Target.getTargets``' answer in the shape of Chrome's /json/list (Chrome's own
    address in it, for ``rewrite_addresses`` to replace like any other answer)."""
    out = []
    for info in infos:
        if not isinstance(info, dict) or info.get("type") in _UNLISTED_TYPES:
            continue
        target_id = str(info.get("targetId", ""))
        ws = f"{upstream_netloc}/devtools/page/{target_id}"
        out.append({
            "description": "",
            "devtoolsFrontendUrl": f"/devtools/inspector.html?ws={ws}",
            "id": target_id,
            "title": str(info.get("title", "")),
            "type": str(info.get("type", "")),
            "url": str(info.get("url", "")),
            "webSocketDebuggerUrl": f"ws://{ws}",
        })
    return out
