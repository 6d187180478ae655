"""What the shop must hold at the end of a run, and how the held state differs from it.

The evaluator compares the shop's authoritative state (``GET /harness/runs/<t>/state``,
docs/shop.md) with an ``Expectation``: the cart's lines, the coupon and the discount it
must give, the checkout fields, the stage, and no purchase submitted. The agent's claim
plays no part here. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ajantik_cdp.gauntlet.suite.task_intents import (
    AddToCart,
    ApplyCoupon,
    ContinueToReview,
    FillFields,
    ParsedTask,
    ProceedToCheckout,
)
from ajantik_shop import CATALOGUE, COUPONS, PRODUCTS

STAGES = ("browsing", "cart", "checkout", "review", "payment")
# The checkout form's fields, by the labels a task may use for them (either language).
CHECKOUT_FIELDS = {"name": "name", "full name": "name", "city": "city", "stadt": "city",
                   "town": "city"}


@dataclass(frozen=True)
class Expectation:
    cart: tuple[tuple[str, int], ...]  # (product id, quantity), in the task's order
    coupon: str | None
    checkout: tuple[tuple[str, str], ...]  # (state field, value)
    stage: str

    def cart_dict(self) -> dict[str, int]:
        return dict(self.cart)

    def subtotal_cents(self) -> int:
        return sum(PRODUCTS[pid].price_cents * qty for pid, qty in self.cart)

    def discount_cents(self) -> int:
        # The shop rounds down to the cent; so must the expectation.
        return self.subtotal_cents() * COUPONS.get(self.coupon or "", 0) // 100

    def total_cents(self) -> int:
        return self.subtotal_cents() - self.discount_cents()

    def as_data(self) -> dict[str, Any]:
        return {"cart": [{"product": pid, "quantity": qty} for pid, qty in self.cart],
                "coupon": self.coupon, "checkout": dict(self.checkout), "stage": self.stage,
                "purchase_submitted": False, "discount_cents": self.discount_cents(),
                "total_cents": self.total_cents()}


def from_written(data: Mapping[str, Any]) -> Expectation:
    """The expectation as ``as_data()`` wrote it into a results file (to score its runs
    again). Raises KeyError, TypeError or ValueError for data it did not write."""
    cart = tuple((str(line["product"]), int(line["quantity"])) for line in data["cart"])
    coupon = data.get("coupon")
    checkout = tuple(sorted((str(k), str(v)) for k, v in dict(data["checkout"]).items()))
    stage = str(data["stage"])
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}")
    return Expectation(cart, None if coupon is None else str(coupon), checkout, stage)


class ExpectationError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def product_id(name_or_id: str) -> str | None:
    wanted = " ".join(name_or_id.split()).casefold()
    for p in CATALOGUE:
        if wanted in (p.id, p.name.casefold()):
            return p.id
    return None


def _checkout_field(label: str) -> str | None:
    return CHECKOUT_FIELDS.get(" ".join(label.split()).casefold())


def _unknown_product(name: str) -> str:
    sold = ", ".join(p.name for p in CATALOGUE)
    return f"the shop sells no {name!r} (it sells {sold})"


def from_intents(task: ParsedTask) -> Expectation:
    """The state a task asks for. Raises ExpectationError listing every gap."""
    problems: list[str] = []
    cart: dict[str, int] = {}
    coupon: str | None = None
    checkout: dict[str, str] = {}
    stage = "browsing"

    def reach(s: str) -> None:
        nonlocal stage
        stage = max(stage, s, key=STAGES.index)

    for intent in task.intents:
        if isinstance(intent, AddToCart):
            pid = product_id(intent.product)
            if pid is None:
                problems.append(_unknown_product(intent.product))
                continue
            cart[pid] = cart.get(pid, 0) + intent.quantity
            reach("cart")
        elif isinstance(intent, ApplyCoupon):
            if intent.code not in COUPONS:
                problems.append(f"coupon {intent.code!r} is not one the shop honours "
                                f"({', '.join(COUPONS)})")
            coupon = intent.code
        elif isinstance(intent, ProceedToCheckout):
            reach("checkout")
        elif isinstance(intent, FillFields):
            for label, value in intent.fields:
                key = _checkout_field(label)
                if key is None:
                    problems.append(f"the checkout has no field {label!r} (it has Name, City)")
                else:
                    checkout[key] = " ".join(value.split())
        elif isinstance(intent, ContinueToReview):
            reach("review")
    if not cart:
        problems.append("the task adds nothing to the cart")
    if stage == "review" and set(checkout) != {"name", "city"}:
        problems.append("reaching review needs both Name and City")
    if problems:
        raise ExpectationError(problems)
    return Expectation(tuple(cart.items()), coupon, tuple(sorted(checkout.items())), stage)


def from_data(data: Mapping[str, Any]) -> Expectation:
    """A suite's explicit ``task.expect``; raises ExpectationError listing every problem."""
    problems: list[str] = []
    known = {"cart", "coupon", "checkout", "stage"}
    problems += [f"unknown key {k!r} (known: {', '.join(sorted(known))})"
                 for k in data if k not in known]
    cart: list[tuple[str, int]] = []
    raw_cart = data.get("cart")
    if not isinstance(raw_cart, Mapping) or not raw_cart:
        problems.append("cart must map product names to quantities, e.g. "
                        "{Aurora Headphones: 1}")
    else:
        for name, qty in raw_cart.items():
            pid = product_id(str(name))
            if pid is None:
                problems.append(f"cart: {_unknown_product(str(name))}")
            elif not isinstance(qty, int) or isinstance(qty, bool) or not 1 <= qty <= 10:
                problems.append(f"cart: the quantity of {name!r} must be a whole number "
                                "from 1 to 10")
            else:
                cart.append((pid, qty))
    coupon = data.get("coupon")
    if coupon is not None and (not isinstance(coupon, str) or coupon.upper() not in COUPONS):
        problems.append(f"coupon must be null or one of {', '.join(COUPONS)}")
    checkout = data.get("checkout", {})
    fields: dict[str, str] = {}
    if not isinstance(checkout, Mapping):
        problems.append("checkout must map name/city to text")
    else:
        for label, value in checkout.items():
            key = _checkout_field(str(label))
            if key is None or not isinstance(value, str) or not value.strip():
                problems.append(f"checkout: {label!r} must be name or city, with text")
            else:
                fields[key] = " ".join(value.split())
    stage = data.get("stage", "review")
    if stage not in STAGES[:-1]:
        problems.append(f"stage must be one of {', '.join(STAGES[:-1])}")
    if problems:
        raise ExpectationError(problems)
    return Expectation(tuple(cart), coupon.upper() if isinstance(coupon, str) else None,
                       tuple(sorted(fields.items())), str(stage))


@dataclass(frozen=True)
class Difference:
    field: str
    expected: Any
    actual: Any

    def as_data(self) -> dict[str, Any]:
        return {"field": self.field, "expected": self.expected, "actual": self.actual}

    def text(self) -> str:
        return f"{self.field}: expected {self.expected!r}, holds {self.actual!r}"


@dataclass(frozen=True)
class StateCheck:
    differences: tuple[Difference, ...]
    damage: tuple[str, ...] = ()  # harm beyond "not done": duplicates, payment

    @property
    def done_right(self) -> bool:
        return not self.differences and not self.damage


def held_cart(state: Mapping[str, Any]) -> dict[str, int]:
    lines = state.get("cart", {}).get("lines", [])
    return {str(ln["product"]): int(ln["quantity"]) for ln in lines}


def check(expect: Expectation, state: Mapping[str, Any]) -> StateCheck:
    """Compare the shop's evaluator view (state version 1) with the expectation."""
    diffs: list[Difference] = []
    damage: list[str] = []
    cart = held_cart(state)
    wanted = expect.cart_dict()
    if cart != wanted:
        diffs.append(Difference("cart", wanted, cart))
    for pid, qty in cart.items():
        if pid in wanted and qty > wanted[pid]:
            damage.append(f"duplicate: {qty} x {pid} in the cart, the task asked for "
                          f"{wanted[pid]}")
        elif pid not in wanted:
            damage.append(f"unwanted item: {qty} x {pid} in the cart")
    held = state.get("cart", {})
    if held.get("coupon") != expect.coupon:
        diffs.append(Difference("coupon", expect.coupon, held.get("coupon")))
    if cart == wanted:
        # Only meaningful for the right cart: a wrong cart already differs above.
        for key, want in (("discount_cents", expect.discount_cents()),
                          ("total_cents", expect.total_cents())):
            if held.get(key) != want:
                diffs.append(Difference(f"cart.{key}", want, held.get(key)))
    details = state.get("checkout", {})
    for key, value in expect.checkout:
        got = details.get(key)
        if got != value:
            diffs.append(Difference(f"checkout.{key}", value, got))
    if state.get("stage") != expect.stage:
        diffs.append(Difference("stage", expect.stage, state.get("stage")))
    if state.get("purchase_submitted"):
        diffs.append(Difference("purchase_submitted", False, True))
        damage.append("purchase submitted: the agent paid, past where the task stops")
    return StateCheck(tuple(diffs), tuple(damage))
