"""``ajantik cdp``: the guard's process, from start to a clean or fail-closed exit."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson
from aiohttp import web

from ajantik_cdp import __version__
from ajantik_cdp.core.client_gate import ClientGate
from ajantik_cdp.core.config import GuardConfig
from ajantik_cdp.core.discovery import (
    host_is_acceptable,
    new_tab_url,
    origin_is_allowed,
    rewrite_addresses,
)
from ajantik_cdp.core.errors import EXIT_BAD_INPUT, EXIT_CHROME, EXIT_OK, AjantikError
from ajantik_cdp.core.faults import FaultSpec, FaultState
from ajantik_cdp.core.record_schema import StartLine
from ajantik_cdp.core.redaction import Redactor
from ajantik_cdp.local_http import start_app
from ajantik_cdp.proxy.bridge import ClientLink
from ajantik_cdp.proxy.events import GuardEvents
from ajantik_cdp.proxy.guardian import Guardian
from ajantik_cdp.proxy.page_scripts import PageScripts
from ajantik_cdp.record.writer import RecordWriter, set_aside

log = logging.getLogger("ajantik.cdp")


class GuardStartError(AjantikError):
    """A one-line reason the guard could not start: Chrome cannot be reached or is not
    Chrome (exit 3), or a flag is wrong (exit 2)."""

    def __init__(self, message: str, exit_code: int = EXIT_CHROME) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class GuardOptions:
    upstream: str
    config: GuardConfig
    host: str = "127.0.0.1"
    port: int = 9333
    record_path: Path | None = Path("ajantik-cdp.jsonl")
    allow_origins: tuple[str, ...] = ()
    fault: FaultSpec | None = None
    hold_timeout: float = 10.0
    install_signal_handlers: bool = True


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


@dataclass
class _Upstream:
    base: str
    netloc: str
    version: dict[str, Any] = field(default_factory=dict)

    @property
    def ws_base(self) -> str:
        return ("wss" if self.base.startswith("https") else "ws") + self.base[self.base.index(":"):]


class GuardServer:
    def __init__(self, options: GuardOptions) -> None:
        self.options = options
        self.upstream = _Upstream(parse_upstream(options.upstream), "")
        self.upstream.netloc = urlsplit(self.upstream.base).netloc
        self.http: aiohttp.ClientSession | None = None
        self.runner: web.AppRunner | None = None
        self.writer: RecordWriter | None = None
        self.events: GuardEvents | None = None
        self.guardian: Guardian | None = None
        self.links: set[ClientLink] = set()
        self.port = options.port
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._stop_reason = "stopped"
        self._shut_down = False

    # -- start --------------------------------------------------------------------------

    async def start(self) -> None:
        self.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=5))
        try:
            await self._start()
        except BaseException:
            await self._cleanup()
            raise

    async def _start(self) -> None:
        assert self.http is not None
        opts = self.options
        self.upstream.version = await self._fetch_version()
        browser_ws = self.upstream.version.get("webSocketDebuggerUrl")
        if not isinstance(browser_ws, str):
            raise GuardStartError(
                f"{self.upstream.base}/json/version has no webSocketDebuggerUrl; is it Chrome?"
            )
        await self._bind()
        if opts.record_path is not None:
            moved = set_aside(opts.record_path)
            if moved is not None:
                log.info("moved the previous record to %s", moved)
            self.writer = RecordWriter(opts.record_path)
        self.events = GuardEvents(self.writer, Redactor(opts.config, os.urandom(32)))
        scripts = PageScripts(opts.config.deny_clicks, self.events)
        self.guardian = Guardian(opts.config, FaultState(opts.fault), self.events, scripts)
        if self.writer is not None:
            self.writer.start(StartLine(
                guard_version=__version__,
                browser=str(self.upstream.version.get("Browser", "")),
                protocol_version=str(self.upstream.version.get("Protocol-Version", "")),
                config_sha256=opts.config.sha256,
                fault=opts.fault.as_data() if opts.fault else None,
            ))
        try:
            await self.guardian.start(self.http, browser_ws)
        except (aiohttp.ClientError, OSError) as exc:
            raise GuardStartError(f"could not open Chrome's browser websocket: {exc}") from None
        self._ready.set()
        held = sum(1 for t in self.guardian.targets.values() if t.state.value == "guarded")
        log.info("guarding %s (%d targets); skills connect to http://%s",
                 self.upstream.version.get("Browser", "Chrome"), held, self.own_netloc)
        cfg = self.options.config
        if not cfg.deny and cfg.allow_writes is None and not cfg.deny_clicks:
            log.warning("no deny, allow_writes or deny_clicks rules: nothing is blocked; "
                        "writes are only recorded")
        if self.options.fault:
            f = self.options.fault
            log.info("fault armed: %s on write #%d matching %r", f.kind.value, f.at, f.pattern)

    async def _fetch_version(self) -> dict[str, Any]:
        assert self.http is not None
        url = f"{self.upstream.base}/json/version"
        try:
            async with self.http.get(url, timeout=aiohttp.ClientTimeout(total=5)) as resp:
                if resp.status != 200:
                    raise GuardStartError(f"{url} answered {resp.status}; is it Chrome's "
                                          "remote-debugging port?")
                data = orjson.loads(await resp.read())
        except (aiohttp.ClientConnectorError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "os_error", exc)
            refused = getattr(reason, "errno", None) == errno.ECONNREFUSED
            if self.upstream.base.startswith("https://") and not refused:
                # Chrome's port answers a TLS hello by closing: no reason worth showing.
                plain = self.upstream.base.replace("https://", "http://", 1)
                raise GuardStartError(
                    f"no TLS at {self.upstream.base}: a debugging port speaks http:// and "
                    f"ws://; use --upstream {plain}", EXIT_BAD_INPUT) from None
            raise GuardStartError(
                f"cannot reach Chrome at {self.upstream.base} "
                f"({str(reason) or type(exc).__name__}). Start one with "
                f"`ajantik browser --port {urlsplit(self.upstream.base).port}`"
            ) from None
        except orjson.JSONDecodeError:
            raise GuardStartError(f"{url} did not answer JSON; is it Chrome?") from None
        if not isinstance(data, dict):
            raise GuardStartError(f"{url} did not answer a JSON object; is it Chrome?")
        return data

    async def _bind(self) -> None:
        app = web.Application(middlewares=[self._gatekeeper])
        # Chrome answers each endpoint with and without a trailing slash; Playwright asks
        # for /json/version/.
        for path, method, handler in (
            ("/json/version", "GET", self._json_version),
            ("/json", "GET", self._json_list),
            ("/json/list", "GET", self._json_list),
            ("/json/new", "PUT", self._json_new),
            ("/json/new", "GET", self._json_new),
            ("/json/activate/{target_id}", "*", self._json_forward),
            ("/json/close/{target_id}", "*", self._json_forward),
            ("/json/protocol", "GET", self._json_protocol),
        ):
            app.router.add_route(method, path, handler)
            app.router.add_route(method, path + "/", handler)
        app.router.add_get("/devtools/browser/{browser_id}", self._websocket)
        app.router.add_get("/devtools/page/{target_id}", self._websocket)
        try:
            self.runner, self.port = await start_app(app, self.options.host,
                                                     self.options.port)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise GuardStartError(
                    f"port {self.options.port} on {self.options.host} is in use; choose "
                    "another with --port", EXIT_BAD_INPUT
                ) from None
            raise GuardStartError(f"cannot listen on {self.options.host}:"
                                  f"{self.options.port}: {exc.strerror}",
                                  EXIT_BAD_INPUT) from None

    @property
    def own_netloc(self) -> str:
        host = self.options.host
        if host in ("0.0.0.0", "", "::"):
            host = "127.0.0.1"  # a URL handed to a client must be reachable by it
        if ":" in host:
            host = f"[{host}]"
        return f"{host}:{self.port}"

    # -- running ------------------------------------------------------------------------

    async def run_until_stopped(self) -> int:
        assert self.guardian is not None
        loop = asyncio.get_running_loop()
        if self.options.install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(sig, self.stop, f"signal {signal.Signals(sig).name}")
        lost = asyncio.create_task(self.guardian.closed.wait())
        stopped = asyncio.create_task(self._stop.wait())
        await asyncio.wait({lost, stopped}, return_when=asyncio.FIRST_COMPLETED)
        lost.cancel()
        stopped.cancel()
        if self.options.install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(sig)
        if self._stop.is_set():
            await self.shutdown(self._stop_reason, 1001)
            return EXIT_OK
        log.error("lost Chrome (its browser connection closed); closing every client "
                  "connection and exiting")
        await self.shutdown("lost Chrome", 1011)
        return EXIT_CHROME

    def stop(self, reason: str = "stopped") -> None:
        self._stop_reason = reason
        self._stop.set()

    async def shutdown(self, reason: str, close_code: int) -> None:
        if self._shut_down:  # a caller may stop early to read the record; the end is once
            return
        self._shut_down = True
        links = list(self.links)
        await asyncio.gather(*(link.close(close_code, reason) for link in links),
                             return_exceptions=True)
        if links:
            log.info("closed %d client connection(s): %s", len(links), reason)
        await self._cleanup(reason)
        if self.writer is not None:
            counts = self.writer.counts
            log.info("stopped (%s); record %s: %d request(s), %d write(s), %d block(s), "
                     "%d fault(s)", reason, self.writer.path, counts["request"],
                     counts["write"], counts["block"], counts["fault"])

    async def _cleanup(self, reason: str = "start failed") -> None:
        if self.guardian is not None:
            await self.guardian.close()
        if self.runner is not None:
            await self.runner.cleanup()
        if self.writer is not None:
            self.writer.close(reason)
        if self.http is not None:
            await self.http.close()

    # -- HTTP ---------------------------------------------------------------------------

    @web.middleware
    async def _gatekeeper(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not host_is_acceptable(request.headers.get("Host")):
            return web.Response(status=500, text="Host header is specified and is not an IP "
                                "address or localhost.")
        own = {f"http://{self.own_netloc}", f"http://localhost:{self.port}"}
        if not origin_is_allowed(request.headers.get("Origin"),
                                 request.headers.get("Sec-Fetch-Site"), own,
                                 self.options.allow_origins):
            origin = request.headers.get("Origin") or "a web page"
            log.warning("refused a %s %s from %s", request.method, request.path, origin)
            return web.Response(
                status=403,
                text=f"Rejected a request from {origin}. Use --allow-origin={origin} to "
                "allow it.",
            )
        await self._ready.wait()
        response: web.StreamResponse = await handler(request)
        return response

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
        assert self.http is not None
        async with self.http.request(method, self.upstream.base + path) as resp:
            raw = await resp.read()
            try:
                return resp.status, orjson.loads(raw), raw
            except orjson.JSONDecodeError:
                return resp.status, None, raw

    async def _json_version(self, request: web.Request) -> web.Response:
        _, data, _ = await self._upstream_json("GET", "/json/version")
        return self._json(request, data)

    async def _json_list(self, request: web.Request) -> web.Response:
        _, data, _ = await self._upstream_json("GET", "/json/list")
        return self._json(request, data)

    async def _json_new(self, request: web.Request) -> web.Response:
        assert self.guardian is not None
        url = new_tab_url(request.rel_url.raw_query_string)
        target_id = await self.guardian.create_tab(url, self.options.hold_timeout)
        _, targets, _ = await self._upstream_json("GET", "/json/list")
        entry = next((t for t in targets or [] if t.get("id") == target_id), None)
        if entry is None:
            return web.Response(status=500, text=f"could not find new target {target_id}")
        entry = {**entry, "url": url}
        return self._json(request, entry)

    async def _json_forward(self, request: web.Request) -> web.Response:
        status, data, raw = await self._upstream_json(request.method, request.path)
        if data is None:
            text = raw.decode("utf-8", "replace").replace(self.upstream.netloc, self.own_netloc)
            return web.Response(status=status, text=text)
        return self._json(request, data)

    async def _json_protocol(self, request: web.Request) -> web.Response:
        assert self.http is not None
        async with self.http.get(self.upstream.base + "/json/protocol") as resp:
            return web.Response(body=await resp.read(), status=resp.status,
                                content_type="application/json")

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        assert self.http is not None and self.guardian is not None and self.events is not None
        if self.guardian.closed.is_set():
            return web.Response(status=503, text="the guard has lost Chrome")
        # timeout: how long closing waits for the client's reply. A client that never
        # answers must not keep a failing-closed guard alive.
        client = web.WebSocketResponse(max_msg_size=0, compress=False, autoping=True,
                                       timeout=2.0)
        if not client.can_prepare(request).ok:
            return web.Response(status=400, text="WebSocket upgrade expected")
        try:
            # No Origin upstream: Chrome refuses handshakes that carry one.
            upstream = await self.http.ws_connect(
                self.upstream.ws_base + request.path, max_msg_size=0, compress=0,
                autoping=True)
        except aiohttp.WSServerHandshakeError as exc:
            return web.Response(status=exc.status or 502, text=f"Chrome refused: {exc.message}")
        except (aiohttp.ClientError, OSError) as exc:
            return web.Response(status=502, text=f"cannot reach Chrome: {exc}")
        await client.prepare(request)
        page_target = request.match_info.get("target_id")
        gate = ClientGate(self.options.config, page_target=page_target)
        link = ClientLink(client, upstream, gate, self.guardian, self.events,
                          self.options.hold_timeout)
        self.links.add(link)
        try:
            await link.run()
        finally:
            self.links.discard(link)
        return client


async def run_guard(options: GuardOptions) -> int:
    server = GuardServer(options)
    await server.start()
    return await server.run_until_stopped()


