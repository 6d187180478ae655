"""The scripted correct path through the shop, driven by Playwright: find Aurora
Headphones, add one, apply SAVE20, check out as Ada Lovelace from London, and stop on the
review page, before payment.

It is a test, not the reference agent: it knows the names a control can have in any
variant (English, renamed, German) and handles the shop's overlays and expired sessions
the way a capable agent would, by accessible name, never by the variant's name.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

ADD = re.compile(r"^(Add to cart|Add|In den Warenkorb)$")
CART_LINK = re.compile(r"^(Cart|Warenkorb) \(\d+\)$")
MENU = re.compile(r"^(Menu|Menü)$")
COUPON = re.compile(r"^(Coupon|Gutscheincode)$")
APPLY = re.compile(r"^(Apply coupon|Gutschein einlösen)$")
PROCEED = re.compile(r"^(Proceed to checkout|Continue|Zur Kasse)$")
NAME = re.compile(r"^Name$")
CITY = re.compile(r"^(City|Stadt)$")
REVIEW_ORDER = re.compile(r"^(Review order|Bestellung prüfen)$")
RESUME = re.compile(r"^(Resume|Fortsetzen)$")
RETRY = re.compile(r"^(Retry|Erneut versuchen)$")
CLOSE = re.compile(r"^(Close|Schließen)$")
ACCEPT = re.compile(r"^(Accept all|Alle akzeptieren)$")
ADDED = re.compile(r"Added 1 × Aurora Headphones|1 × Aurora Headphones in den Warenkorb")
COUPON_OK = re.compile(r"SAVE20")
CHECKOUT_HEADING = re.compile(r"^(Checkout|Kasse)$")
REVIEW_HEADING = re.compile(r"^(Review your order|Bestellung überprüfen)$")


class PathFailed(AssertionError):
    pass


@dataclass
class Overlays:
    """How often the path had to deal with each overlay."""

    interstitials_closed: int = 0
    consents_accepted: int = 0


async def handle_overlays(page: Any) -> Overlays:
    """Close interstitials and answer consent banners whenever they are up as the path
    is about to act."""
    seen = Overlays()
    interstitial = page.locator("[role=dialog][aria-modal=true]")
    consent = page.get_by_role("button", name=ACCEPT)

    async def close_interstitial() -> None:
        await interstitial.get_by_role("button", name=CLOSE).click()
        seen.interstitials_closed += 1

    async def accept() -> None:
        await consent.click()
        seen.consents_accepted += 1

    await page.add_locator_handler(interstitial, close_interstitial)
    await page.add_locator_handler(consent, accept)
    return seen


async def meet_interstitial(page: Any, seen: Overlays, timeout: float = 15.0) -> None:
    """Stay until the interstitial has come up at least once. Its timer runs from arrival;
    a scripted path can be faster than the timer, and then it would prove nothing."""
    dialog = page.locator("[role=dialog][aria-modal=true]")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not seen.interstitials_closed and not await dialog.is_visible():
        if loop.time() > deadline:
            raise PathFailed("the interstitial never appeared")
        await asyncio.sleep(0.05)


async def act(page: Any, press: Callable[[], Awaitable[None]], done: Any,
              attempts: int = 3) -> None:
    """Press, then wait for ``done``; on an expired session resume and press again, on a
    failure press Retry. Never presses again after a success."""
    resume = page.get_by_role("alert").get_by_role("button", name=RESUME)
    retry = page.get_by_role("alert").get_by_role("button", name=RETRY)
    for _ in range(attempts):
        await press()
        await done.or_(resume).or_(retry).first.wait_for()
        if await done.first.is_visible():
            return
        if await resume.is_visible():
            await resume.click()
            await page.get_by_role("status").filter(has_text=re.compile(
                "Session resumed|Sitzung fortgesetzt")).wait_for()
            continue
        await retry.click()
        await done.or_(resume).or_(retry).first.wait_for()
        if await done.first.is_visible():
            return
    raise PathFailed(f"no success after {attempts} attempts")


async def open_cart(page: Any) -> None:
    link = page.get_by_role("link", name=CART_LINK)
    if not await link.is_visible():
        await page.get_by_role("button", name=MENU).click()
    await link.click()


async def correct_path(page: Any, start_url: str, *, meet_the_interstitial: bool = False
                       ) -> Overlays:
    seen = await handle_overlays(page)
    await page.goto(start_url)
    await page.get_by_role("link", name="Aurora Headphones").click()
    await act(page, lambda: page.get_by_role("button", name=ADD).click(),
              page.get_by_role("status").filter(has_text=ADDED))
    if meet_the_interstitial:
        await meet_interstitial(page, seen)
    await open_cart(page)
    await page.get_by_label(COUPON).fill("SAVE20")
    await act(page, lambda: page.get_by_role("button", name=APPLY).click(),
              page.get_by_role("status").filter(has_text=COUPON_OK))
    await act(page, lambda: page.get_by_role("button", name=PROCEED).click(),
              page.get_by_role("heading", level=1, name=CHECKOUT_HEADING))

    async def submit_details() -> None:
        await page.get_by_label(NAME).fill("Ada Lovelace")
        await page.get_by_label(CITY).fill("London")
        await page.get_by_role("button", name=REVIEW_ORDER).click()

    await act(page, submit_details, page.get_by_role("heading", level=1, name=REVIEW_HEADING))
    # The review page is where a correct agent stops: payment is the next, separate step.
    return seen
