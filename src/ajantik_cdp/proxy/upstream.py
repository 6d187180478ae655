"""Chrome's address, and what it says about itself, learnt before the guard listens.

Chrome is reached either at its HTTP debugging port (``/json/version`` says where its
browser websocket is), or, given a ``ws://HOST:PORT/devtools/browser/ID`` address, at
that websocket alone: a Chrome attached through ``chrome://inspect`` (Chrome 144+, the
way chrome-devtools-mcp's ``--autoConnect`` works) serves no ``/json/*`` endpoints, so
the guard asks for the version over the socket (``Browser.getVersion``) and answers the
discovery endpoints itself from Target commands.
"""

from __future__ import annotations

import asyncio
import errno
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from ajantik_cdp.core.errors import EXIT_BAD_INPUT, EXIT_CHROME, AjantikError
from ajantik_cdp.core.guard.discovery import version_from_browser


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
    try:
        parts = urlsplit(raw)
    except ValueError:  # "http://[::1": an IPv6 host without its closing bracket
        raise GuardStartError(f"--upstream {text!r} is not a URL like http://127.0.0.1:9335",
                              EXIT_BAD_INPUT) from None
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


def browser_socket(text: str) -> str | None:
    """The address itself, when it names Chrome's browser websocket."""
    raw = text.strip()
    parts = urlsplit(raw)
    if parts.scheme in ("ws", "wss") and parts.path.startswith("/devtools/browser/"):
        return raw
    return None


@dataclass(frozen=True)
class Upstream:
    base: str  # http(s)://host:port
    version: dict[str, Any]  # Chrome's /json/version (or its equivalent over the socket)
    # True when only the browser websocket is reachable (no /json/* endpoints).
    socket_only: bool = False

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

    def ws_url(self, path: str) -> str:
        """Chrome's websocket for a client that asked the guard for ``path``."""
        if self.socket_only and path.startswith("/devtools/browser/"):
            return self.browser_ws
        return self.ws_base + path


def _why(reason: BaseException) -> str:
    """An OS error in words ("connection refused"), not as Python prints it ("[Errno
    111] Connect call failed ('127.0.0.1', 1)")."""
    if isinstance(reason, TimeoutError):
        return "no answer within 5 s"
    if isinstance(reason, OSError) and (reason.errno or reason.strerror):
        # asyncio's strerror is "Connect call failed (...)": the errno's own words say it
        words = os.strerror(reason.errno) if reason.errno else str(reason.strerror)
        return words[0].lower() + words[1:]
    return str(reason) or type(reason).__name__


async def reach_upstream(http: aiohttp.ClientSession, text: str) -> Upstream:
    """Ask Chrome at ``text`` for its version; every way that fails is one clear line."""
    base = parse_upstream(text)
    socket = browser_socket(text)
    if socket is not None:
        return Upstream(base, await _version_over(http, socket, base), socket_only=True)
    url = f"{base}/json/version"
    try:
        async with http.get(url, timeout=aiohttp.ClientTimeout(total=5)) as resp:
            if resp.status != 200:
                raise GuardStartError(
                    f"{url} answered {resp.status}; is it Chrome's remote-debugging port? "
                    "A Chrome attached through chrome://inspect serves only its browser "
                    "websocket: pass --upstream ws://HOST:PORT/devtools/browser/ID (the "
                    "DevToolsActivePort file in its profile holds the port and the path)")
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
            f"cannot reach Chrome at {base} ({_why(reason)}). Start one with "
            f"`ajantik browser --port {urlsplit(base).port}`"
        ) from None
    except orjson.JSONDecodeError:
        raise GuardStartError(f"{url} did not answer JSON; is it Chrome?") from None
    if not isinstance(data, dict):
        raise GuardStartError(f"{url} did not answer a JSON object; is it Chrome?")
    if not isinstance(data.get("webSocketDebuggerUrl"), str):
        raise GuardStartError(f"{url} has no webSocketDebuggerUrl; is it Chrome?")
    return Upstream(base, data)


async def _version_over(http: aiohttp.ClientSession, socket: str, base: str) -> dict[str, Any]:
    """``Browser.getVersion`` on Chrome's browser websocket, as a /json/version answer."""
    try:
        async with http.ws_connect(socket, max_msg_size=0, compress=0) as ws:
            await ws.send_str('{"id":1,"method":"Browser.getVersion"}')
            async with asyncio.timeout(5):
                async for frame in ws:
                    if frame.type is not aiohttp.WSMsgType.TEXT:
                        break
                    msg = orjson.loads(frame.data)
                    if isinstance(msg, dict) and msg.get("id") == 1:
                        if not isinstance(msg.get("result"), dict):
                            raise GuardStartError(f"{socket} refused Browser.getVersion: "
                                                  f"{msg.get('error')}")
                        return version_from_browser(msg["result"], socket)
    except aiohttp.WSServerHandshakeError as exc:
        raise GuardStartError(f"{socket} refused the websocket ({exc.status}); is it "
                              "Chrome's browser endpoint?") from None
    except (aiohttp.ClientConnectorError, OSError) as exc:
        raise GuardStartError(f"cannot reach Chrome at {base} "
                              f"({_why(getattr(exc, 'os_error', exc))})") from None
    except TimeoutError:
        raise GuardStartError(f"{socket} did not answer Browser.getVersion in 5 s") from None
    except orjson.JSONDecodeError:
        raise GuardStartError(f"{socket} did not answer JSON; is it Chrome?") from None
    raise GuardStartError(f"{socket} closed before answering Browser.getVersion")
