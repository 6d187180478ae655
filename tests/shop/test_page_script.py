"""How the shop's pages react to a write's answer, the way real shops do: optimistic on
any 2xx (so a success that never reached the server is silent unless the agent re-reads
the cart), an error with Retry otherwise, and Resume on a 401.

Answers are fabricated with Playwright routes, which fulfil requests through the same
DevTools Fetch domain the guard's faults use. The server's state is the truth.
"""

from __future__ import annotations

from typing import Any

import pytest

from ajantik_shop import ShopServer
from tests.shop.conftest import new_run

pytestmark = pytest.mark.browser

ADD_URL = "**/api/cart/add"
READ_CART = "fetch('../api/cart').then(r => r.json()).then(c => c.items)"


async def open_product(browser: Any, shop: ShopServer) -> tuple[Any, Any, str]:
    info = new_run(shop)
    context = await browser.new_context()
    page = await context.new_page()
    page.set_default_timeout(15_000)
    await page.goto(info.start_url + "product/aurora-headphones")
    return context, page, info.token


def items(shop: ShopServer, token: str) -> int:
    return int(shop.state(token)["cart"]["items"])


async def test_a_phantom_success_looks_like_success_until_the_cart_is_re_read(
        shop: ShopServer, cdp_browser: Any) -> None:
    context, page, token = await open_product(cdp_browser, shop)
    try:
        await page.route(ADD_URL, lambda route: route.fulfill(status=204))
        await page.get_by_role("button", name="Add to cart").click()
        await page.get_by_role("status").filter(has_text="Added 1 × Aurora Headphones").wait_for()
        assert await page.locator("#cart-count").text_content() == "1"
        assert not await page.get_by_role("alert").is_visible()
        assert await page.evaluate(READ_CART) == 0  # the server's cart tells the truth
    finally:
        await context.close()
    assert items(shop, token) == 0


async def test_an_error_is_shown_with_its_status_and_retry_sends_it_again(
        shop: ShopServer, cdp_browser: Any) -> None:
    context, page, token = await open_product(cdp_browser, shop)
    try:
        await page.route(ADD_URL, lambda route: route.fulfill(status=503, body=""))
        await page.get_by_role("button", name="Add to cart").click()
        alert = page.get_by_role("alert")
        await alert.filter(has_text="HTTP 503").wait_for()
        assert "Adding to cart failed" in (await alert.text_content() or "")
        assert await page.locator("#cart-count").text_content() == "0"
        assert items(shop, token) == 0
        await page.unroute(ADD_URL)
        await alert.get_by_role("button", name="Retry").click()
        await page.get_by_role("status").filter(has_text="Added").wait_for()
        assert not await alert.is_visible()
    finally:
        await context.close()
    assert items(shop, token) == 1


async def test_a_phantom_failure_reports_an_error_although_the_write_landed(
        shop: ShopServer, cdp_browser: Any) -> None:
    async def land_then_fail(route: Any) -> None:
        await route.fetch()  # the request really reaches the shop
        await route.fulfill(status=500, body="")

    context, page, token = await open_product(cdp_browser, shop)
    try:
        await page.route(ADD_URL, land_then_fail)
        await page.get_by_role("button", name="Add to cart").click()
        await page.get_by_role("alert").filter(has_text="HTTP 500").wait_for()
        assert await page.get_by_role("button", name="Retry").is_visible()
    finally:
        await context.close()
    assert items(shop, token) == 1


async def test_a_401_offers_resume_and_a_network_error_offers_retry(
        shop: ShopServer, cdp_browser: Any) -> None:
    context, page, token = await open_product(cdp_browser, shop)
    try:
        await page.route(ADD_URL, lambda route: route.fulfill(status=401, body=""))
        await page.get_by_role("button", name="Add to cart").click()
        alert = page.get_by_role("alert")
        await alert.filter(has_text="Your session has expired").wait_for()
        assert await alert.get_by_role("button", name="Resume").is_visible()
        assert not await alert.get_by_role("button", name="Retry").is_visible()
        await alert.get_by_role("button", name="Resume").click()
        await page.get_by_role("status").filter(has_text="Session resumed").wait_for()
        await page.unroute(ADD_URL)
        await page.route(ADD_URL, lambda route: route.abort("connectionreset"))
        await page.get_by_role("button", name="Add to cart").click()
        await alert.filter(has_text="network error").wait_for()
        assert await alert.get_by_role("button", name="Retry").is_visible()
    finally:
        await context.close()
    assert items(shop, token) == 0
    assert shop.state(token)["applied_counts"] == {"session/resume": 1}
