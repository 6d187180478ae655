"""A minimal raw DevTools client for benchmarks (websockets, text frames), so the numbers
measure Chrome and the guard, not a client library's own machinery."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import aiohttp
import orjson
import websockets


async def open_browser_socket(http_base: str) -> Any:
    """A websocket on Chrome's browser session (text frames, no compression, no pings)."""
    async with aiohttp.ClientSession() as http, \
            http.get(http_base + "/json/version") as resp:
        url = orjson.loads(await resp.read())["webSocketDebuggerUrl"]
    return await websockets.connect(url, max_size=None, compression=None,
                                    ping_interval=None)


class RawCdp:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.waiters: dict[str, list[asyncio.Future[Any]]] = {}
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, http_base: str) -> RawCdp:
        return cls(await open_browser_socket(http_base))

    async def _read(self) -> None:
        async for frame in self.ws:
            msg = orjson.loads(frame)
            if "id" in msg:
                fut = self.pending.pop(msg["id"], None)
                if fut and not fut.done():
                    fut.set_result(msg)
            else:
                for fut in self.waiters.pop(msg.get("method", ""), []):
                    if not fut.done():
                        fut.set_result(msg)

    async def send(self, method: str, params: dict[str, Any] | None = None,
                   session: str | None = None) -> Any:
        msg_id = next(self.ids)
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = fut
        await self.ws.send(orjson.dumps(msg).decode())
        reply = await asyncio.wait_for(fut, 60)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def expect(self, method: str) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiters.setdefault(method, []).append(fut)
        return fut

    async def new_page(self) -> tuple[str, str]:
        target = (await self.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        session = (await self.send("Target.attachToTarget",
                                   {"targetId": target, "flatten": True}))["sessionId"]
        return target, session

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()
