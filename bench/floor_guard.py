"""The floor under the whole guard: what any guard built as this one is pays before it
decides or records anything.

`python bench/floor_guard.py HTTP_URL` runs, in one process on uvloop as the guard does,

- a bare relay: an aiohttp server that hands clients its own ``/json/version`` and pipes
  every DevTools websocket to Chrome and back as text frames, reading nothing;
- the bare net with answers and sessions (``bare_net.hold(answers=True,
  sessions=True)``): every request the guard pauses is paused, each write is also
  paused at the response stage and its body read before it goes on, which is how the
  guard gets a write's answer for the record, and every page has a session with Fetch
  (no patterns) and Network with the service-worker bypass, which the guard's
  guarantees need there (see ``bare_net.hold``).

It prints ``floor ready PORT``. bench_guard.py runs it as a side of its own, the
``floor`` column: the guard's ratio over it is the guard's own cost (the gate, the
rules, its page scripts, the record), and its ratio over direct is the
price of the design: a Python process in the path, two pauses of each recorded write,
and the Network domain's events of every request on every page (about ten per write).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

import aiohttp
import uvloop
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bare_net

from ajantik_cdp.local_http import start_app

READY = "floor ready"


def relay_app(upstream: str, http: aiohttp.ClientSession) -> web.Application:
    async def version(request: web.Request) -> web.Response:
        async with http.get(upstream + "/json/version") as resp:
            data = await resp.json()
        chrome = upstream.split("//", 1)[1]
        data["webSocketDebuggerUrl"] = data["webSocketDebuggerUrl"].replace(
            chrome, request.host)
        return web.json_response(data)

    async def pipe(request: web.Request) -> web.WebSocketResponse:
        client = web.WebSocketResponse(max_msg_size=0, compress=False)
        await client.prepare(request)
        ws_url = "ws" + upstream.removeprefix("http") + request.path
        async with http.ws_connect(ws_url, max_msg_size=0, compress=0) as chrome:

            async def one_way(src: Any, dst: Any) -> None:
                async for frame in src:
                    if frame.type is not aiohttp.WSMsgType.TEXT:
                        break
                    await dst.send_str(frame.data)

            ways = [asyncio.create_task(one_way(client, chrome)),
                    asyncio.create_task(one_way(chrome, client))]
            await asyncio.wait(ways, return_when=asyncio.FIRST_COMPLETED)
            for way in ways:
                way.cancel()
        await client.close()
        return client

    app = web.Application()
    app.router.add_get("/json/version", version)
    app.router.add_get("/devtools/{rest:.*}", pipe)
    return app


async def serve(upstream: str) -> None:
    async with aiohttp.ClientSession() as http:
        runner, port = await start_app(relay_app(upstream, http))
        try:
            await bare_net.hold(upstream, answers=True, sessions=True,
                                ready=lambda: print(f"{READY} {port}", flush=True))
        finally:
            with contextlib.suppress(Exception):
                await runner.cleanup()


if __name__ == "__main__":
    uvloop.run(serve(sys.argv[1]))
