"""Direct vs through-the-guard, side by side in one run.

- Page load: navigating to a page with 200 subresources (100 images, 50 scripts, 50
  stylesheets), from Page.navigate to the load event, HTTP cache disabled.
- Runtime.evaluate round trip on a page session.
- Recorded writes: four clients, each on its own connection and tab, send 1 KB JSON POSTs
  back to back from their pages at the same time; writes per second over all four (the
  guard records every one, so each pays its two pauses and a body read).

Rounds alternate: direct (no guard attached to Chrome at all), then a bare net
(bare_net.py: a process that pauses what the guard pauses and lets it all go at once, the
floor any guard that decides before a request leaves must stand on), then the floor of
this design (floor_guard.py: a bare Python relay in the clients' path plus the bare net
reading each write's answer as the guard does and holding on every page the sessions the
guard's guarantees need), then through a freshly started guard
process, so drift on a noisy machine hits every side alike. Medians.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from ajantik_cdp.browser.launch import start_chrome
from ajantik_cdp.local_http import start_app

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bare_net
import floor_guard
from cdp_client import RawCdp

READY = re.compile(r"skills connect to http://127\.0\.0\.1:(\d+)")
BARE_NET = Path(__file__).resolve().parent / "bare_net.py"
FLOOR = Path(__file__).resolve().parent / "floor_guard.py"


def page_html(run: int) -> str:
    parts = ["<!doctype html><title>200 subresources</title>"]
    parts += [f'<link rel="stylesheet" href="/r/s{i}.css?{run}">' for i in range(50)]
    parts += [f'<script src="/r/j{i}.js?{run}"></script>' for i in range(50)]
    parts += [f'<img src="/r/i{i}.svg?{run}" width="4" height="4">' for i in range(100)]
    return "\n".join(parts)


SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>'


WRITES_PAGE = """<!doctype html><script>
async function burst(n, body) {
  for (let i = 0; i < n; i++) {
    const r = await fetch('/api/save', {method: 'POST', body,
                                        headers: {'Content-Type': 'application/json'}});
    await r.text();
  }
  return n;
}
</script>"""
BODY = '{"record": "R-101", "note": "' + "x" * 1000 + '"}'
CLIENTS = 4


async def start_site() -> tuple[web.AppRunner, int]:
    async def writes_page(_: web.Request) -> web.Response:
        return web.Response(text=WRITES_PAGE, content_type="text/html")

    async def save(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({"ok": True, "id": 101})

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=page_html(int(request.query.get("run", "0"))),
                            content_type="text/html")

    async def resource(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name.endswith(".css"):
            return web.Response(text="body{margin:0}", content_type="text/css")
        if name.endswith(".js"):
            return web.Response(text="void 0;", content_type="text/javascript")
        return web.Response(body=SVG, content_type="image/svg+xml")

    app = web.Application()
    app.router.add_get("/page", page)
    app.router.add_get("/w", writes_page)
    app.router.add_post("/api/save", save)
    app.router.add_get("/r/{name}", resource)
    return await start_app(app)


def start_guard(upstream: str, record: Path, config: Path,
                extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ajantik_cdp", "cdp", "--upstream", upstream, "--port", "0",
         "--record", str(record), "--config", str(config), *extra],
        text=True, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert proc.stderr is not None
    while True:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError("guard did not start")
        m = READY.search(line)
        if m:
            return proc, int(m.group(1))


@contextlib.contextmanager
def guard_process(upstream: str, record: Path, config: Path,
                  extra: tuple[str, ...] = ()) -> Iterator[str]:
    """A guard in its own process, as a user runs it; yields its base URL."""
    proc, port = start_guard(upstream, record, config, extra)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def helper_process(script: Path, upstream: str, ready: str) -> Iterator[str]:
    """A helper of this folder (bare_net.py, floor_guard.py) on Chrome, for as long as
    the block runs; yields what follows ``ready`` on the first line it prints."""
    proc = subprocess.Popen([sys.executable, str(script), upstream], text=True,
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        line = proc.stdout.readline().strip()
        if not line.startswith(ready):
            raise RuntimeError(f"{script.name} did not start")
        yield line.removeprefix(ready).strip()
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def bare_net_process(upstream: str) -> Iterator[None]:
    """bare_net.py on Chrome's browser session."""
    with helper_process(BARE_NET, upstream, bare_net.READY):
        yield


@contextlib.contextmanager
def floor_process(upstream: str) -> Iterator[str]:
    """floor_guard.py (a bare relay, the bare net with answers and sessions); yields the
    relay's base URL."""
    with helper_process(FLOOR, upstream, floor_guard.READY) as port:
        yield f"http://127.0.0.1:{port}"


@dataclass
class Samples:
    load: list[float] = field(default_factory=list)
    rtt: list[float] = field(default_factory=list)
    writes_per_s: list[float] = field(default_factory=list)


async def measure_writes(base: str, site_port: int, writes: int, into: Samples) -> None:
    """Four clients write at once; one sample is the writes per second of the whole."""
    clients = [await RawCdp.connect(base) for _ in range(CLIENTS)]
    pages = []
    for cdp in clients:
        target, session = await cdp.new_page()
        await cdp.send("Page.enable", session=session)
        loaded = cdp.expect("Page.loadEventFired")
        await cdp.send("Page.navigate", {"url": f"http://127.0.0.1:{site_port}/w"},
                       session=session)
        await loaded
        pages.append((cdp, target, session))

    async def burst(cdp: RawCdp, session: str, n: int) -> None:
        await cdp.send("Runtime.evaluate", {"expression": f"burst({n}, {BODY!r})",
                                            "awaitPromise": True}, session=session)

    await asyncio.gather(*(burst(c, s, 3) for c, _, s in pages))  # warm up
    started = time.perf_counter()
    await asyncio.gather(*(burst(c, s, writes) for c, _, s in pages))
    into.writes_per_s.append(CLIENTS * writes / (time.perf_counter() - started))
    for cdp, target, _ in pages:
        await cdp.send("Target.closeTarget", {"targetId": target})
        await cdp.close()


async def measure(base: str, site_port: int, loads: int, evals: int, into: Samples,
                  run_offset: int) -> None:
    cdp = await RawCdp.connect(base)
    target, session = await cdp.new_page()
    await cdp.send("Page.enable", session=session)
    await cdp.send("Network.enable", session=session)
    await cdp.send("Network.setCacheDisabled", {"cacheDisabled": True}, session=session)
    for i in range(loads + 1):
        loaded = cdp.expect("Page.loadEventFired")
        started = time.perf_counter()
        await cdp.send("Page.navigate", {
            "url": f"http://127.0.0.1:{site_port}/page?run={run_offset + i}"}, session=session)
        await loaded
        if i:  # the first load warms the renderer up on both sides alike
            into.load.append(time.perf_counter() - started)
    for _ in range(evals):
        started = time.perf_counter()
        await cdp.send("Runtime.evaluate", {"expression": "1+1"}, session=session)
        into.rtt.append(time.perf_counter() - started)
    await cdp.send("Target.closeTarget", {"targetId": target})
    await cdp.close()


def med_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


async def run(rounds: int = 6, loads: int = 5, evals: int = 300,
              writes: int = 25) -> list[dict[str, Any]]:
    chrome = start_chrome()
    runner, site_port = await start_site()
    tmp = Path(tempfile.mkdtemp(prefix="ajantik-bench-"))
    config = tmp / "guard.json"
    config.write_text('{"deny": ["/never-submit"], "allow_writes": ["^http://127\\\\.0\\\\.0'
                      '\\\\.1:' + str(site_port) + '/"], "record": ["/api/"]}')
    direct, net, floor, guarded = Samples(), Samples(), Samples(), Samples()
    try:
        for r in range(rounds):
            await measure(chrome.http_url, site_port, loads, evals, direct, r * 1000)
            await measure_writes(chrome.http_url, site_port, writes, direct)
            with bare_net_process(chrome.http_url):
                await measure(chrome.http_url, site_port, loads, evals, net, r * 1000 + 250)
                await measure_writes(chrome.http_url, site_port, writes, net)
            with floor_process(chrome.http_url) as base:
                await measure(base, site_port, loads, evals, floor, r * 1000 + 375)
                await measure_writes(base, site_port, writes, floor)
            with guard_process(chrome.http_url, tmp / f"rec{r}.jsonl", config) as guard:
                await measure(guard, site_port, loads, evals, guarded, r * 1000 + 500)
                await measure_writes(guard, site_port, writes, guarded)
    finally:
        await runner.cleanup()
        chrome.close()
    return [
        {"name": "page load, 200 subresources (ms)", "direct": med_ms(direct.load),
         "net": med_ms(net.load), "floor": med_ms(floor.load),
         "guard": med_ms(guarded.load), "target": 1.05,
         "n": len(direct.load)},
        {"name": "Runtime.evaluate round trip (ms)", "direct": med_ms(direct.rtt),
         "net": med_ms(net.rtt), "floor": med_ms(floor.rtt),
         "guard": med_ms(guarded.rtt), "target": 1.3,
         "n": len(direct.rtt)},
        # Throughput: higher is better, so the ratio shown is direct / guard (time per
        # write), checked against 1 / 0.85.
        {"name": f"recorded writes, {CLIENTS} clients (ms/write)",
         "direct": 1000 / statistics.median(direct.writes_per_s),
         "net": 1000 / statistics.median(net.writes_per_s),
         "floor": 1000 / statistics.median(floor.writes_per_s),
         "guard": 1000 / statistics.median(guarded.writes_per_s), "target": 1 / 0.85,
         "n": len(direct.writes_per_s)},
    ]
