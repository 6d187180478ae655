"""The reference agent acts on the checkout form only once the page's script has loaded.

The checkout form is in the page before ``shop.js`` runs; sent then, it submits natively
(a GET to ``checkout?name=...``) and no review comes. Under network_delay on a loaded
machine the demo saw exactly that. Here the script of the checkout page is held back on
purpose: first a hurried hand shows the hazard is real, then the agent must reach review.
Judged from the shop's own state."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ajantik_cdp.gauntlet.reference.reference_agent import ReferenceAgent
from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite
from ajantik_shop import ShopServer
from ajantik_shop.playwright_setup import new_context, new_page
from tests.shop.conftest import new_run

pytestmark = pytest.mark.browser

HOLD = 3.0  # seconds the checkout page's script is held back


async def slow_checkout_script(context: Any) -> None:
    async def hold(route: Any) -> None:
        if route.request.frame.url.split("?")[0].endswith("/checkout"):
            await asyncio.sleep(HOLD)
        await route.continue_()

    await context.route("**/assets/shop.js", hold)


async def at_checkout(shop: ShopServer, browser: Any) -> tuple[Any, Any, Any]:
    info = new_run(shop, "baseline", 0, "slow-script")
    setup = info.environment.browser
    context = await new_context(browser, setup)
    await slow_checkout_script(context)
    page = await new_page(context, setup)
    page.set_default_timeout(30_000)
    return info, context, page


async def test_a_hurried_hand_submits_the_form_natively(shop: ShopServer,
                                                         cdp_browser: Any) -> None:
    info, context, page = await at_checkout(shop, cdp_browser)
    try:
        await page.goto(info.start_url)
        await page.get_by_role("link", name="Aurora Headphones").click()
        await page.get_by_role("button", name="Add to cart").click()
        await page.get_by_role("status").first.wait_for()
        await page.get_by_role("link", name="Cart").first.click()
        await page.get_by_role("button", name="Proceed to checkout").click()
        await page.get_by_label("Name").fill("Ada Lovelace")
        await page.get_by_label("City").fill("London")
        await page.get_by_role("button", name="Review order").click()
        await page.wait_for_url("**/checkout?*")
    finally:
        await context.close()
    state = shop.state(info.token)
    assert state["stage"] == "checkout" and state["checkout"] == {"name": None, "city": None}


async def test_the_reference_agent_waits_and_reaches_review(shop: ShopServer,
                                                            cdp_browser: Any) -> None:
    info, context, page = await at_checkout(shop, cdp_browser)
    task = demo_suite("reference", 1, ("baseline",)).task
    try:
        claim = await ReferenceAgent(page, info.start_url, "reference").run(task.description)
    finally:
        await context.close()
    state = shop.state(info.token)
    assert state["stage"] == "review", (claim, state["actions"])
    assert state["checkout"] == {"name": "Ada Lovelace", "city": "London"}
