"""One client's DevTools websocket, bridged to its own connection to Chrome.

Frames flow unchanged in both directions, as text, in order, without compression. The
client-to-Chrome direction runs every message through the client gate. A message the gate
holds for its target waits in that target's line, and so does every later message for
the same target (the client's order on each target stays intact); messages for other
targets go on. Measured before: one target the guard never settled held every command
behind it 10 s each, so a client's connect stalled on a worker it did not care about.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from dataclasses import replace

import aiohttp
from aiohttp import web

from ajantik_cdp.core.guard.client_gate import ClientGate, Route, RouteKind
from ajantik_cdp.proxy.guardian import Guardian
from ajantik_cdp.proxy.reports import Reports

log = logging.getLogger("ajantik.cdp")


class ClientLink:
    def __init__(self, client: web.WebSocketResponse, upstream: aiohttp.ClientWebSocketResponse,
                 gate: ClientGate, guardian: Guardian, reports: Reports,
                 hold_timeout: float) -> None:
        self.client = client
        self.upstream = upstream
        self.gate = gate
        self.guardian = guardian
        self.reports = reports
        self.hold_timeout = hold_timeout
        self._navigations: set[asyncio.Task[bool]] = set()
        # Per target: the messages waiting for it to settle, each with when it came, in
        # the client's order; a target is in here while its line is being worked off.
        self._held: dict[str, deque[tuple[str, float]]] = {}
        self._lines: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        to_chrome = asyncio.create_task(self._client_to_chrome(), name="client->chrome")
        to_client = asyncio.create_task(self._chrome_to_client(), name="chrome->client")
        done, _ = await asyncio.wait({to_chrome, to_client}, return_when=asyncio.FIRST_COMPLETED)
        # Close the other side while its reader is still running: the reader then sees the
        # closing handshake and ends by itself. Cancelling a reader mid-receive instead
        # leaves aiohttp waiting out its close timeout (10 s) for a reply nobody reads.
        if to_client in done:
            await self.close(1011, "Chrome closed the connection")
        else:
            await self.close(1000, "")
        for line in list(self._lines):
            line.cancel()
        for task, result in zip((to_chrome, to_client),
                                await asyncio.gather(to_chrome, to_client, return_exceptions=True),
                                strict=True):
            if isinstance(result, BaseException) and not isinstance(
                    result, asyncio.CancelledError | ConnectionError):
                log.error("client link %s failed: %r", task.get_name(), result)

    async def close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self.upstream.close()
        with contextlib.suppress(Exception):
            await self.client.close(code=code, message=reason.encode())

    async def _client_to_chrome(self) -> None:
        async for frame in self.client:
            if frame.type is aiohttp.WSMsgType.TEXT:
                text = frame.data
            elif frame.type is aiohttp.WSMsgType.BINARY:
                # Chrome would drop the connection; the guard sends the same JSON as text.
                text = frame.data.decode("utf-8", "replace")
            else:
                break
            await self._route(text)

    async def _route(self, text: str) -> None:
        route = self.gate.route_text(text, self.guardian.status)
        target_id = route.target_id
        if target_id is not None and (route.kind is RouteKind.HOLD or target_id in self._held):
            # Behind its target's held messages, never in front of them, and never in
            # front of the other targets' messages either.
            line = self._held.get(target_id)
            if line is None:
                line = self._held[target_id] = deque()
                task = asyncio.create_task(self._work_off(target_id, line),
                                           name=f"held for {target_id}")
                self._lines.add(task)
                task.add_done_callback(self._line_done)
            line.append((text, asyncio.get_running_loop().time()))
            return
        await self._act(route)

    async def _work_off(self, target_id: str, line: deque[tuple[str, float]]) -> None:
        """Send one target's held messages in order, each once the target has settled or
        ``hold_timeout`` after it came (then it is refused)."""
        loop = asyncio.get_running_loop()
        try:
            while line:
                text, came = line[0]
                route = self.gate.route_text(text, self.guardian.status)
                if route.kind is RouteKind.HOLD:
                    left = came + self.hold_timeout - loop.time()
                    if left > 0:
                        await self.guardian.wait_settled(target_id, left)
                    route = self.gate.route_text(text, self.guardian.status)
                    if route.kind is RouteKind.HOLD:
                        # Still not guarded: answer the command with an error instead.
                        route = self.gate.refuse(text, route.target_id, self.hold_timeout)
                await self._act(route)
                line.popleft()
        except (ConnectionError, RuntimeError):
            pass  # the link is closing; run() reports why
        finally:
            if self._held.get(target_id) is line:
                del self._held[target_id]

    def _line_done(self, task: asyncio.Task[None]) -> None:
        self._lines.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("client link %s failed: %r", task.get_name(), task.exception())

    async def _act(self, route: Route) -> None:
        if route.kind is RouteKind.CHECK:
            assert route.press is not None and route.target_id is not None
            # Awaited here, so the client's later commands (its release) stay behind it.
            denial = await self.guardian.judge_press(route.target_id, route.press)
            if denial is not None:
                # Answered as done, as a swallowed press is; the release that follows
                # presses nothing.
                await self.client.send_str(route.swallow_reply)
                # The client did press: the film's timeline shows it, then the block.
                self.reports.client_command(route.command, route.target_id)
                self.reports.press_block(denial, route.target_id,
                                         self.guardian.targets.get(route.target_id))
                return
            route = replace(route, kind=RouteKind.FORWARD)
        if route.kind is RouteKind.FORWARD:
            await self.upstream.send_str(route.text)
            self.reports.client_command(route.command, route.target_id)
            if route.blocked is not None:
                b = route.blocked
                self.reports.client_block(b.session_id, b.target_id, b.facts, b.decision)
        else:
            await self.client.send_str(route.text)
            if route.refused_dialog is not None:
                self.reports.dialog_block(route.refused_dialog,
                                          self.guardian.targets.get(route.refused_dialog.target_id))

    async def _chrome_to_client(self) -> None:
        async for frame in self.upstream:
            if frame.type is not aiohttp.WSMsgType.TEXT:
                if frame.type is aiohttp.WSMsgType.BINARY:
                    await self.client.send_bytes(frame.data)
                    continue
                break
            text = frame.data
            if self.gate.wants(text):
                text, navs = self.gate.incoming(text)
                for nav in navs:
                    task = asyncio.create_task(self.guardian.navigate_when_guarded(
                        nav.target_id, nav.url, self.hold_timeout))
                    self._navigations.add(task)
                    task.add_done_callback(self._navigations.discard)
            await self.client.send_str(text)
