"""``ajantik cdp``: the guard's process, from start to a clean or fail-closed exit.

``GuardServer.start`` puts the parts in place in an order that touches nothing a user's
mistake would make it undo: Chrome is asked for its version, the guard's port is bound,
and only then is the record opened and the guard installed in Chrome. A request that
arrives meanwhile waits until the guard is in place. Whatever fails on the way, what was
already started is stopped again, and the reason is one line (``GuardStartError``).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from aiohttp import web

from ajantik_cdp.core.errors import EXIT_BAD_INPUT, EXIT_CHROME, EXIT_ESCAPED, EXIT_OK
from ajantik_cdp.core.guard.client_gate import ClientGate
from ajantik_cdp.core.guard.targets import TargetState
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.faults import FaultSpec, FaultState
from ajantik_cdp.core.record.redaction import Redactor
from ajantik_cdp.local_http import start_app
from ajantik_cdp.output_folder import make_parent
from ajantik_cdp.proxy.bridge import ClientLink
from ajantik_cdp.proxy.cdp_connection import CdpError, ConnectionLost
from ajantik_cdp.proxy.discovery_http import ENDPOINTS, DiscoveryEndpoints, Handler, refusal
from ajantik_cdp.proxy.film import Camera, FilmSettings, prepare_folder
from ajantik_cdp.proxy.guardian import Guardian
from ajantik_cdp.proxy.page_scripts import PageScripts
from ajantik_cdp.proxy.preloading import PreloadSwitchError
from ajantik_cdp.proxy.reports import Reports, start_record
from ajantik_cdp.proxy.upstream import GuardStartError, Upstream, parse_upstream, reach_upstream
from ajantik_cdp.record.writer import RecordWriter, set_aside

__all__ = ["GuardOptions", "GuardServer", "GuardStartError",
           "parse_upstream", "run_guard"]

log = logging.getLogger("ajantik.cdp")

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


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
    # Film every page into this folder (frame and action lines in the record); needs a
    # record, and makes it a version-2 record.
    film: FilmSettings | None = None


class GuardServer:
    """A guard with every part in place; made only by ``await GuardServer.start(...)``."""

    def __init__(self, options: GuardOptions, upstream: Upstream, http: aiohttp.ClientSession,
                 runner: web.AppRunner, port: int, writer: RecordWriter | None,
                 reports: Reports, guardian: Guardian) -> None:
        self.options = options
        self.upstream = upstream
        self.http = http
        self.runner = runner
        self.port = port
        self.writer = writer
        self.reports = reports
        self.guardian = guardian
        self.discovery = DiscoveryEndpoints(upstream, http, guardian, self.own_netloc,
                                            options.hold_timeout)
        self.links: set[ClientLink] = set()
        self.camera: Camera | None = None
        self._stop = asyncio.Event()
        self._stop_reason = "stopped"
        self._shut_down = False

    # -- start --------------------------------------------------------------------------

    @classmethod
    async def start(cls, options: GuardOptions) -> GuardServer:
        ready: asyncio.Future[GuardServer] = asyncio.get_running_loop().create_future()
        try:
            async with contextlib.AsyncExitStack() as undo:
                http = aiohttp.ClientSession(
                    timeout=aiohttp.ClientTimeout(total=None, connect=5))
                undo.push_async_callback(http.close)
                upstream = await reach_upstream(http, options.upstream)
                runner, port = await _listen(_app(ready), options)
                undo.push_async_callback(runner.cleanup)
                writer = _open_record(options, upstream)
                if writer is not None:
                    undo.callback(writer.close, "start failed")
                reports = Reports(writer, Redactor(options.config, os.urandom(32)))
                guardian = await _install(http, upstream, options, reports)
                undo.push_async_callback(guardian.close)
                server = cls(options, upstream, http, runner, port, writer, reports,
                             guardian)
                server.camera = _camera(options, guardian, reports, writer)
                undo.pop_all()
        except BaseException:
            ready.cancel()
            raise
        ready.set_result(server)
        server._say_started()
        return server

    def _say_started(self) -> None:
        held = sum(1 for t in self.guardian.targets if t.state is TargetState.GUARDED)
        log.info("guarding %s (%d targets); skills connect to http://%s",
                 self.upstream.browser or "Chrome", held, self.own_netloc)
        cfg = self.options.config
        if not cfg.deny and cfg.allow_writes is None and not cfg.deny_clicks:
            log.warning("no deny, allow_writes or deny_clicks rules: nothing is blocked; "
                        "writes are only recorded")
        if self.options.fault:
            f = self.options.fault
            log.info("fault armed: %s on write #%d matching %r", f.kind.value, f.at, f.pattern)

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
        loop = asyncio.get_running_loop()
        if self.options.install_signal_handlers:
            for sig in SIGNALS:
                loop.add_signal_handler(sig, self.stop, f"signal {signal.Signals(sig).name}")
        lost = asyncio.create_task(self.guardian.closed.wait())
        stopped = asyncio.create_task(self._stop.wait())
        await asyncio.wait({lost, stopped}, return_when=asyncio.FIRST_COMPLETED)
        lost.cancel()
        stopped.cancel()
        if self.options.install_signal_handlers:
            for sig in SIGNALS:
                loop.remove_signal_handler(sig)
        if self._stop.is_set():
            await self.shutdown(self._stop_reason, 1001)
            if self.reports.escaped:
                # A clean stop, but the run let through something its rules deny.
                log.error("%s the rules deny got through in this run (escaped lines in "
                          "the record); exiting with code %d",
                          counted(self.reports.escaped, "WebSocket"), EXIT_ESCAPED)
                return EXIT_ESCAPED
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
            log.info("closed %s: %s", counted(len(links), "client connection"), reason)
        if self.camera is not None:
            await self.camera.close()
        await self.guardian.close()
        await self.runner.cleanup()
        if self.writer is not None:
            self.writer.close(reason)
        await self.http.close()
        if self.writer is not None:
            counts = self.writer.counts
            log.info("stopped (%s); record %s: %s", reason, self.writer.path,
                     ", ".join(counted(counts[kind], kind)
                               for kind in ("request", "write", "block", "fault", "escaped")
                               if kind != "escaped" or counts[kind]))

    # -- client connections -------------------------------------------------------------

    async def websocket(self, request: web.Request) -> web.StreamResponse:
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
                self.upstream.ws_url(request.path), max_msg_size=0, compress=0,
                autoping=True)
        except aiohttp.WSServerHandshakeError as exc:
            return web.Response(status=exc.status or 502, text=f"Chrome refused: {exc.message}")
        except (aiohttp.ClientError, OSError) as exc:
            return web.Response(status=502, text=f"cannot reach Chrome: {exc}")
        await client.prepare(request)
        gate = ClientGate(self.options.config, page_target=request.match_info.get("target_id"),
                          url_of=self.guardian.target_url,
                          guard_dialog=self.guardian.dialogs.get)
        link = ClientLink(client, upstream, gate, self.guardian, self.reports,
                          self.options.hold_timeout)
        self.links.add(link)
        try:
            await link.run()
        finally:
            self.links.discard(link)
        return client


# -- the parts, in the order ``start`` puts them in place ----------------------------------

RequestHandler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _app(ready: asyncio.Future[GuardServer]) -> web.Application:
    """The guard's HTTP app, bound before the guard exists: every request first waits for
    it (``ready``), then passes the Host and Origin checks."""

    @web.middleware
    async def gatekeeper(request: web.Request, handler: RequestHandler) -> web.StreamResponse:
        server = await asyncio.shield(ready)
        refused = refusal(request, server.own_netloc, server.port,
                          server.options.allow_origins)
        if refused is not None:
            return refused
        return await handler(request)

    def discovery(endpoint: Handler) -> RequestHandler:
        async def handle(request: web.Request) -> web.StreamResponse:
            return await endpoint(ready.result().discovery, request)
        return handle

    async def websocket(request: web.Request) -> web.StreamResponse:
        return await ready.result().websocket(request)

    app = web.Application(middlewares=[gatekeeper])
    for path, method, endpoint in ENDPOINTS:
        app.router.add_route(method, path, discovery(endpoint))
        app.router.add_route(method, path + "/", discovery(endpoint))
    app.router.add_get("/devtools/browser/{browser_id}", websocket)
    app.router.add_get("/devtools/page/{target_id}", websocket)
    return app


async def _listen(app: web.Application, options: GuardOptions) -> tuple[web.AppRunner, int]:
    try:
        return await start_app(app, options.host, options.port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise GuardStartError(f"port {options.port} on {options.host} is in use; "
                                  "choose another with --port", EXIT_BAD_INPUT) from None
        raise GuardStartError(f"cannot listen on {options.host}:{options.port}: "
                              f"{exc.strerror}", EXIT_BAD_INPUT) from None


def _open_record(options: GuardOptions, upstream: Upstream) -> RecordWriter | None:
    path = options.record_path
    if path is None:
        if options.film is not None:
            raise GuardStartError("filming needs a record: the frames are listed in it",
                                  EXIT_BAD_INPUT)
        return None
    # Only now: a guard that cannot reach Chrome or bind its port leaves no folder behind.
    make_parent(path, "--record")
    film = options.film
    if film is not None:
        try:
            moved_film = prepare_folder(film.folder)
        except OSError as exc:
            raise GuardStartError(f"--film {film.folder}: cannot use it for the film: "
                                  f"{exc.strerror or exc}", EXIT_BAD_INPUT) from None
        if moved_film is not None:
            log.info("moved the previous film to %s", moved_film)
    moved = set_aside(path)
    if moved is not None:
        log.info("moved the previous record to %s", moved)
    return start_record(path, upstream, options.config, options.fault, film)


def _camera(options: GuardOptions, guardian: Guardian, reports: Reports,
            writer: RecordWriter | None) -> Camera | None:
    if options.film is None or writer is None:
        return None
    camera = Camera(guardian.conn, guardian.targets, reports.redactor, writer, options.film,
                    options.config)
    camera.attach()
    reports.actions = True
    return camera


async def _install(http: aiohttp.ClientSession, upstream: Upstream, options: GuardOptions,
                   reports: Reports) -> Guardian:
    scripts = PageScripts(options.config.deny_clicks, reports)
    try:
        return await Guardian.start(http, upstream.browser_ws, options.config,
                                    FaultState(options.fault), reports, scripts)
    except (aiohttp.ClientError, OSError) as exc:
        raise GuardStartError(f"could not open Chrome's browser websocket: {exc}") from None
    except PreloadSwitchError as exc:
        raise GuardStartError("could not turn off Chrome's speculative loading ('Preload "
                              f"pages', which the net cannot see): {exc}") from None
    except (CdpError, ConnectionLost, TimeoutError) as exc:
        raise GuardStartError("could not put the guard's net in place: "
                              f"{exc or 'Chrome did not answer in time'}") from None


async def run_guard(options: GuardOptions) -> int:
    server = await GuardServer.start(options)
    return await server.run_until_stopped()
