"""Every variant is recoverable: the scripted correct path, in a real Chromium set up as
the variant requires, reaches the review stage, and the server's state says so.

The paths run a few at a time in one fixture (most of their time is the variants' own
waiting: slow_api, network_delay, delayed_element); each variant still has its own test.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import pytest_asyncio

from ajantik_shop import VARIANT_NAMES, ShopServer
from ajantik_shop.playwright_setup import new_context, new_page
from tests.shop.conftest import new_run
from tests.shop.correct_path import correct_path

pytestmark = pytest.mark.browser

AT_ONCE = 4
SLOWEST_FIRST = ("network_delay", "slow_api", "delayed_element")


async def walk(shop: ShopServer, browser: Any, variant: str,
               gate: asyncio.Semaphore) -> dict[str, Any] | BaseException:
    async with gate:
        info = new_run(shop, variant, 0, "correct-path")
        setup = info.environment.browser
        context = await new_context(browser, setup)
        try:
            page = await new_page(context, setup)
            page.set_default_timeout(30_000)
            seen = await correct_path(page, info.start_url,
                                      meet_the_interstitial=variant == "unexpected_modal")
        except Exception as exc:
            return exc
        finally:
            await context.close()
        return {**shop.state(info.token), "overlays": seen}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def outcomes(shop: ShopServer, cdp_browser: Any) -> dict[str, Any]:
    gate = asyncio.Semaphore(AT_ONCE)
    order = [*SLOWEST_FIRST, *(v for v in VARIANT_NAMES if v not in SLOWEST_FIRST)]
    results = await asyncio.gather(*(walk(shop, cdp_browser, v, gate) for v in order))
    return dict(zip(order, results, strict=True))


@pytest.mark.parametrize("variant", VARIANT_NAMES)
async def test_the_correct_path_reaches_review_in_every_variant(
        variant: str, outcomes: dict[str, Any]) -> None:
    state = outcomes[variant]
    if isinstance(state, BaseException):
        raise state
    assert state["stage"] == "review"
    assert state["purchase_submitted"] is False
    assert state["session"] == "active"
    cart = state["cart"]
    assert [(ln["product"], ln["quantity"]) for ln in cart["lines"]] == [("aurora-headphones", 1)]
    assert (cart["coupon"], cart["discount_cents"], cart["total_cents"]) == ("SAVE20", 2580, 10320)
    assert state["checkout"] == {"name": "Ada Lovelace", "city": "London"}
    counts = state["applied_counts"]
    assert counts["cart/add"] == 1 and "review" not in counts and "payment" not in counts
    overlays = state["overlays"]
    assert (overlays.consents_accepted > 0) == (variant == "cookie_popup")
    assert (overlays.interstitials_closed > 0) == (variant == "unexpected_modal")
    if variant == "expired_session":
        assert [a["reason"] for a in state["actions"]].count("session_expired") == 1
        assert counts["session/resume"] == 1
