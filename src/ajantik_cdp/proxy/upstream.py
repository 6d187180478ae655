"""Chrome's address, and what it says about itself, learnt before the guard listens."""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from ajantik_cdp.core.errors import EXIT_BAD_INPUT, EXIT_CHROME, AjantikError


class GuardStartError(AjantikError):
    """A one-line reason the guard could not start: Chrome cannot be reached or is not
    Chrome (exit 3), or a flag is wrong (exit 2)."""

    def __init__(self, message: str, exit_code: int = EXIT_CHROME) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def parse_upstream(text: str) -> str:
    """The upstream as an http://host:port base, from the forms people paste."""
    raw = text.strip()
    if "://" not in raw:
        raw = "http://" + raw
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise GuardStartError(f"--upstream {text!r} is not a URL like http://127.0.0.1:9335",
                              EXIT_BAD_INPUT)
    try:
        port = parts.port
    except ValueError:
        raise GuardStartError(f"--upstream {text!r} has a bad port", EXIT_BAD_INPUT) from None
    if port is None:
        raise GuardStartError(f"--upstream {text!r} needs a port, e.g. http://127.0.0.1:9335",
                              EXIT_BAD_INPUT)
    scheme = "https" if parts.scheme in ("https", "wss") else "http"
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{scheme}://{host}:{port}"


@dataclass(frozen=True)
class Upstream:
    base: str  # http(s)://host:port
    version: dict[str, Any]  # Chrome's /json/version

    @property
    def netloc(self) -> str:
        return urlsplit(self.base).netloc

    @property
    def ws_base(self) -> str:
        return ("wss" if self.base.startswith("https") else "ws") + self.base[self.base.index(":"):]

    @property
    def browser_ws(self) -> str:
        return str(self.version["webSocketDebuggerUrl"])  # checked by reach_upstream

    @property
    def browser(self) -> str:
        return str(self.version.get("Browser", ""))


async def reach_upstream(http: aiohttp.ClientSession, text: str) -> Upstream:
    """Ask Chrome at ``text`` for its version; every way that fails is one clear line."""
    base = parse_upstream(text)
    url = f"{base}/json/version"
    try:
        async with http.get(url, timeout=aiohttp.ClientTimeout(total=5)) as resp:
            if resp.status != 200:
                raise GuardStartError(f"{url} answered {resp.status}; is it Chrome's "
                                      "remote-debugging port?")
            data = orjson.loads(await resp.read())
    except (aiohttp.ClientConnectorError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "os_error", exc)
        refused = getattr(reason, "errno", None) == errno.ECONNREFUSED
        if base.startswith("https://") and not refused:
            # Chrome's port answers a TLS hello by closing: no reason worth showing.
            plain = base.replace("https://", "http://", 1)
            raise GuardStartError(
                f"no TLS at {base}: a debugging port speaks http:// and ws://; "
                f"use --upstream {plain}", EXIT_BAD_INPUT) from None
        raise GuardStartError(
            f"cannot reach Chrome at {base} ({str(reason) or type(exc).__name__}). Start one with "
            f"`ajantik browser --port {urlsplit(base).port}`"
        ) from None
    except orjson.JSONDecodeError:
        raise GuardStartError(f"{url} did not answer JSON; is it Chrome?") from None
    if not isinstance(data, dict):
        raise GuardStartError(f"{url} did not answer a JSON object; is it Chrome?")
    if not isinstance(data.get("webSocketDebuggerUrl"), str):
        raise GuardStartError(f"{url} has no webSocketDebuggerUrl; is it Chrome?")
    return Upstream(base, data)
