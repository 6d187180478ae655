"""How long a client's connect takes, direct and through the guard, once a site's service
worker has run and its last page has closed (issue 28: through the guard Playwright's
connect_over_cdp never completed, Puppeteer's took about 13 s against 1.7 s).

    python bench/bench_connect.py [--rounds N]

Each round: a fresh context opens a page whose service worker takes control, the page
closes (the context and its worker stay), then Playwright (Python) and Puppeteer (Node,
``tests/node``) each connect and list the pages, direct and through one guard. Medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.async_api import async_playwright

from ajantik_cdp.browser.launch import start_chrome
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.local_http import start_app
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions

NODE_DIR = Path(__file__).resolve().parents[1] / "tests" / "node"
HOST = """<title>host</title><script>
navigator.serviceWorker.register('/sw.js', {scope: '/'});
navigator.serviceWorker.ready.then(() => { document.title = 'ready'; });</script>"""
WORKER = """self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));
self.addEventListener('fetch', () => {});"""
CONNECT_TIMEOUT = 40.0  # seconds: what a connect that never completes is cut at


async def start_site() -> tuple[web.AppRunner, int]:
    async def host(_: web.Request) -> web.Response:
        return web.Response(text=HOST, content_type="text/html")

    async def worker(_: web.Request) -> web.Response:
        return web.Response(text=WORKER, content_type="text/javascript")

    app = web.Application()
    app.router.add_get("/", host)
    app.router.add_get("/sw.js", worker)
    return await start_app(app)


async def playwright_connect(pw: Any, url: str) -> float:
    began = time.monotonic()
    try:
        browser = await pw.chromium.connect_over_cdp(url, timeout=CONNECT_TIMEOUT * 1000)
    except Exception:  # a connect that never completes is the figure
        return CONNECT_TIMEOUT
    took = time.monotonic() - began
    await browser.close()
    return took


async def puppeteer_connect(url: str) -> float:
    proc = await asyncio.create_subprocess_exec(
        "node", str(NODE_DIR / "clients.js"), "puppeteer-connect", url, "-",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), CONNECT_TIMEOUT + 20)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return CONNECT_TIMEOUT
    return float(json.loads(out.strip().splitlines()[-1])["ms"]) / 1000


async def run(rounds: int) -> None:
    chrome = start_chrome()
    runner, port = await start_site()
    taken: dict[str, list[float]] = {}
    try:
        async with running_guard(GuardOptions(
                upstream=chrome.http_url, config=parse_config({"deny": ["denied"]}),
                port=0, install_signal_handlers=False), "bench finished") as guard, \
                async_playwright() as pw:
            sides = {"direct": chrome.http_url, "guard": guard.url}
            for _ in range(rounds):
                owner = await pw.chromium.connect_over_cdp(chrome.http_url)
                ctx = await owner.new_context()
                page = await ctx.new_page()
                await page.goto(f"http://127.0.0.1:{port}/")
                await page.wait_for_function("document.title === 'ready'")
                await page.close()  # the worker's last page; the worker runs on
                await asyncio.sleep(0.3)
                for side, url in sides.items():
                    taken.setdefault(f"playwright {side}", []).append(
                        await playwright_connect(pw, url))
                    taken.setdefault(f"puppeteer {side}", []).append(
                        await puppeteer_connect(url))
                await ctx.close()
                await owner.close()
    finally:
        await runner.cleanup()
        chrome.close()
    print(f"connect after a service worker ran and its last page closed, {rounds} rounds "
          "(median s):")
    for client in ("playwright", "puppeteer"):
        direct = statistics.median(taken[f"{client} direct"])
        guarded = statistics.median(taken[f"{client} guard"])
        print(f"  {client:<10} direct {direct:6.2f}  guard {guarded:6.2f}  "
              f"(worst through the guard {max(taken[f'{client} guard']):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
