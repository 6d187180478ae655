"""What each variant renders, checked on the HTML itself (no server, no browser): the
declared differences from baseline, accessible names, and a complete German translation."""

from __future__ import annotations

import json
import re

import pytest

from ajantik_shop import VARIANT_NAMES, RunCoordinates, environment
from ajantik_shop.actions import AddToCart, ApplyCoupon, BeginCheckout, SubmitDetails
from ajantik_shop.layout import PageFrame
from ajantik_shop.pages import render
from ajantik_shop.state import Clock, RunState, apply
from ajantik_shop.strings import TEXTS, Texts
from tests.shop.a11y import problems

CLOCK = Clock(0, "2030-01-01T00:00:00.000Z")
PATHS = ("", "product/aurora-headphones", "cart", "checkout", "review", "payment")


def state_at(stage: str) -> RunState:
    steps = {"browsing": [], "cart": [AddToCart("aurora-headphones", 2), ApplyCoupon("SAVE20")],
             "checkout": [AddToCart("aurora-headphones", 2), BeginCheckout()],
             "review": [AddToCart("aurora-headphones", 2), ApplyCoupon("SAVE20"),
                        BeginCheckout(), SubmitDetails("Ada Lovelace", "Zürich")]}[stage]
    s = RunState()
    for action in steps:
        s = apply(s, action, CLOCK).state
    return s


def html(variant: str, path: str, stage: str = "review", repetition: int = 0,
         consent: bool = False) -> str:
    env = environment(RunCoordinates("pages", variant, repetition))
    frame = PageFrame(env.render, state_at(stage), consent,
                      Texts(env.render.language, env.render.labels))
    page = render(frame, path)
    assert page is not None
    return page


def buttons(page: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", b).strip()
            for b in re.findall(r"<button[^>]*>(.*?)</button>", page, re.S)]


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_every_page_of_every_variant_has_labelled_controls(variant: str) -> None:
    for stage in ("browsing", "cart", "checkout", "review"):
        for path in PATHS:
            assert problems(html(variant, path, stage)) == [], (variant, stage, path)


def test_the_labels_agents_look_for_are_there() -> None:
    cart = html("baseline", "cart", "cart")
    assert '<label for="coupon">Coupon</label>' in cart and 'id="coupon"' in cart
    assert {"Apply coupon", "Proceed to checkout"} <= set(buttons(cart))
    assert 'aria-label="Remove Aurora Headphones"' in cart
    checkout = html("baseline", "checkout", "checkout")
    assert '<label for="name">Name</label>' in checkout
    assert '<label for="city">City</label>' in checkout
    assert "Review order" in buttons(checkout)
    assert "Continue to payment" in buttons(html("baseline", "review"))
    assert "Add to cart" in buttons(html("baseline", "product/aurora-headphones"))


def test_rendering_is_deterministic() -> None:
    for variant in VARIANT_NAMES:
        for path in PATHS:
            assert html(variant, path) == html(variant, path)


@pytest.mark.parametrize("variant", ["slow_api", "network_delay", "mobile_viewport",
                                     "expired_session"])
def test_variants_that_act_elsewhere_render_exactly_like_baseline(variant: str) -> None:
    # Their perturbation lives in the server or the browser; test_perturbations shows it.
    for path in PATHS:
        assert html(variant, path) == html("baseline", path)


def test_cookie_popup_renders_a_banner_until_consent() -> None:
    for path in PATHS:
        page = html("cookie_popup", path)
        assert 'id="consent"' in page and "Accept all" in buttons(page)
        assert 'id="consent"' not in html("cookie_popup", path, consent=True)
        assert 'id="consent"' not in html("baseline", path)


def test_unexpected_modal_renders_a_hidden_interstitial_with_its_close() -> None:
    page = html("unexpected_modal", "product/aurora-headphones")
    assert re.search(r'<div id="interstitial"[^>]*role="dialog"[^>]*aria-modal="true"[^>]*hidden',
                     page)
    assert "Close" in buttons(page)
    delay = environment(RunCoordinates("pages", "unexpected_modal", 0)).render.interstitial_delay_ms
    assert f'"interstitialDelayMs":{delay}' in page
    assert 'id="interstitial"' not in html("baseline", "product/aurora-headphones")


def test_renamed_cta_renames_both_calls_to_action() -> None:
    product = buttons(html("renamed_cta", "product/aurora-headphones"))
    cart = buttons(html("renamed_cta", "cart", "cart"))
    assert "Add" in product and "Add to cart" not in product
    assert "Continue" in cart and "Proceed to checkout" not in cart


def test_reordered_layout_moves_the_cart_controls() -> None:
    def order(page: str) -> list[str]:
        return re.findall(r'data-block="(\w+)"', page)

    base = order(html("baseline", "cart", "cart"))
    assert base == ["lines", "coupon", "summary", "actions"]
    moved = [order(html("reordered_layout", "cart", "cart", r)) for r in range(8)]
    assert all(sorted(m) == sorted(base) and m != base for m in moved)
    assert len({tuple(m) for m in moved}) > 1  # which control moves depends on the seed


def test_delayed_element_holds_the_add_button_back() -> None:
    page = html("delayed_element", "product/aurora-headphones")
    outside_template = re.sub(r"<template.*?</template>", "", page, flags=re.S)
    assert "Add to cart" not in buttons(outside_template)
    assert "Add to cart" in buttons(page)  # in the template the script inserts later
    assert "Checking stock" in outside_template


def test_locale_variant_translates_every_text() -> None:
    pages = [html("locale_variant", path, stage) for path in PATHS
             for stage in ("browsing", "cart", "checkout", "review")]
    english = {en for en, de in TEXTS.values() if en != de and "{" not in en}
    for page in pages:
        assert '<html lang="de">' in page
        config = json.loads(re.findall(r'id="shop-config">(.*?)</script>', page, re.S)[0])
        # The markup, without the script configuration's key names ("addToCartDelayMs").
        markup = re.sub(r"<script.*?</script>", "", page, flags=re.S)
        leaked = {text for text in english
                  if text in markup or text in config["text"].values()}
        assert leaked == set()
    joined = "\n".join(pages)
    assert "In den Warenkorb" in joined and "Gutscheincode" in joined and "Stadt" in joined
    assert "Menge von Aurora Headphones verringern" in joined
    assert "258,00 €" in joined and "€" + "258.00" not in joined  # 2 × 129,00 €
    assert "€258.00" in html("baseline", "cart", "cart")
