"""An example command agent for `ajantik gauntlet run` (docs/agent-contract.md).

It is deliberately small and scripted: where a real agent would ask a model what to do
next, this one follows the checkout task with a few regular expressions. What it shows
is the contract: find the prepared page through CDP_URL, act on it, watch the deadline,
and end with one JSON claim line on stdout. Logs go to stderr.

    CDP_URL=... AJANTIK_START_URL=... AJANTIK_TASK="Add ..." python agent.py
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import time
from typing import Any

from playwright.async_api import async_playwright

steps: list[str] = []


def log(message: str) -> None:
    print(f"agent: {message}", file=sys.stderr, flush=True)


def claim(status: str, summary: str) -> None:
    # The last line of stdout that is a JSON object is the claim; nothing may follow it.
    print(json.dumps({"status": status, "summary": summary, "steps": steps}), flush=True)


async def prepared_page(browser: Any, start_url: str) -> Any:
    """The harness opened the start URL in a context set up for this run's variant."""
    for context in browser.contexts:
        for page in context.pages:
            if page.url.startswith(start_url):
                return page
    raise RuntimeError("no page at the start URL")


async def act(page: Any, what: str, locator: Any) -> None:
    steps.append(what)
    log(what)
    await locator.click()


async def read_cart(page: Any, start_url: str) -> dict[str, Any]:
    # The shop's own view of the cart: a click that "worked" on the page may not have.
    data: dict[str, Any] = await page.evaluate(
        "async (u) => (await fetch(u, {cache: 'no-store'})).json()", start_url + "api/cart")
    return data


async def run(task: str, start_url: str) -> tuple[str, str]:
    product = re.search(r"[Aa]dd (.+?) to (?:the )?cart", task)
    coupon = re.search(r"coupon (\w+)", task)
    fields = dict(re.findall(r"(Name|City): ([^,.]+?)(?= and |,|\.|$)", task))
    if not product:
        return "failed", "I did not find a product to add in the task"
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(os.environ["CDP_URL"])
        page = await prepared_page(browser, start_url)
        page.set_default_timeout(10_000)
        name = product.group(1)
        await act(page, f"open {name}", page.get_by_role("link", name=name, exact=True))
        # Read every add back from the shop: a "204" the shop never saw is done again,
        # once; a "500" for an add that landed is not (a retry would duplicate it).
        for attempt in ("add to cart", "add to cart again (the shop did not have it)"):
            async with page.expect_response(lambda r: r.url.endswith("/api/cart/add")):
                await act(page, attempt, page.get_by_role("button", name="Add to cart"))
            lines = (await read_cart(page, start_url))["lines"]
            if any(line["name"] == name for line in lines):
                break
        else:
            return "failed", f"the page said {name} was added twice; the cart does not hold it"
        await act(page, "open the cart", page.get_by_role("link", name=re.compile(r"^Cart")))
        if coupon:
            steps.append("type the coupon")
            await page.get_by_label("Coupon").fill(coupon.group(1))
            await act(page, "apply the coupon", page.get_by_role("button", name="Apply coupon"))
            await page.get_by_role("status").filter(has_text=coupon.group(1)).wait_for()
        await act(page, "proceed to checkout",
                  page.get_by_role("button", name="Proceed to checkout"))
        for label, value in fields.items():
            steps.append(f"fill {label}")
            await page.get_by_label(label).fill(value.strip())
        await act(page, "review the order", page.get_by_role("button", name="Review order"))
        await page.get_by_role("heading", name="Review your order").wait_for()
        await browser.close()  # disconnects; the browser and the page stay
    return "completed", f"{name} in the cart, at review, stopped before payment"


async def main() -> None:
    if os.environ.get("AJANTIK_DRY_RUN") == "1":
        # `ajantik gauntlet doctor --try-agent`: everything is imported; touch nothing.
        claim("unsure", "dry run: ready, nothing done")
        return
    deadline = float(os.environ.get("AJANTIK_DEADLINE", "60"))
    # Leave a little time to say so, rather than be killed without a claim.
    budget = max(1.0, deadline - 3.0)
    started = time.monotonic()
    try:
        status, summary = await asyncio.wait_for(
            run(os.environ["AJANTIK_TASK"], os.environ["AJANTIK_START_URL"]), budget)
    except TimeoutError:
        status, summary = "unsure", f"out of time after {time.monotonic() - started:.0f}s"
    except Exception as exc:  # the page did not do what this script expected
        status, summary = "failed", f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    claim(status, summary)


if __name__ == "__main__":
    asyncio.run(main())
