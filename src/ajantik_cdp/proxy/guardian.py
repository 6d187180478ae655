"""The guard's own DevTools session on every target.

On its own browser connection the guardian auto-attaches to every target, old and new,
in every browser context, with ``waitForDebuggerOnStart``. On each one it installs Fetch
interception (and auto-attach, so the target's frames and workers come to it paused too)
and only then releases it. A target it cannot install itself on stays paused and is marked
FAILED, so the client gate refuses every command for it.

Paused requests go to the Interceptor (``interceptor.py``).
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
from ajantik_cdp.core.rules import fetch_patterns
from ajantik_cdp.core.targets import DOCUMENT_TYPES, TargetState, install_plan, is_settled
from ajantik_cdp.proxy.cdp_connection import CdpConnection, CdpError, ConnectionLost
from ajantik_cdp.proxy.events import GuardEvents
from ajantik_cdp.proxy.interceptor import Interceptor
from ajantik_cdp.proxy.page_scripts import PageScripts

log = logging.getLogger("ajantik.cdp")

AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}


@dataclass
class Target:
    target_id: str
    target_type: str
    session_id: str
    url: str
    state: TargetState = TargetState.PENDING


@dataclass
class _Settle:
    event: asyncio.Event = field(default_factory=asyncio.Event)


class Guardian:
    def __init__(self, config: GuardConfig, faults: FaultState, events: GuardEvents,
                 scripts: PageScripts) -> None:
        self.config = config
        self.faults = faults
        self.events = events
        self.scripts = scripts
        self.targets: dict[str, Target] = {}
        self.by_session: dict[str, Target] = {}
        self._settles: dict[str, _Settle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.interceptor = Interceptor(self)
        self.conn: CdpConnection | None = None

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self, http: aiohttp.ClientSession, browser_ws_url: str) -> None:
        ws = await http.ws_connect(browser_ws_url, max_msg_size=0, compress=0, autoping=True)
        self.conn = CdpConnection(ws, self._on_event)
        await self.conn.send("Target.setDiscoverTargets", {"discover": True})
        # Chrome sends attachedToTarget for every existing target before it answers.
        await self.conn.send("Target.setAutoAttach", AUTO_ATTACH)
        pending = [self.wait_settled(tid, 30.0) for tid in list(self.targets)]
        await asyncio.gather(*pending)

    @property
    def closed(self) -> asyncio.Event:
        assert self.conn is not None
        return self.conn.closed

    async def close(self) -> None:
        # Let reports already under way (block and request lines) reach the record first:
        # a clean stop must not lose a line the guard has already decided to write.
        pending = [t for t in self._tasks if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=2.0)
        for task in list(self._tasks):
            task.cancel()
        if self.conn is not None:
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
        target = self.targets.get(target_id)
        return target.state if target else TargetState.UNKNOWN

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
            self.interceptor.on_paused(msg.get("sessionId", ""), params)
        elif method == "Target.attachedToTarget":
            self._on_attached(params)
        elif method == "Target.detachedFromTarget":
            target = self.by_session.pop(params.get("sessionId", ""), None)
            if target is not None and self.targets.get(target.target_id) is target:
                del self.targets[target.target_id]
        elif method == "Target.targetInfoChanged":
            info = params.get("targetInfo") or {}
            target = self.targets.get(info.get("targetId", ""))
            if target is not None:
                target.url = info.get("url", target.url)
        elif method == "Runtime.bindingCalled":
            self.scripts.on_binding(self, msg.get("sessionId", ""), params)

    def _on_attached(self, params: dict[str, Any]) -> None:
        info = params["targetInfo"]
        target = Target(
            target_id=info["targetId"],
            target_type=info.get("type", "other"),
            session_id=params["sessionId"],
            url=info.get("url", ""),
        )
        # A target attached again (after a detach) starts over as PENDING: clients wait
        # until the guard is back in place.
        self.targets[target.target_id] = target
        self.by_session[target.session_id] = target
        self.spawn(self._install(target, bool(params.get("waitingForDebugger"))))

    async def _install(self, target: Target, waiting: bool) -> None:
        assert self.conn is not None
        conn = self.conn
        sid = target.session_id
        plan = install_plan(target.target_type)
        if plan.exempt:
            if waiting:
                await conn.send_and_forget("Runtime.runIfWaitingForDebugger", None, sid)
            self._settle(target, TargetState.EXEMPT)
            return
        steps = []
        if plan.fetch:
            steps.append(conn.send("Fetch.enable", {"patterns": fetch_patterns(),
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
            if sid not in self.by_session:
                return  # detached while installing: nothing left to guard
            log.error(
                "could not guard %s %s (%s); it stays paused and no client command may "
                "reach it", target.target_type, target.target_id, failures[0],
            )
            self._settle(target, TargetState.FAILED)
            return
        if waiting:
            await conn.send_and_forget("Runtime.runIfWaitingForDebugger", None, sid)
        self._settle(target, TargetState.GUARDED)

    # -- navigation on behalf of the gate and /json/new ---------------------------------

    async def navigate_when_guarded(self, target_id: str, url: str, timeout: float) -> bool:
        assert self.conn is not None
        state = await self.wait_settled(target_id, timeout)
        target = self.targets.get(target_id)
        shown = self.events.redactor.url(url)  # logs mask URLs as the record does
        if state is not TargetState.GUARDED or target is None:
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
        assert self.conn is not None
        result = await self.conn.send("Target.createTarget", {"url": "about:blank"})
        target_id: str = result["targetId"]
        if url and url != "about:blank":
            await self.navigate_when_guarded(target_id, url, timeout)
        else:
            await self.wait_settled(target_id, timeout)
        return target_id

    def send(self, session_id: str, method: str, params: dict[str, Any]) -> None:
        """Send a command whose answer changes nothing (continue, fail, fulfill)."""
        assert self.conn is not None
        self.spawn(self.conn.send_and_forget(method, params, session_id))

    async def frame_url(self, target: Target, frame_id: str | None) -> str:
        """The URL of the frame a request came from (the target's URL for workers)."""
        if frame_id is None or target.target_type not in DOCUMENT_TYPES or self.conn is None:
            return target.url
        try:
            tree = await self.conn.send("Page.getFrameTree", None, target.session_id, 5.0)
        except (CdpError, ConnectionLost, TimeoutError):
            return target.url
        stack = [tree.get("frameTree", {})]
        while stack:
            node = stack.pop()
            frame = node.get("frame", {})
            if frame.get("id") == frame_id:
                return str(frame.get("url", target.url))
            stack.extend(node.get("childFrames", []))
        return target.url
