"""What recording a write costs: the same write through the guard, recorded and not.

    python bench/bench_record.py [--writes N] [--rounds R]

One headless Chromium and one local server. Each round starts a guard with recording on
(``record_path`` set) and one with recording off (``record_path=None``), in alternating
order, and times the same 1 KB JSON POST from inside the page (``performance.now()``
around ``fetch``), so neither Playwright's round trips nor start-up are counted. A run
straight to Chrome, with no guard, is printed for scale. Medians side by side, then the
ratio recorded / unrecorded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from ajantik_cdp.browser.launch import ChromeProcess, start_chrome_async
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.record.record_schema import RequestLine, encode
from ajantik_cdp.core.record.redaction import Redactor
from ajantik_cdp.local_http import start_app
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions

BODY = json.dumps({
    "record": "R-101", "name": "Ada Lovelace", "address": {"street": "12 Analytical Row",
                                                           "city": "London"},
    "items": [{"line": i, "description": f"Bernoulli number {i}", "amount": i * 7}
              for i in range(14)],
})
PAGE = """<!doctype html><script>
async function burst(n, body) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetch('/api/save', {method: 'POST', body,
                                        headers: {'Content-Type': 'application/json'}});
    await r.text();
    out.push(performance.now() - t0);
  }
  return out;
}
</script>"""
WARMUP = 5


async def start_site() -> tuple[web.AppRunner, str]:
    async def page(_: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    async def save(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({"ok": True, "id": 101, "saved": "2025-03-04T10:00:00Z"})

    app = web.Application()
    app.router.add_get("/", page)
    app.router.add_post("/api/save", save)
    runner, port = await start_app(app)
    return runner, f"http://127.0.0.1:{port}/"


async def timed_writes(pw: Any, cdp_url: str, page_url: str, n: int) -> list[float]:
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    ctx = await browser.new_context()
    try:
        page = await ctx.new_page()
        await page.goto(page_url)
        await page.evaluate("([n, b]) => burst(n, b)", [WARMUP, BODY])
        times: list[float] = await page.evaluate("([n, b]) => burst(n, b)", [n, BODY])
        return times
    finally:
        await ctx.close()
        await browser.close()


async def through_guard(pw: Any, chrome: ChromeProcess, page_url: str, n: int,
                        record: Path | None) -> list[float]:
    async with running_guard(GuardOptions(upstream=chrome.http_url, config=parse_config({}),
                                          port=0, record_path=record,
                                          install_signal_handlers=False),
                             "bench finished") as guard:
        return await timed_writes(pw, guard.url, page_url, n)


def redaction_cost_us(samples: int = 2000) -> float:
    """CPU time to redact and encode one such request line, in microseconds (median)."""
    red = Redactor(parse_config({}), b"k" * 32)
    headers = {"Content-Type": "application/json", "Origin": "http://127.0.0.1",
               "User-Agent": "Mozilla/5.0 HeadlessChrome/156"}
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        encode(RequestLine(
            seq=1, target_id="T", target_type="page", frame_url=red.url("http://127.0.0.1/"),
            method="POST", url=red.url("http://127.0.0.1/api/save"), resource_type="Fetch",
            request_headers=red.headers(headers),
            request_body=red.body("http://127.0.0.1/api/save", "application/json",
                                  BODY.encode()),
            system=None, fault=None, client_status=200))
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


async def rounds_of(pw: Any, chrome: ChromeProcess, page_url: str, writes: int, rounds: int,
                    tmp: Path, samples: dict[str, list[float]]) -> None:
    for r in range(rounds):
        # Alternate the order so drift over the run (caches, CPU clocks) evens out.
        order = ["on", "off"] if r % 2 == 0 else ["off", "on"]
        for mode in order:
            record = tmp / f"r{r}.jsonl" if mode == "on" else None
            samples[mode] += await through_guard(pw, chrome, page_url, writes, record)
        samples["direct"] += await timed_writes(pw, chrome.http_url, page_url, writes)


async def run(writes: int = 40, rounds: int = 5) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    chrome = await start_chrome_async()
    runner, page_url = await start_site()
    samples: dict[str, list[float]] = {"direct": [], "off": [], "on": []}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with async_playwright() as pw:
                await rounds_of(pw, chrome, page_url, writes, rounds, Path(tmp), samples)
    finally:
        await runner.cleanup()
        await asyncio.to_thread(chrome.close)
    med = {k: statistics.median(v) for k, v in samples.items()}
    p90 = {k: statistics.quantiles(v, n=10)[-1] for k, v in samples.items()}
    return {"writes": len(samples["on"]), "body_bytes": len(BODY), "median_ms": med,
            "p90_ms": p90, "ratio": med["on"] / med["off"], "extra_ms": med["on"] - med["off"],
            "redaction_us": redaction_cost_us()}


def report(result: dict[str, Any]) -> str:
    med, p90 = result["median_ms"], result["p90_ms"]
    rows = [("straight to Chrome (no guard)", "direct"),
            ("guard, recording off", "off"), ("guard, recording on", "on")]
    lines = [f"bench_record: {result['writes']} timed POSTs per row, "
             f"{result['body_bytes']} B JSON body, times in ms",
             f"{'':32}{'median':>9}{'p90':>9}"]
    lines += [f"{label:32}{med[key]:9.2f}{p90[key]:9.2f}" for label, key in rows]
    lines.append(f"recorded / unrecorded write: {result['ratio']:.2f}x "
                 f"({result['extra_ms']:+.2f} ms per write)")
    lines.append(f"redacting and encoding one request line (CPU only): "
                 f"{result['redaction_us']:.0f} us")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=40, help="timed writes per round and row")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(report(asyncio.run(run(args.writes, args.rounds))))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
