"""The floor under the guard's net: the least a browser-wide request pause can cost.

`python bench/bare_net.py HTTP_URL [--answers] [--sessions]` attaches to Chrome's browser
session, enables Fetch with the guard's own patterns (every non-static request paused at
the request stage) and lets every pause go at once, deciding nothing, recording nothing,
with no session on any target (``--answers``: and reads each write's answer, as the guard
records it; ``--sessions``: and holds on every page what the guard's guarantees need on
every request; see ``hold``). bench_guard.py runs it as a side of its own: what Chrome
charges for pausing a request at all, so the gap between it and the guard is the guard's
own cost and the gap between it and direct is what no guard that decides before a write
leaves can avoid.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ajantik_cdp.core.policy.rules import fetch_patterns, is_write
from ajantik_cdp.proxy.websocket_guard import NETWORK_ENABLE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cdp_client import open_browser_socket

READY = "bare net ready"


async def hold(http_url: str, answers: bool = False, sessions: bool = False,
               ready: Callable[[], None] | None = None) -> None:
    """Hold the net until Chrome closes the socket.

    ``answers``: each write (``rules.is_write``, as the guard counts one) is also paused
    at the response stage and its body read before it goes on, as a recorder of answers
    through Fetch must (measured on Chrome 156, a continue sent behind the read loses the body).
    ``sessions``: a session on every page, old and new, with what the guard's guarantees
    need there on every request: Fetch with no patterns (the page's loaders join the
    net) and Network with the service-worker bypass (without it, navigation preload
    reaches the network unseen; with Network disabled once the bypass is set, four of
    tests/guard/test_service_worker_paths.py fail)."""
    ids = itertools.count(1)
    reads: dict[int, str] = {}  # command id of a body read -> the request it holds
    async with await open_browser_socket(http_url) as ws:

        async def send(method: str, params: dict[str, Any],
                       session_id: str | None = None) -> int:
            msg_id = next(ids)
            msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params}
            if session_id is not None:
                msg["sessionId"] = session_id
            await ws.send(orjson.dumps(msg).decode())
            return msg_id

        await send("Fetch.enable", {"patterns": fetch_patterns()})
        async for text in ws:
            if orjson.loads(text).get("id") == 1:  # the net is in place
                break
        if sessions:
            await send("Target.setAutoAttach", {"autoAttach": True, "flatten": True,
                                                "waitForDebuggerOnStart": False})
        (ready or (lambda: print(READY, flush=True)))()
        async for text in ws:
            msg = orjson.loads(text)
            method = msg.get("method")
            if method == "Fetch.requestPaused":
                params = msg["params"]
                request_id = params["requestId"]
                if msg.get("sessionId"):  # a page session pauses nothing; let it go there
                    await send("Fetch.continueRequest", {"requestId": request_id},
                               msg["sessionId"])
                elif "responseStatusCode" in params or "responseErrorReason" in params:
                    reads[await send("Fetch.getResponseBody",
                                     {"requestId": request_id})] = request_id
                elif answers and is_write(params["request"]["method"]):
                    await send("Fetch.continueRequest", {"requestId": request_id,
                                                         "interceptResponse": True})
                else:
                    await send("Fetch.continueRequest", {"requestId": request_id})
            elif method == "Target.attachedToTarget":
                session_id = msg["params"]["sessionId"]
                await send("Fetch.enable", {"patterns": [], "handleAuthRequests": False},
                           session_id)
                await send("Network.enable", NETWORK_ENABLE, session_id)
                await send("Network.setBypassServiceWorker", {"bypass": True}, session_id)
            elif msg.get("id") in reads:
                await send("Fetch.continueResponse", {"requestId": reads.pop(msg["id"])})


if __name__ == "__main__":
    asyncio.run(hold(sys.argv[1], answers="--answers" in sys.argv[2:],
                     sessions="--sessions" in sys.argv[2:]))
