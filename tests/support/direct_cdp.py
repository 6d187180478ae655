"""A bare DevTools client over websockets, for tests that play "a script on Chrome's own
port": no client library, text frames, events handed to a callback as they arrive."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import orjson
import websockets

from tests.support.http import browser_ws


class DirectCdp:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self.on_event: Callable[[dict[str, Any]], None] = lambda msg: None
        self._reader = asyncio.create_task(self._read())
        self._sends: set[asyncio.Task[None]] = set()

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                msg = orjson.loads(frame)
                if "id" in msg:
                    fut = self._pending.pop(msg["id"], None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                else:
                    self.on_event(msg)
        except websockets.ConnectionClosed:
            pass

    def post(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> asyncio.Future[Any]:
        """Send at once (no await before the bytes go out); the future holds the reply."""
        msg_id = next(self._ids)
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        task = asyncio.ensure_future(self.ws.send(orjson.dumps(msg).decode()))
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)
        return fut

    async def send(self, method: str, params: dict[str, Any] | None = None,
                   session: str | None = None) -> Any:
        reply = await asyncio.wait_for(self.post(method, params, session), 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})


@asynccontextmanager
async def direct(http_base: str) -> AsyncIterator[DirectCdp]:
    """A browser-level connection to the DevTools endpoint at ``http_base``."""
    url = await browser_ws(http_base)
    async with websockets.connect(url, max_size=None, compression=None) as ws:
        client = DirectCdp(ws)
        try:
            yield client
        finally:
            client._reader.cancel()
