"""The shop's costs, side by side: rendering a page (pure), one write over HTTP, and the
scripted correct path per variant in a real Chromium (what a suite pays per variant).

    python bench/shop.py [--reps 3] [--variants baseline,slow_api]

Prints medians; nothing here asserts a target.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.shop.correct_path

from ajantik_cdp.browser.launch import start_chrome_async
from ajantik_shop import VARIANT_NAMES, RunCoordinates, ShopServer, environment
from ajantik_shop.actions import AddToCart, ApplyCoupon
from ajantik_shop.layout import PageFrame
from ajantik_shop.pages import render
from ajantik_shop.playwright_setup import new_context, new_page
from ajantik_shop.state import Clock, RunState, apply
from ajantik_shop.strings import Texts


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:9.2f} ms"


def bench_render(reps: int) -> None:
    state = RunState()
    for action in (AddToCart("aurora-headphones", 2), ApplyCoupon("SAVE20")):
        state = apply(state, action, Clock(0, "")).state
    print("render the cart page (pure), median of", reps * 50)
    for variant in ("baseline", "reordered_layout", "locale_variant"):
        env = environment(RunCoordinates("bench", variant, 0))
        frame = PageFrame(env.render, state, False, Texts(env.render.language,
                                                          env.render.labels))
        samples = []
        for _ in range(reps * 50):
            t = time.perf_counter()
            render(frame, "cart")
            samples.append(time.perf_counter() - t)
        print(f"  {variant:18} {median_ms(samples)}")


async def bench_write(shop: ShopServer, reps: int) -> None:
    print("one cart/add over HTTP (aiohttp client), median of", reps * 20)
    async with aiohttp.ClientSession() as http:
        for variant in ("baseline", "slow_api"):
            samples = []
            for i in range(reps * 20 if variant == "baseline" else reps):
                info = shop.create_run(RunCoordinates("bench", variant, i))
                t = time.perf_counter()
                async with http.post(f"{info.start_url}api/cart/add",
                                     json={"product": "aurora-headphones", "quantity": 1}) as r:
                    assert r.status == 200
                samples.append(time.perf_counter() - t)
            print(f"  {variant:18} {median_ms(samples)}")


async def bench_paths(shop: ShopServer, reps: int, variants: list[str]) -> None:
    from playwright.async_api import async_playwright

    from tests.shop.correct_path import correct_path

    chrome = await start_chrome_async()
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.connect_over_cdp(chrome.http_url)
            print(f"scripted correct path to review, real Chromium, median of {reps}")
            warm = shop.create_run(RunCoordinates("bench-warm-up", "baseline", 0))
            context = await new_context(browser, warm.environment.browser)
            await correct_path(await new_page(context, warm.environment.browser),
                               warm.start_url)
            await context.close()
            base: float | None = None
            for variant in variants:
                samples = []
                for rep in range(reps):
                    info = shop.create_run(RunCoordinates("bench", variant, rep))
                    setup = info.environment.browser
                    context = await new_context(browser, setup)
                    page = await new_page(context, setup)
                    t = time.perf_counter()
                    await correct_path(page, info.start_url)
                    samples.append(time.perf_counter() - t)
                    await context.close()
                med = statistics.median(samples)
                base = med if variant == "baseline" else base
                ratio = f"  x{med / base:4.1f} baseline" if base else ""
                print(f"  {variant:18} {med:7.2f} s{ratio}")
    finally:
        chrome.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--variants", default=",".join(VARIANT_NAMES))
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    if "baseline" in variants:
        variants.remove("baseline")
    variants.insert(0, "baseline")
    bench_render(args.reps)
    async with ShopServer() as shop:
        await bench_write(shop, args.reps)
        await bench_paths(shop, args.reps, variants)


if __name__ == "__main__":
    asyncio.run(main())
