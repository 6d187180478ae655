"""A DevTools connection the guard itself speaks on (its own session, not a client's).

Every outgoing message goes through one outbox, written by one task, so messages leave in
the order they were posted (Chrome acts on a session's commands in order: a body read
posted before the answer is passed on is answered first), and a decision can be posted
from plain code, without creating a task per message.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable
from typing import Any

import aiohttp
import orjson

from ajantik_cdp.core.guard.event_text import event_method


class CdpError(Exception):
    def __init__(self, method: str, error: Any) -> None:
        self.method = method
        self.error = error
        message = error.get("message") if isinstance(error, dict) else error
        super().__init__(f"{method}: {message}")


class ConnectionLost(Exception):
    pass


EventHandler = Callable[[dict[str, Any]], None]


class CdpConnection:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse,
                 on_event: EventHandler | None = None) -> None:
        self._ws = ws
        # Set by the owner before its first await: events arrive only once the loop runs.
        self.on_event: EventHandler = on_event or (lambda msg: None)
        # Events no handler on this connection reads, named by the owner: dropped before
        # the parser (see ``core/guard/event_text.py``).
        self.unread: frozenset[str] = frozenset()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, asyncio.Future[Any]]] = {}
        self.closed = asyncio.Event()
        self._outbox: deque[str] = deque()
        self._writer: asyncio.Task[None] | None = None
        self._reader = asyncio.create_task(self._read(), name="cdp-reader")

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                if frame.type is not aiohttp.WSMsgType.TEXT:
                    if frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.ERROR):
                        break
                    continue
                if self.unread and event_method(frame.data) in self.unread:
                    continue
                msg = orjson.loads(frame.data)
                msg_id = msg.get("id")
                if msg_id is not None:
                    entry = self._pending.pop(msg_id, None)
                    if entry is None:
                        continue
                    method, fut = entry
                    if fut.done():
                        continue
                    if "error" in msg:
                        fut.set_exception(CdpError(method, msg["error"]))
                    else:
                        fut.set_result(msg.get("result", {}))
                else:
                    self.on_event(msg)
        finally:
            self.closed.set()
            for method, fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionLost(f"{method}: connection to Chrome closed"))
            self._pending.clear()

    def _encode(self, method: str, params: dict[str, Any] | None,
                session_id: str | None) -> tuple[int, str]:
        msg_id = next(self._ids)
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session_id is not None:
            msg["sessionId"] = session_id
        # Chrome drops a DevTools websocket that receives a binary frame: send text.
        return msg_id, orjson.dumps(msg).decode()

    def _queue(self, text: str) -> None:
        self._outbox.append(text)
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="cdp-writer")

    async def _write(self) -> None:
        try:
            while self._outbox:
                await self._ws.send_str(self._outbox.popleft())
        except (ConnectionError, RuntimeError):
            self._outbox.clear()  # the reader sees the close and fails what is pending
        finally:
            self._writer = None

    async def send(self, method: str, params: dict[str, Any] | None = None,
                   session_id: str | None = None, timeout: float = 30.0) -> Any:
        return await self.answer(self.start(method, params, session_id), method, timeout)

    def start(self, method: str, params: dict[str, Any] | None = None,
              session_id: str | None = None) -> asyncio.Future[Any]:
        """Queue a command now and return the future of its answer (await it with
        ``answer``). For a target still waiting for the debugger: its renderer-side
        commands must be on the wire before the release, but answer only after it."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        # Whoever drops the future (a target that went away) must not leave an
        # unretrieved exception behind.
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())
        if self.closed.is_set():
            fut.set_exception(ConnectionLost(f"{method}: connection to Chrome closed"))
            return fut
        msg_id, text = self._encode(method, params, session_id)
        self._pending[msg_id] = (method, fut)
        fut.add_done_callback(lambda _: self._pending.pop(msg_id, None))
        self._queue(text)
        return fut

    @staticmethod
    async def answer(fut: asyncio.Future[Any], method: str, timeout: float = 30.0) -> Any:
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            fut.cancel()
            raise TimeoutError(f"{method}: no answer in {timeout:g} s") from None

    def post(self, method: str, params: dict[str, Any] | None = None,
             session_id: str | None = None) -> None:
        """For commands whose answer changes nothing (continue, fail, release): queued at
        once, in order with everything else sent on this connection."""
        if self.closed.is_set():
            return
        self._queue(self._encode(method, params, session_id)[1])

    async def close(self) -> None:
        if self._writer is not None:
            # What was decided before the stop still reaches Chrome (a fail, a release).
            await asyncio.wait({self._writer}, timeout=2.0)
        await self._ws.close()
        await asyncio.gather(self._reader, return_exceptions=True)
