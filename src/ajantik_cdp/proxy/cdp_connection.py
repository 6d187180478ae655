"""A DevTools connection the guard itself speaks on (its own session, not a client's)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import aiohttp
import orjson


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
    def __init__(self, ws: aiohttp.ClientWebSocketResponse, on_event: EventHandler) -> None:
        self._ws = ws
        self._on_event = on_event
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, asyncio.Future[Any]]] = {}
        self.closed = asyncio.Event()
        self._reader = asyncio.create_task(self._read(), name="cdp-reader")

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                if frame.type is not aiohttp.WSMsgType.TEXT:
                    if frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.ERROR):
                        break
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
                    self._on_event(msg)
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

    async def send(self, method: str, params: dict[str, Any] | None = None,
                   session_id: str | None = None, timeout: float = 30.0) -> Any:
        if self.closed.is_set():
            raise ConnectionLost(f"{method}: connection to Chrome closed")
        msg_id, text = self._encode(method, params, session_id)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = (method, fut)
        await self._ws.send_str(text)
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._pending.pop(msg_id, None)

    async def send_and_forget(self, method: str, params: dict[str, Any] | None = None,
                              session_id: str | None = None) -> None:
        """For commands whose answer changes nothing (continue, fail, release)."""
        if self.closed.is_set():
            return
        _, text = self._encode(method, params, session_id)
        await self._ws.send_str(text)

    async def close(self) -> None:
        await self._ws.close()
        await asyncio.gather(self._reader, return_exceptions=True)
