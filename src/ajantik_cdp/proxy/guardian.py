"""The guard's own DevTools connection: the browser-wide net and a session on every target.

On its own browser connection the guardian first enables Fetch on the browser session (the
net: every request of every target, attached or not, is paused there and decided by
``core/guard/interception.py``), then auto-attaches to every target, old and new, in every
browser context, with ``waitForDebuggerOnStart``. On each one it installs auto-attach (so
the target's frames and workers come to it paused too), the WebSocket rules
(``websocket_guard.py``) and the page scripts, and releases it once the browser-side steps
are answered (renderer-side ones answer only after the release: see ``_install``). A
target it cannot install itself on is marked FAILED, so the client gate refuses every
command for it; one that failed before the release stays paused.

Three things the net cannot see are closed here too: speculative loads (Chrome's "Preload
pages" is turned off while the guard runs, ``preloading.py``, and turned off again if it
is found on, ``preload_watcher.py``), service workers' navigation
preload (guarded documents bypass service workers), and a stopped worker's restart, which
happens on its old session with no new attach (released on
``Inspector.targetReloadedAfterCrash``).

On each target's session Fetch is enabled too, with no patterns: it pauses nothing there,
but a document or worker that existed before the guard only sends its requests through
the browser session's net once its target has Fetch enabled (measured on Chrome 156).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from ajantik_cdp.core.guard import background_fetch
from ajantik_cdp.core.guard.browser_permissions import DeniedContexts
from ajantik_cdp.core.guard.client_gate import DIALOG_EVENTS
from ajantik_cdp.core.guard.dialog_presses import OpenDialogs
from ajantik_cdp.core.guard.input_presses import PressDenial, PressPoint, judge_ax_nodes
from ajantik_cdp.core.guard.interception import Interception
from ajantik_cdp.core.guard.privileged_urls import PRIVILEGED_REFUSAL, privileged_scheme
from ajantik_cdp.core.guard.targets import (
    TARGET_EVENTS,
    Target,
    TargetBook,
    TargetState,
    install_plan,
    is_settled,
)
from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.faults import FaultState
from ajantik_cdp.core.policy.rules import fetch_patterns
from ajantik_cdp.core.policy.socket_rules import socket_plan
from ajantik_cdp.proxy.cdp_connection import CdpConnection, CdpError, ConnectionLost
from ajantik_cdp.proxy.interceptor import Interceptor
from ajantik_cdp.proxy.page_scripts import PageScripts
from ajantik_cdp.proxy.preload_watcher import PreloadWatcher
from ajantik_cdp.proxy.preloading import PreloadLease
from ajantik_cdp.proxy.reports import Reports
from ajantik_cdp.proxy.shadow_roots import SHADOW_EVENTS
from ajantik_cdp.proxy.websocket_guard import NETWORK_ENABLE, WebSocketGuard

log = logging.getLogger("ajantik.cdp")

AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
# The guard enables Network on documents and workers (WebSocket rules, the service-worker
# bypass) for what the domain does, not for its events: Chrome sends it several per
# request (measured: ten per recorded write, 16 KB), which neither the guardian nor the
# camera reads, so they are dropped unparsed. Network.webSocketCreated is read.
UNREAD_EVENTS = frozenset({
    "Network.requestWillBeSent",
    "Network.requestWillBeSentExtraInfo",
    "Network.responseReceived",
    "Network.responseReceivedExtraInfo",
    "Network.dataReceived",
    "Network.loadingFinished",
    "Network.loadingFailed",
    "Network.requestServedFromCache",
    "Network.resourceChangedPriority",
    "Network.policyUpdated",
})
INSTALL_TIMEOUT = 30.0
# A press waits for Chrome's answer about the control under it at most this long; then it
# goes on to the page-side check.
PRESS_TIMEOUT = 3.0
# What became of a WebSocket after webSocketCreated (core/guard/socket_watch.py).
SOCKET_EVENTS = frozenset({
    "Network.webSocketWillSendHandshakeRequest",
    "Network.webSocketHandshakeResponseReceived",
    "Network.webSocketFrameError",
    "Network.webSocketClosed",
})


@dataclass
class _Settle:
    event: asyncio.Event = field(default_factory=asyncio.Event)


class Guardian:
    def __init__(self, conn: CdpConnection, machine: Interception, reports: Reports,
                 scripts: PageScripts) -> None:
        self.conn = conn
        self.targets = machine.targets
        self.reports = reports
        self.scripts = scripts
        self.sockets = WebSocketGuard(socket_plan(machine.config), reports, machine.config)
        self.sockets.target_of = self.targets.by_session
        # Dialogs open on guarded pages, from the guard's own Page events (Page is enabled
        # on its sessions wherever deny_clicks is set): the gate judges a client's accept.
        self.dialogs = OpenDialogs()
        self._settles: dict[str, _Settle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._probes: set[asyncio.Task[None]] = set()
        self._preloading: PreloadLease | None = None  # set once the guard holds it
        self.preload_watch = PreloadWatcher(conn, self._session_of, self._page_sessions,
                                            lambda: self._preloading is not None)
        self.denied_contexts = DeniedContexts()
        self._fetches_seen: set[tuple[str, str, bool]] = set()
        self._closing = False  # from here on no target starts Chrome recording again
        self.interceptor = Interceptor(machine, conn, reports, self.spawn)
        conn.on_event = self._on_event
        conn.unread = UNREAD_EVENTS

    # -- lifecycle ----------------------------------------------------------------------

    @classmethod
    async def start(cls, http: aiohttp.ClientSession, browser_ws_url: str,
                    config: GuardConfig, faults: FaultState, reports: Reports,
                    scripts: PageScripts) -> Guardian:
        """Connect, put the net in place, attach to every target and wait until each
        existing one is guarded (or could not be)."""
        ws = await http.ws_connect(browser_ws_url, max_msg_size=0, compress=0, autoping=True)
        conn = CdpConnection(ws)
        machine = Interception(config, faults, TargetBook(),
                               recording=reports.writer is not None)
        guardian = cls(conn, machine, reports, scripts)
        try:
            # The net goes first: from here on no request of any target leaves Chrome
            # undecided, whatever is attached or released later.
            await conn.send("Fetch.enable", {"patterns": fetch_patterns(),
                                             "handleAuthRequests": False})
            # Permissions whose channels leave from Chrome's own process
            # (core/guard/browser_permissions.py): denied in every context that exists,
            # and in each new one before its first target is released (``_install``).
            contexts = await conn.send("Target.getBrowserContexts")
            for context_id in [None, *contexts.get("browserContextIds", [])]:
                for method, params in guardian.denied_contexts.needed(context_id):
                    await conn.send(method, params)
            await conn.send("Target.setDiscoverTargets", {"discover": True})
            # Chrome sends attachedToTarget for every existing target before it answers.
            await conn.send("Target.setAutoAttach", AUTO_ATTACH)
            pending = [guardian.wait_settled(t.target_id, 30.0) for t in guardian.targets
                       if t.session_id is not None]
            await asyncio.gather(*pending)
            # Before any client: speculative loads escape the net (see preloading.py).
            lease = PreloadLease(browser_ws_url)
            await lease.hold(conn, guardian._session_of)
            guardian._preloading = lease
            # And it stays off: turned back on while the guard runs, it is noticed.
            guardian.preload_watch.start()
        except BaseException:
            await guardian.close()
            raise
        return guardian

    @property
    def closed(self) -> asyncio.Event:
        return self.conn.closed

    async def close(self, why: str = "the guard stopped before its answer came") -> None:
        # Let reports already under way (block and request lines) reach the record first:
        # a clean stop must not lose a line the guard has already decided to write. Probes
        # of requests whose page is gone sleep between tries: they are not waited for.
        await self.preload_watch.stop()  # before the lease is given back
        pending = [t for t in self._tasks if not t.done() and t not in self._probes]
        if pending:
            await asyncio.wait(pending, timeout=2.0)
        for task in list(self._tasks):
            task.cancel()
        # What the guard still holds gets its line (a lost answer, with why), while the
        # connection is still open for a block or fault still to be carried out.
        self.interceptor.stop(why if not self.conn.closed.is_set()
                              else "the guard lost Chrome before the answer came")
        await asyncio.sleep(0)  # reports the stop queued reach the record
        lease, self._preloading = self._preloading, None
        try:
            if lease is not None:
                await lease.release(self.conn, self._session_of)
        finally:
            # Last: giving the lease back opens a settings tab, which the guard installs
            # itself on, and recording with it.
            self._closing = True
            await self._stop_recording()
            await self.conn.close()

    async def _stop_recording(self) -> None:
        # Recording is the profile's, not the session's: left on, Chrome would keep
        # logging background fetches in the person's profile after the guard. Awaited:
        # a command only queued is lost when the connection closes right after.
        method, params = background_fetch.STOP_RECORDING
        for page in [t for t in self.targets if t.target_type == "page"
                     and t.session_id is not None and t.state is TargetState.GUARDED]:
            with contextlib.suppress(CdpError, ConnectionLost, TimeoutError):
                await self.conn.send(method, params, page.session_id, 2.0)

    def _on_background_fetch(self, session_id: Any, params: dict[str, Any]) -> None:
        found = background_fetch.denied_fetch(self.interceptor.machine.config, params)
        if found is None or not isinstance(session_id, str):
            return
        key = (found.origin, found.url, found.sent)
        if key in self._fetches_seen:
            return  # every page session in the context hears the same event
        self._fetches_seen.add(key)
        if found.sent:
            log.error("GOT THROUGH: a background fetch of %s from %s reached the network "
                      "(denied by %s)", found.url, found.origin, found.decision.reason)
            return
        method, command = background_fetch.clear_command(found.origin)
        self.conn.post(method, command, session_id)
        log.warning("background fetch of %s from %s refused (%s): the site's service "
                    "workers were removed, which ends the job before it sends",
                    found.url, found.origin, found.decision.reason)

    async def _session_of(self, target_id: str) -> str | None:
        """The guard's own session on a target once it is guarded (for the settings tab)."""
        await self.wait_settled(target_id, 15.0)
        target = self.targets.live(target_id)
        if target is None or target.state is not TargetState.GUARDED:
            return None
        return target.session_id

    def _page_sessions(self) -> list[str]:
        """The guard's sessions on guarded pages (where the preference can be read)."""
        return [t.session_id for t in self.targets if t.target_type == "page"
                and t.state is TargetState.GUARDED and t.session_id is not None]

    def spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coro)
        self._tasks.add(task)
        if getattr(coro, "__name__", "") == "_probe":
            self._probes.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._probes.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            if not isinstance(exc, ConnectionLost):
                log.error("internal error: %r", exc, exc_info=exc)

    # -- a client's presses at a point (judged before they are forwarded) ---------------

    async def judge_press(self, target_id: str, point: PressPoint) -> PressDenial | None:
        """What Chrome's tree calls the control at ``point``, judged by deny_clicks; None
        (the press goes on, and the page-side check judges it) when it cannot be told."""
        target = self.targets.get(target_id)
        sid = target.session_id if target is not None else None
        if target is None or sid is None or target.state is not TargetState.GUARDED:
            return None
        try:
            hit = await self.conn.send("DOM.getNodeForLocation", {
                "x": round(point.x), "y": round(point.y), "includeUserAgentShadowDOM": False,
                "ignorePointerEventsNone": False}, sid, timeout=PRESS_TIMEOUT)
            backend = hit.get("backendNodeId")
            if not isinstance(backend, int):
                return None
            tree = await self.conn.send("Accessibility.getPartialAXTree", {
                "backendNodeId": backend, "fetchRelatives": True}, sid, timeout=PRESS_TIMEOUT)
        except (CdpError, TimeoutError, ConnectionLost):
            return None
        nodes = tree.get("nodes") if isinstance(tree, dict) else None
        return judge_ax_nodes(self.scripts.patterns, nodes if isinstance(nodes, list) else [],
                              backend, point.event)

    # -- target states (read by the client gate) ----------------------------------------

    def target_url(self, target_id: str) -> str:
        """The target's URL as the guard last heard it ("" for one it does not know)."""
        target = self.targets.live(target_id)
        return target.url if target is not None else ""

    def status(self, target_id: str) -> TargetState:
        return self.targets.status(target_id)

    async def wait_settled(self, target_id: str, timeout: float) -> TargetState:
        if is_settled(self.status(target_id)):
            return self.status(target_id)
        settle = self._settles.setdefault(target_id, _Settle())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(settle.event.wait(), timeout)
        return self.status(target_id)

    def _settle(self, target: Target, state: TargetState) -> None:
        target.state = state
        settle = self._settles.pop(target.target_id, None)
        if settle is not None:
            settle.event.set()

    def _wake(self, target_id: str) -> None:
        """A target that went away while someone waited for it to settle: nothing is left
        to guard, so the waiter goes on now. Measured: a guard started while the previous
        guard's settings tab was closing waited out its 30 s for that tab."""
        settle = self._settles.pop(target_id, None)
        if settle is not None:
            settle.event.set()

    # -- events -------------------------------------------------------------------------

    def _on_event(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        params = msg.get("params") or {}
        if method == "Fetch.requestPaused":
            self.interceptor.on_paused(msg.get("sessionId"), params)
        elif self.preload_watch.on_event(msg):
            pass
        elif method in SOCKET_EVENTS:
            target = self.targets.by_session(msg.get("sessionId", ""))
            if target is not None:
                step = self.sockets.on_socket_event(target, method, params)
                if step is not None:
                    # At once, before anything else this connection sends.
                    self.conn.post(step.method, step.params, step.session_id)
        elif method in TARGET_EVENTS:
            if method == "Target.attachedToTarget":
                self.sockets.attached(str(params.get("sessionId")), msg.get("sessionId"))
            elif method == "Target.detachedFromTarget":
                self.sockets.detached(str(params.get("sessionId")))
            news = self.targets.news(method, params)
            if news is not None and news.attached is not None:
                info = params.get("targetInfo") or {}
                context_id = info.get("browserContextId") if isinstance(info, dict) else None
                self.spawn(self._install(news.attached, news.waiting,
                                         context_id if isinstance(context_id, str) else None))
            elif news is not None and news.gone is not None:
                self._wake(news.gone)
                self.dialogs.gone(news.gone)
                # Its requests still awaiting their answer may never get one.
                self.interceptor.target_gone(news.gone)
        elif method in SHADOW_EVENTS:
            target = self.targets.by_session(msg.get("sessionId", ""))
            if target is not None and self.scripts.source:
                self.scripts.shadow.on_event(target, method, params)
        elif method in DIALOG_EVENTS:
            target = self.targets.by_session(msg.get("sessionId", ""))
            self.dialogs.event(target.target_id if target else None, method, params)
        elif method == background_fetch.EVENT:
            self._on_background_fetch(msg.get("sessionId"), params)
        elif method == "Inspector.targetCrashed":
            # A worker that stopped (idle, or ServiceWorker.stopAllWorkers): its session
            # stays, and it starts again on it, waiting for the debugger.
            target = self.targets.by_session(msg.get("sessionId", ""))
            if target is not None:
                target.state = TargetState.PENDING
                # A crashed renderer's requests are cancelled like a closed page's.
                self.interceptor.target_gone(target.target_id)
        elif method == "Target.targetCrashed":
            # A page's renderer died (setDiscoverTargets tells of it): its requests are
            # cancelled like a closed page's, and the target stays.
            crashed = params.get("targetId")
            if isinstance(crashed, str):
                self.interceptor.target_gone(crashed)
        elif method == "Inspector.targetReloadedAfterCrash":
            target = self.targets.by_session(msg.get("sessionId", ""))
            if target is not None:
                self.spawn(self._release_restarted(target))
        elif method == "Network.webSocketCreated":
            target = self.targets.by_session(msg.get("sessionId", ""))
            if target is not None:
                self.sockets.on_created(target, params)
        elif method == "Runtime.consoleAPICalled":
            target = self.targets.by_session(msg.get("sessionId", ""))
            if target is not None:
                self.sockets.on_console(target, params)
        elif method == "Runtime.bindingCalled":
            target = self.targets.by_session(msg.get("sessionId", ""))
            if target is not None and not self.sockets.on_binding(target, params):
                self.scripts.on_binding(target, params)

    async def _install(self, target: Target, waiting: bool,
                       context_id: str | None = None) -> None:
        conn = self.conn
        sid = target.session_id
        assert sid is not None
        plan = install_plan(target.target_type)
        if plan.exempt:
            if waiting:
                conn.post("Runtime.runIfWaitingForDebugger", None, sid)
            self._settle(target, TargetState.EXEMPT)
            return
        # Browser-side steps (the net, auto-attach) answer while the target waits for the
        # debugger; renderer-side ones (page scripts, WebSocket rules) answer only once it
        # runs. Measured on Chrome 156 with popups that open in a new process (noopener,
        # form target=_blank): awaiting a renderer-side step before the release deadlocks.
        # So all are queued now, in order (Chrome applies them before the first document),
        # the browser-side ones are awaited, the target released, then the rest awaited.
        browser_side = [(method, conn.start(method, params, None)) for method, params
                        in self.denied_contexts.needed(context_id)]
        if target.target_type == "page" and not self._closing:
            # Background Fetch's requests leave outside the net; Chrome names each one on
            # a page session first (core/guard/background_fetch.py).
            browser_side += [(method, conn.start(method, params, sid))
                             for method, params in background_fetch.OBSERVE]
        if plan.join_net:
            browser_side.append(("Fetch.enable", conn.start(
                "Fetch.enable", {"patterns": [], "handleAuthRequests": False}, sid)))
        if plan.auto_attach:
            browser_side.append(("Target.setAutoAttach",
                                 conn.start("Target.setAutoAttach", AUTO_ATTACH, sid)))
        before, renderer_side = self.sockets.install_steps(conn, sid, target.target_type)
        browser_side += before
        if plan.watch_restarts:
            # Inspector events are how a stopped worker's restart shows (targetCrashed,
            # then targetReloadedAfterCrash on the same session). Workers answer it while
            # they wait for the debugger.
            browser_side.append(("Inspector.enable", conn.start("Inspector.enable", None, sid)))
        if plan.bypass_service_workers:
            # Documents answer Network commands only once released (see above), so these
            # are queued before the release and awaited after it. One Network.enable per
            # session: the WebSocket rules may have sent it already.
            if not any(method == "Network.enable" for method, _ in before + renderer_side):
                renderer_side.append(("Network.enable", conn.start(
                    "Network.enable", NETWORK_ENABLE, sid)))
            renderer_side.append(("Network.setBypassServiceWorker", conn.start(
                "Network.setBypassServiceWorker", {"bypass": True}, sid)))
        if plan.page_scripts:
            renderer_side += self.scripts.install_steps(conn, sid, target.target_id)
        if not await self._installed(target, browser_side, released=False):
            return
        if waiting and renderer_side:
            # Measured through the guard with Playwright attached: a popup in a new process
            # starts only once every session that holds it has released it, and the gate
            # holds the client's release while the target is PENDING. So it opens here;
            # the guard's own renderer-side steps are already on the wire, ahead of any
            # command the client sends from now on, and a failure still closes the gate.
            conn.post("Runtime.runIfWaitingForDebugger", None, sid)
            self._settle(target, TargetState.GUARDED)
            await self._installed(target, renderer_side, released=True)
            return
        if waiting:
            conn.post("Runtime.runIfWaitingForDebugger", None, sid)
        if await self._installed(target, renderer_side, released=waiting):
            self._settle(target, TargetState.GUARDED)

    async def _installed(self, target: Target, steps: list[tuple[str, asyncio.Future[Any]]],
                         released: bool) -> bool:
        results = await asyncio.gather(
            *(CdpConnection.answer(fut, method, INSTALL_TIMEOUT) for method, fut in steps),
            return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        if not failures:
            return True
        if any(isinstance(f, ConnectionLost) for f in failures):
            return False
        if self.targets.by_session(target.session_id or "") is not target:
            return False  # detached while installing: nothing left to guard
        log.error(
            "could not guard %s %s (%s); %s and no client command may reach it",
            target.target_type, target.target_id, failures[0],
            "it runs without the guard's scripts" if released else "it stays paused",
        )
        self._settle(target, TargetState.FAILED)
        return False

    async def _release_restarted(self, target: Target) -> None:
        """A worker started again on its old session: Chrome sends no new attach, so
        without this it waits for the debugger for good (and so do the pages it serves)."""
        sid = target.session_id
        assert sid is not None
        plan = install_plan(target.target_type)
        try:
            if plan.join_net:
                # Idempotent; the new instance's loaders join the net as the first one's did.
                await self.conn.send("Fetch.enable", {"patterns": [],
                                                      "handleAuthRequests": False}, sid)
        except (CdpError, TimeoutError) as exc:
            if self.targets.by_session(sid) is target:
                log.error("could not guard restarted %s %s (%s); it stays paused",
                          target.target_type, target.target_id, exc)
                self._settle(target, TargetState.FAILED)
            return
        # The new instance has a new global scope: the WebSocket check again, queued ahead
        # of the release (it answers only once the worker runs, as at its first start).
        steps = self.sockets.restart_steps(self.conn, sid, target.target_type)
        self.conn.post("Runtime.runIfWaitingForDebugger", None, sid)
        self._settle(target, TargetState.GUARDED)
        await self._installed(target, steps, released=True)

    # -- navigation on behalf of the gate and /json/new ---------------------------------

    async def navigate_when_guarded(self, target_id: str, url: str, timeout: float) -> bool:
        state = await self.wait_settled(target_id, timeout)
        target = self.targets.live(target_id)
        shown = self.reports.redactor.url(url)  # logs mask URLs as the record does
        why = privileged_scheme(url)
        if why is not None:
            log.error("did not open %s: %s", shown, PRIVILEGED_REFUSAL.format(why=why))
            return False
        if state is not TargetState.GUARDED or target is None or target.session_id is None:
            log.error("did not open %s in target %s: it is not guarded (%s)", shown,
                      target_id, state.value)
            return False
        try:
            await self.conn.send("Page.navigate", {"url": url}, target.session_id)
        except CdpError as exc:
            log.error("could not open %s in target %s: %s", shown, target_id, exc)
            return False
        return True

    async def create_tab(self, url: str, timeout: float) -> str:
        """Open a tab blank, wait until it is guarded, then navigate it (for /json/new)."""
        result = await self.conn.send("Target.createTarget", {"url": "about:blank"})
        target_id: str = result["targetId"]
        if url and url != "about:blank":
            await self.navigate_when_guarded(target_id, url, timeout)
        else:
            await self.wait_settled(target_id, timeout)
        return target_id
