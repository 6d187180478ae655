"""The run state machine and the strict action parser, without a server or a browser."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_shop.actions import (
    ACTION_PATHS,
    Action,
    AddToCart,
    ApplyCoupon,
    BadRequest,
    BeginCheckout,
    ConfirmReview,
    ResumeSession,
    SubmitDetails,
    SubmitPayment,
    UpdateLine,
    parse_action,
)
from ajantik_shop.catalogue import COUPONS, PRODUCTS
from ajantik_shop.state import STAGES, Clock, RunState, apply, log_rejection
from tests.support.examples import examples

CLOCK = Clock(0, "2030-01-01T00:00:00.000Z")
BUSINESS = ("lines", "coupon", "name", "city", "stage", "purchase_submitted")


def business(s: RunState) -> tuple[object, ...]:
    return tuple(getattr(s, f) for f in BUSINESS)


def run(actions: list[Action], expire_on: int | None = None) -> tuple[RunState, list[int]]:
    state, statuses = RunState(), []
    for action in actions:
        result = apply(state, action, CLOCK, expire_on_checkout_write=expire_on)
        state = result.state
        statuses.append(result.status)
    return state, statuses


CORRECT = [AddToCart("aurora-headphones", 1), ApplyCoupon("SAVE20"), BeginCheckout(),
           SubmitDetails("Ada Lovelace", "London")]


def test_the_correct_path_ends_at_review_with_the_discount() -> None:
    state, statuses = run(CORRECT)
    assert statuses == [200, 200, 200, 200]
    assert state.stage == "review" and not state.purchase_submitted
    assert (state.subtotal_cents, state.discount_cents, state.total_cents) == (12900, 2580, 10320)
    assert (state.name, state.city) == ("Ada Lovelace", "London")
    assert [a.action for a in state.log] == ["cart/add", "coupon", "checkout/begin", "checkout"]


def test_payment_is_two_more_separate_actions() -> None:
    state, statuses = run([*CORRECT, SubmitPayment(), ConfirmReview(), SubmitPayment()])
    assert statuses[4:] == [409, 200, 200]
    assert state.stage == "payment" and state.purchase_submitted


def test_stages_cannot_be_skipped() -> None:
    assert run([SubmitDetails("A", "B")])[1] == [409]
    assert run([AddToCart("nimbus-speaker", 1), SubmitDetails("A", "B")])[1] == [200, 409]
    assert run([AddToCart("nimbus-speaker", 1), ConfirmReview()])[1] == [200, 409]
    assert run([BeginCheckout()])[1] == [409]
    assert run([ApplyCoupon("SAVE20")])[1] == [409]


def test_changing_the_cart_after_review_sends_the_stage_back() -> None:
    state, _ = run([*CORRECT, AddToCart("vega-keyboard", 1)])
    assert state.stage == "cart" and state.name == "Ada Lovelace"
    state, _ = run([*CORRECT, UpdateLine("aurora-headphones", 0)])
    assert state.stage == "browsing" and state.lines == ()


def test_the_session_expires_once_on_the_chosen_checkout_write_and_the_cart_survives() -> None:
    add, coupon = CORRECT[:2]
    details = SubmitDetails("Ada", "Oslo")
    paths = {
        1: ([add, coupon, BeginCheckout(), ResumeSession(), BeginCheckout(), details],
            [200, 200, 401, 200, 200, 200]),
        2: ([add, coupon, BeginCheckout(), details, ResumeSession(), details],
            [200, 200, 200, 401, 200, 200]),
    }
    for k, (seq, expected) in paths.items():
        state, statuses = run(seq, expire_on=k)
        assert statuses == expected, k
        assert state.stage == "review" and state.coupon == "SAVE20"
        assert [ln.product_id for ln in state.lines] == ["aurora-headphones"]
        expired = [a for a in state.log if a.reason == "session_expired"]
        assert len(expired) == 1 and expired[0].status == 401
        assert run(seq)[1] == [200] * 6  # without the expiry every step succeeds
    state, statuses = run([AddToCart("aurora-headphones", 1), BeginCheckout(), AddToCart(
        "nimbus-speaker", 1)], expire_on=1)
    assert statuses == [200, 401, 401]  # everything but Resume is refused while expired
    assert state.session_expired and len(state.lines) == 1


actions = st.one_of(
    st.builds(AddToCart, st.sampled_from(sorted(PRODUCTS)), st.integers(1, 10)),
    st.builds(UpdateLine, st.sampled_from(sorted(PRODUCTS)), st.integers(0, 10)),
    st.builds(ApplyCoupon, st.sampled_from([*COUPONS, "BOGUS", "SAVE2O"])),
    st.just(BeginCheckout()),
    st.builds(SubmitDetails, st.sampled_from(["Ada", "Grace"]), st.sampled_from(["Oslo", "Pune"])),
    st.just(ConfirmReview()),
    st.just(SubmitPayment()),
    st.just(ResumeSession()),
)


@examples(300)
@given(st.lists(actions, max_size=25), st.sampled_from([None, 1, 2]))
def test_invariants_hold_for_any_sequence_of_actions(seq: list[Action],
                                                     expire_on: int | None) -> None:
    state = RunState()
    for action in seq:
        before = state
        result = apply(state, action, CLOCK, expire_on_checkout_write=expire_on)
        state = result.state
        assert len(state.log) == len(before.log) + 1
        entry = state.log[-1]
        assert entry.status == result.status
        assert (entry.outcome == "applied") == (result.status == 200)
        if result.status != 200:
            # A refused action changes nothing the evaluator judges.
            assert business(state) == business(before)
        if before.purchase_submitted and not isinstance(action, ResumeSession):
            assert result.status in (401, 409)
    assert state.total_cents == state.subtotal_cents - state.discount_cents
    assert state.discount_cents == state.subtotal_cents * COUPONS.get(state.coupon or "", 0) // 100
    assert all(1 <= ln.quantity <= 10 for ln in state.lines)
    assert len({ln.product_id for ln in state.lines}) == len(state.lines)
    assert state.stage in STAGES
    if state.stage in ("review", "payment"):
        assert state.lines and state.name and state.city
    if state.purchase_submitted:
        applied = [a.action for a in state.log if a.outcome == "applied"]
        assert "review" in applied and applied.index("review") < len(applied) - 1 - applied[
            ::-1].index("payment")
    assert [a.seq for a in state.log] == list(range(1, len(state.log) + 1))


def test_a_logged_rejection_changes_nothing_but_the_log() -> None:
    state, _ = run(CORRECT)
    after = log_rejection(state, "cart/add", 400, "unexpected field(s): price", CLOCK)
    assert business(after) == business(state) and len(after.log) == len(state.log) + 1
    assert after.log[-1].outcome == "rejected" and after.log[-1].status == 400


# -- parsing: no field can be set except by performing the action --------------------------

GOOD_BODIES = {
    "cart/add": {"product": "aurora-headphones", "quantity": 1},
    "cart/update": {"product": "aurora-headphones", "quantity": 0},
    "coupon": {"code": "save20"},
    "checkout/begin": {},
    "checkout": {"name": "Ada", "city": "Oslo"},
    "review": {},
    "payment": {},
    "session/resume": {},
}
STATE_FIELDS = [f.name for f in fields(RunState)] + [
    "price", "unit_price_cents", "discount_cents", "total_cents", "purchase_submitted"]


def test_every_action_has_a_good_body() -> None:
    assert set(GOOD_BODIES) == set(ACTION_PATHS)
    for path, body in GOOD_BODIES.items():
        assert isinstance(parse_action(path, body), ACTION_PATHS[path])
    assert parse_action("coupon", {"code": " save20 "}) == ApplyCoupon("SAVE20")


@given(st.sampled_from(sorted(GOOD_BODIES)), st.sampled_from(STATE_FIELDS),
       st.one_of(st.booleans(), st.integers(), st.text(max_size=5)))
def test_a_body_with_any_extra_field_is_refused(path: str, key: str, value: object) -> None:
    body = {**GOOD_BODIES[path], key: value}
    if key in GOOD_BODIES[path]:
        return
    with pytest.raises(BadRequest, match="unexpected field"):
        parse_action(path, body)


@pytest.mark.parametrize("path,body", [
    ("cart/add", {"product": "aurora-headphones", "quantity": True}),
    ("cart/add", {"product": "aurora-headphones", "quantity": 0}),
    ("cart/add", {"product": "aurora-headphones", "quantity": 11}),
    ("cart/add", {"product": "aurora-headphones", "quantity": 1.5}),
    ("cart/add", {"product": "free-lunch", "quantity": 1}),
    ("cart/add", {"product": "aurora-headphones"}),
    ("cart/add", ["aurora-headphones", 1]),
    ("checkout", {"name": "   ", "city": "Oslo"}),
    ("checkout", {"name": "Ada\u0000", "city": "Oslo"}),
    ("checkout", {"name": "A" * 81, "city": "Oslo"}),
    ("checkout", {"name": 7, "city": "Oslo"}),
    ("coupon", {"code": ""}),
    ("stage", {"stage": "review"}),
])
def test_malformed_bodies_are_refused(path: str, body: object) -> None:
    with pytest.raises(BadRequest):
        parse_action(path, body)
