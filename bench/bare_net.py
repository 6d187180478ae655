"""The floor under the guard's net: the least a browser-wide request pause can cost.

`python bench/bare_net.py HTTP_URL` attaches to Chrome's browser session, enables Fetch
with the guard's own patterns (every non-static request paused at the request stage) and
lets every pause go at once, deciding nothing, recording nothing, with no session on any
target. bench_guard.py runs it as a side of its own: what Chrome charges for pausing a
request at all, so the gap between it and the guard is the guard's own cost and the gap
between it and direct is what no guard that decides before a write leaves can avoid.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from pathlib import Path

import orjson

from ajantik_cdp.core.policy.rules import fetch_patterns

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cdp_client import open_browser_socket

READY = "bare net ready"


async def hold(http_url: str) -> None:
    ids = itertools.count(1)
    async with await open_browser_socket(http_url) as ws:
        await ws.send(orjson.dumps({"id": next(ids), "method": "Fetch.enable",
                                    "params": {"patterns": fetch_patterns()}}).decode())
        async for text in ws:
            if orjson.loads(text).get("id") == 1:  # the net is in place
                break
        print(READY, flush=True)
        async for text in ws:
            msg = orjson.loads(text)
            if msg.get("method") == "Fetch.requestPaused":
                await ws.send(orjson.dumps({
                    "id": next(ids), "method": "Fetch.continueRequest",
                    "params": {"requestId": msg["params"]["requestId"]}}).decode())


if __name__ == "__main__":
    asyncio.run(hold(sys.argv[1]))
