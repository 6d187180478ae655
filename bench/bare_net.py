"""The floor under the guard's net: the least a browser-wide request pause can cost.

`python bench/bare_net.py HTTP_URL [--answers]` attaches to Chrome's browser session, enables Fetch
with the guard's own patterns (every non-static request paused at the request stage) and
lets every pause go at once, deciding nothing, recording nothing, with no session on any
target (``--answers``: and reads each write's answer, as the guard records it; see
``hold``). bench_guard.py runs it as a side of its own: what Chrome charges for pausing a
request at all, so the gap between it and the guard is the guard's own cost and the gap
between it and direct is what no guard that decides before a write leaves can avoid.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Callable
from pathlib import Path

import orjson

from ajantik_cdp.core.policy.rules import fetch_patterns

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cdp_client import open_browser_socket

READY = "bare net ready"


async def hold(http_url: str, answers: bool = False,
               ready: Callable[[], None] | None = None) -> None:
    """Hold the net until Chrome closes the socket. With ``answers``, each write (any
    method but GET and HEAD) is also paused at the response stage and its body read
    before it goes on, as a recorder of answers through Fetch must: measured on Chrome
    156, a continue sent behind the read loses the body."""
    ids = itertools.count(1)
    reads: dict[int, str] = {}  # command id of a body read -> the request it holds
    async with await open_browser_socket(http_url) as ws:

        async def send(method: str, request_id: str) -> int:
            msg_id = next(ids)
            await ws.send(orjson.dumps({"id": msg_id, "method": method,
                                        "params": {"requestId": request_id}}).decode())
            return msg_id

        await ws.send(orjson.dumps({"id": next(ids), "method": "Fetch.enable",
                                    "params": {"patterns": fetch_patterns()}}).decode())
        async for text in ws:
            if orjson.loads(text).get("id") == 1:  # the net is in place
                break
        (ready or (lambda: print(READY, flush=True)))()
        async for text in ws:
            msg = orjson.loads(text)
            if msg.get("method") == "Fetch.requestPaused":
                params = msg["params"]
                request_id = params["requestId"]
                if "responseStatusCode" in params or "responseErrorReason" in params:
                    reads[await send("Fetch.getResponseBody", request_id)] = request_id
                elif answers and params["request"]["method"] not in ("GET", "HEAD"):
                    await ws.send(orjson.dumps({
                        "id": next(ids), "method": "Fetch.continueRequest",
                        "params": {"requestId": request_id,
                                   "interceptResponse": True}}).decode())
                else:
                    await send("Fetch.continueRequest", request_id)
            elif msg.get("id") in reads:
                await send("Fetch.continueResponse", reads.pop(msg["id"]))


if __name__ == "__main__":
    asyncio.run(hold(sys.argv[1], answers="--answers" in sys.argv[2:]))
