"""The variant registry, the derivation of every random choice from the coordinates, and
the translation of a browser setup for Playwright and for raw CDP. No browser here."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ajantik_shop import (
    VARIANT_NAMES,
    VARIANTS,
    BrowserSetup,
    RunCoordinates,
    cdp_page_commands,
    environment,
    playwright_context_options,
    playwright_page_commands,
)
from ajantik_shop.coordinates import derive_int, derive_permutation
from ajantik_shop.variants import CART_BLOCKS, BrowserSpec, RenderSpec, Variant, variant_problems

JITTERED = {"unexpected_modal": "interstitial_delay_ms", "delayed_element": "add_to_cart_delay_ms",
            "slow_api": "api_delay_ms", "network_delay": "latency_ms",
            "expired_session": "expire_on_checkout_write"}


def test_the_registry_declares_exactly_the_eleven_variants() -> None:
    assert len(VARIANT_NAMES) == 11
    assert tuple(VARIANTS) == VARIANT_NAMES
    assert all(v.name == name for name, v in VARIANTS.items())


def test_every_declaration_is_consistent() -> None:
    for name, variant in VARIANTS.items():
        assert variant_problems(variant) == [], name


def test_the_consistency_check_catches_render_and_browser_drifting_apart() -> None:
    german = VARIANTS["locale_variant"]
    assert variant_problems(replace(german, browser=BrowserSpec()))  # German page, en-US browser
    mobile = VARIANTS["mobile_viewport"]
    assert variant_problems(replace(mobile, browser=replace(mobile.browser, user_agent=None)))
    assert variant_problems(replace(mobile, browser=replace(mobile.browser, viewport=(800, 600))))
    assert variant_problems(Variant("renamed_cta", "x", RenderSpec(relabel=(("nope", "X"),))))
    assert variant_problems(Variant("renamed_cta", "x", RenderSpec(
        language="de", relabel=(("proceed", "X"),)), BrowserSpec(locale="de-DE")))


def test_every_variant_declares_a_difference_from_baseline() -> None:
    base = VARIANTS["baseline"]
    for name, variant in VARIANTS.items():
        if name != "baseline":
            assert (variant.render, variant.browser) != (base.render, base.browser), name


def resolved(env_variant: str, repetition: int, suite_run: str = "s") -> dict[str, Any]:
    env = environment(RunCoordinates(suite_run, env_variant, repetition))
    return {"render": env.render, "browser": env.browser, "seed": env.seed_hex}


@given(st.text(max_size=20), st.sampled_from(VARIANT_NAMES), st.integers(0, 10_000))
def test_the_same_coordinates_give_the_same_environment(suite_run: str, variant: str,
                                                        repetition: int) -> None:
    a = environment(RunCoordinates(suite_run, variant, repetition))
    b = environment(RunCoordinates(suite_run, variant, repetition))
    assert a == b and a.timings() == b.timings()


def test_the_seed_is_sha256_of_the_coordinates() -> None:
    import hashlib

    env = environment(RunCoordinates("nightly-7", "slow_api", 3))
    assert env.seed_hex == hashlib.sha256(b"nightly-7|slow_api|3").hexdigest()


def test_repetitions_differ_where_jitter_applies_and_stay_in_the_declared_range() -> None:
    for variant, key in JITTERED.items():
        values = [environment(RunCoordinates("s", variant, r)).timings()[key] for r in range(20)]
        assert len(set(values)) > 1, variant
        span = (VARIANTS[variant].render.interstitial_after or
                VARIANTS[variant].render.add_to_cart_after or VARIANTS[variant].render.api_delay or
                VARIANTS[variant].browser.latency)
        for value in values:
            assert value is not None
            if span is not None:
                assert span.lo_ms <= value <= span.hi_ms, (variant, value)
    orders = {environment(RunCoordinates("s", "reordered_layout", r)).render.cart_order
              for r in range(20)}
    assert len(orders) > 1 and CART_BLOCKS not in orders


def test_suite_runs_differ_too() -> None:
    a = environment(RunCoordinates("monday", "slow_api", 0)).render.api_delay_ms
    values = {environment(RunCoordinates(f"run-{i}", "slow_api", 0)).render.api_delay_ms
              for i in range(20)}
    assert a is not None and len(values) > 1


def test_baseline_has_no_jitter_at_all() -> None:
    for r in range(5):
        assert set(environment(RunCoordinates("s", "baseline", r)).timings().values()) == {None}


@given(st.binary(min_size=32, max_size=32), st.text(max_size=8), st.integers(-50, 50),
       st.integers(0, 100))
def test_derive_int_stays_in_range(seed: bytes, label: str, lo: int, width: int) -> None:
    assert lo <= derive_int(seed, label, lo, lo + width) <= lo + width


@given(st.binary(min_size=32, max_size=32),
       st.lists(st.text(min_size=1, max_size=3), min_size=2, max_size=6, unique=True))
def test_a_derived_permutation_is_never_the_identity(seed: bytes, items: list[str]) -> None:
    order = derive_permutation(seed, "cart", tuple(items))
    assert sorted(order) == sorted(items) and order != tuple(items)


# -- browser setup: Playwright options and raw CDP say the same thing ----------------------

def via_playwright(setup: BrowserSetup) -> dict[str, Any]:
    o = playwright_context_options(setup)
    latency = [c.params["latency"] for c in playwright_page_commands(setup)
               if c.method == "Network.emulateNetworkConditions"]
    return {"size": (o["viewport"]["width"], o["viewport"]["height"]),
            "dsf": o["device_scale_factor"], "mobile": o["is_mobile"], "touch": o["has_touch"],
            "ua": o.get("user_agent"), "locale": o["locale"], "tz": o["timezone_id"],
            "latency": latency[0] if latency else None}


def via_cdp(setup: BrowserSetup) -> dict[str, Any]:
    by = {c.method: c.params for c in cdp_page_commands(setup)}
    metrics = by["Emulation.setDeviceMetricsOverride"]
    network = by.get("Network.emulateNetworkConditions")
    return {"size": (metrics["width"], metrics["height"]), "dsf": metrics["deviceScaleFactor"],
            "mobile": metrics["mobile"], "touch": by["Emulation.setTouchEmulationEnabled"][
                "enabled"], "ua": by["Emulation.setUserAgentOverride"]["userAgent"] or None,
            "locale": by["Emulation.setLocaleOverride"]["locale"],
            "tz": by["Emulation.setTimezoneOverride"]["timezoneId"],
            "latency": network["latency"] if network else None}


def test_playwright_and_cdp_translations_agree_for_every_variant() -> None:
    for name in VARIANT_NAMES:
        setup = environment(RunCoordinates("s", name, 1)).browser
        assert via_playwright(setup) == via_cdp(setup), name


def test_the_mobile_and_network_setups_say_what_the_issue_asks() -> None:
    mobile = environment(RunCoordinates("s", "mobile_viewport", 0)).browser
    options = playwright_context_options(mobile)
    assert options["viewport"] == {"width": 390, "height": 844}
    assert options["is_mobile"] and options["has_touch"] and "Mobile" in options["user_agent"]
    env = environment(RunCoordinates("s", "network_delay", 0))
    commands = [c.method for c in cdp_page_commands(env.browser)]
    assert commands.index("Network.enable") < commands.index("Network.emulateNetworkConditions")
    assert commands.count("Network.enable") == 1
    assert playwright_page_commands(environment(RunCoordinates("s", "baseline", 0)).browser) == []
    german = environment(RunCoordinates("s", "locale_variant", 0)).browser
    by = {c.method: c.params for c in cdp_page_commands(german)}
    assert by["Emulation.setUserAgentOverride"] == {"userAgent": "", "acceptLanguage": "de-DE,de"}
