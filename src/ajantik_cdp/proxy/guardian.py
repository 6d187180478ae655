"""The guard's own DevTools connection: the browser-wide net and a session on every target.

On its own browser connection the guardian first enables Fetch on the browser session (the
net: every request of every target, attached or not, is paused there and decided by
``core/interception.py``), then auto-attaches to every target, old and new, in every
browser context, with ``waitForDebuggerOnStart``. On each one it installs auto-attach (so
the target's frames and workers come to it paused too) and the page scripts, and only then
releases it. A target it cannot install itself on stays paused and is marked FAILED, so
the client gate refuses every command for it.

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

from ajantik_cdp.core.config import GuardConfig
from ajantik_cdp.core.faults import FaultState
from ajantik_cdp.core.interception import Interception
from ajantik_cdp.core.rules import fetch_patterns
from ajantik_cdp.core.targets import Target, TargetBook, TargetState, install_plan, is_settled
from ajantik_cdp.proxy.cdp_connection import CdpConnection, CdpError, ConnectionLost
from ajantik_cdp.proxy.interceptor import Interceptor
from ajantik_cdp.proxy.page_scripts import PageScripts
from ajantik_cdp.proxy.reports import Reports

log = logging.getLogger("ajantik.cdp")

AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}


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
        self._settles: dict[str, _Settle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.interceptor = Interceptor(machine, conn, reports, self.spawn)
        conn.on_event = self._on_event

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
            await conn.send("Target.setDiscoverTargets", {"discover": True})
            # Chrome sends attachedToTarget for every existing target before it answers.
            await conn.send("Target.setAutoAttach", AUTO_ATTACH)
            pending = [guardian.wait_settled(t.target_id, 30.0) for t in guardian.targets
                       if t.session_id is not None]
            await asyncio.gather(*pending)
        except BaseException:
            await guardian.close()
            raise
        return guardian

    @property
    def closed(self) -> asyncio.Event:
        return self.conn.closed

    async def close(self) -> None:
        # Let reports already under way (block and request lines) reach the record first:
        # a clean stop must not lose a line the guard has already decided to write.
        pending = [t for t in self._tasks if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=2.0)
        for task in list(self._tasks):
            task.cancel()
        await self.conn.close()

    def spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            if not isinstance(exc, ConnectionLost):
                log.error("internal error: %r", exc, exc_info=exc)

    # -- target states (read by the client gate) ----------------------------------------

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

    # -- events -------------------------------------------------------------------------

    def _on_event(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        params = msg.get("params") or {}
        if method == "Fetch.requestPaused":
            self.interceptor.on_paused(msg.get("sessionId"), params)
        elif method == "Target.attachedToTarget":
            self._on_attached(params)
        elif method == "Target.detachedFromTarget":
            self.targets.detached(params.get("sessionId", ""))
        elif method in ("Target.targetCreated", "Target.targetInfoChanged"):
            info = params.get("targetInfo") or {}
            if isinstance(info.get("targetId"), str):
                self.targets.discovered(info["targetId"], str(info.get("type", "other")),
                                        str(info.get("url", "")))
        elif method == "Target.targetDestroyed":
            self.targets.destroyed(str(params.get("targetId", "")))
        elif method == "Runtime.bindingCalled":
            target = self.targets.by_session(msg.get("sessionId", ""))
            if target is not None:
                self.scripts.on_binding(target, params)

    def _on_attached(self, params: dict[str, Any]) -> None:
        info = params["targetInfo"]
        target = self.targets.attached(info["targetId"], info.get("type", "other"),
                                       params["sessionId"], info.get("url", ""))
        self.spawn(self._install(target, bool(params.get("waitingForDebugger"))))

    async def _install(self, target: Target, waiting: bool) -> None:
        conn = self.conn
        sid = target.session_id
        assert sid is not None
        plan = install_plan(target.target_type)
        if plan.exempt:
            if waiting:
                conn.post("Runtime.runIfWaitingForDebugger", None, sid)
            self._settle(target, TargetState.EXEMPT)
            return
        steps = []
        if plan.join_net:
            steps.append(conn.send("Fetch.enable", {"patterns": [],
                                                    "handleAuthRequests": False}, sid))
        if plan.auto_attach:
            steps.append(conn.send("Target.setAutoAttach", AUTO_ATTACH, sid))
        if plan.page_scripts:
            steps.extend(self.scripts.install_steps(conn, sid))
        results = await asyncio.gather(*steps, return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        if failures:
            if any(isinstance(f, ConnectionLost) for f in failures):
                return
            if self.targets.by_session(sid) is not target:
                return  # detached while installing: nothing left to guard
            log.error(
                "could not guard %s %s (%s); it stays paused and no client command may "
                "reach it", target.target_type, target.target_id, failures[0],
            )
            self._settle(target, TargetState.FAILED)
            return
        if waiting:
            conn.post("Runtime.runIfWaitingForDebugger", None, sid)
        self._settle(target, TargetState.GUARDED)

    # -- navigation on behalf of the gate and /json/new ---------------------------------

    async def navigate_when_guarded(self, target_id: str, url: str, timeout: float) -> bool:
        state = await self.wait_settled(target_id, timeout)
        target = self.targets.live(target_id)
        shown = self.reports.redactor.url(url)  # logs mask URLs as the record does
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
