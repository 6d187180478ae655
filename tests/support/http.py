"""One-shot HTTP calls for tests (discovery endpoints, the site)."""

from __future__ import annotations

from typing import Any

import aiohttp
import orjson


async def request(method: str, url: str, headers: dict[str, str] | None = None,
                  ) -> tuple[int, bytes]:
    async with aiohttp.ClientSession() as http, \
            http.request(method, url, headers=headers or {}) as resp:
        return resp.status, await resp.read()


async def get_json(url: str, method: str = "GET") -> Any:
    status, body = await request(method, url)
    assert status == 200, (url, status, body[:200])
    return orjson.loads(body)


async def browser_ws(base: str) -> str:
    url: str = (await get_json(base + "/json/version"))["webSocketDebuggerUrl"]
    return url
