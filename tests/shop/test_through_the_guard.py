"""The shop behind the real guard, as the perturbation suites will run it: a fault the
guard injects on a shop write reaches the page the way docs/shop.md says."""

from __future__ import annotations

from typing import Any

import pytest

from ajantik_shop import ShopServer
from tests.conftest import GuardFactory
from tests.shop.conftest import new_run

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("fault,visible,landed", [
    ("phantom_success", "Added 1 × Aurora Headphones", 0),
    ("phantom_failure", "HTTP 500", 1),
    ("session_drop", "Your session has expired", 0),
])
async def test_a_guard_fault_on_add_to_cart(fault: str, visible: str, landed: int,
                                            shop: ShopServer, guard: GuardFactory,
                                            pw: Any) -> None:
    g = await guard({}, fault=f"{fault}:/api/cart/add$")
    info = new_run(shop)
    browser = await pw.chromium.connect_over_cdp(g.url)
    context = await browser.new_context()
    try:
        page = await context.new_page()
        page.set_default_timeout(15_000)
        await page.goto(info.start_url + "product/aurora-headphones")
        await page.get_by_role("button", name="Add to cart").click()
        await page.get_by_text(visible).wait_for()
    finally:
        await context.close()
        await browser.close()
    assert shop.state(info.token)["cart"]["items"] == landed
