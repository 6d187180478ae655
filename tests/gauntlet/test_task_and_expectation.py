"""The task in words as intents, and the expected state the evaluator derives from them
and compares with the shop's state."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.gauntlet.suite.expected_state import (
    ExpectationError,
    check,
    from_data,
    from_intents,
)
from ajantik_cdp.gauntlet.suite.task_intents import (
    NUMBER_WORDS,
    AddToCart,
    ApplyCoupon,
    ContinueToReview,
    FillFields,
    ProceedToCheckout,
    StopBefore,
    parse_task,
)
from ajantik_shop.actions import AddToCart as ShopAdd
from ajantik_shop.actions import ConfirmReview, SubmitDetails
from tests.gauntlet.builders import ADD, BEGIN, CORRECT_PATH, COUPON, TASK, shop_state


def test_the_issue_task_parses_into_its_intents() -> None:
    parsed = parse_task(TASK)
    assert parsed.not_understood == ()
    assert parsed.intents == (
        AddToCart("Aurora Headphones", 1), ApplyCoupon("SAVE20"), ProceedToCheckout(),
        FillFields((("Name", "Ada Lovelace"), ("City", "London"))), ContinueToReview(),
        StopBefore("payment"))


def test_other_phrasings() -> None:
    parsed = parse_task("Put 2 Nimbus Speaker in the basket and use the promo code save20. "
                        "Then check out; fill in City: Paris and Name: Grace Hopper. "
                        "Review the order. Do not pay.")
    assert parsed.not_understood == ()
    assert parsed.intents == (
        AddToCart("Nimbus Speaker", 2), ApplyCoupon("SAVE20"), ProceedToCheckout(),
        FillFields((("City", "Paris"), ("Name", "Grace Hopper"))), ContinueToReview(),
        StopBefore("payment"))


def test_what_it_does_not_understand_is_reported_not_guessed() -> None:
    parsed = parse_task("Add Aurora Headphones to cart, then dance a little, and pay now.")
    assert parsed.intents == (AddToCart("Aurora Headphones", 1),)
    assert parsed.not_understood == ("dance a little", "pay now")


# The grammar's own words (connectives, verbs, number words) are reserved: a product
# called "Then" is ambiguous in any grammar.
RESERVED = {"and", "then", "to", "in", "into", "x", "the", "a", "an", "finally", "please",
            "your", "my", "cart", "basket", "shopping", *NUMBER_WORDS,
            "add", "put", "apply", "use", "redeem", "proceed", "go", "check", "enter",
            "fill", "type", "provide", "continue", "stop", "do", "never"}
NAMES = st.text(st.characters(whitelist_categories=("Lu", "Ll"), max_codepoint=0x24F),
                min_size=1, max_size=12).filter(lambda w: w.lower() not in RESERVED)


@given(st.lists(NAMES, min_size=1, max_size=3).map(" ".join), NAMES, NAMES,
       st.integers(1, 10))
def test_field_values_and_quantities_come_back_as_written(product: str, name: str, city: str,
                                                          qty: int) -> None:
    text = (f"Add {qty} {product} to cart, enter Name: {name} and City: {city}, "
            "continue to review")
    parsed = parse_task(text)
    assert parsed.not_understood == ()
    assert parsed.intents[0] == AddToCart(product, qty)
    assert parsed.intents[1] == FillFields((("Name", name), ("City", city)))


def test_the_expected_state_of_the_issue_task() -> None:
    e = from_intents(parse_task(TASK))
    assert e.cart == (("aurora-headphones", 1),)
    assert (e.coupon, e.stage) == ("SAVE20", "review")
    assert dict(e.checkout) == {"name": "Ada Lovelace", "city": "London"}
    # €129.00 less 20%, rounded down to the cent as the shop does.
    assert (e.discount_cents(), e.total_cents()) == (2580, 10320)


def test_a_task_the_shop_cannot_do_is_refused_with_every_reason() -> None:
    with pytest.raises(ExpectationError) as err:
        from_intents(parse_task("Add Moon Boots to cart, apply coupon FREE, enter Zip: 123, "
                                "continue to review"))
    text = str(err.value)
    assert "Moon Boots" in text and "FREE" in text and "Zip" in text
    assert "Name and City" in text


def test_an_explicit_expectation() -> None:
    e = from_data({"cart": {"Vega Keyboard": 2}, "coupon": None, "stage": "cart"})
    assert (e.cart, e.coupon, e.stage, e.total_cents()) == ((("vega-keyboard", 2),), None,
                                                           "cart", 14800)
    with pytest.raises(ExpectationError) as err:
        from_data({"cart": {"Vega Keyboard": 0}, "stage": "payment", "colour": "red"})
    assert len(err.value.problems) == 3


def test_the_shop_state_after_the_correct_path_matches() -> None:
    assert check(from_intents(parse_task(TASK)), shop_state(*CORRECT_PATH)).done_right


def test_differences_are_listed_field_by_field() -> None:
    e = from_intents(parse_task(TASK))
    got = check(e, shop_state(ADD, BEGIN, SubmitDetails("Ada Lovelace", "Londres")))
    fields = [d.field for d in got.differences]
    assert fields == ["coupon", "cart.discount_cents", "cart.total_cents", "checkout.city"]
    assert got.damage == ()


def test_damage_is_kept_apart_from_differences() -> None:
    e = from_intents(parse_task(TASK))
    got = check(e, shop_state(ADD, ShopAdd("aurora-headphones", 1), COUPON, BEGIN,
                              SubmitDetails("Ada Lovelace", "London"), ConfirmReview()))
    assert any(d.startswith("duplicate") for d in got.damage)
    assert {d.field for d in got.differences} >= {"cart", "stage"}
