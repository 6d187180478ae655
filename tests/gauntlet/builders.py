"""Evidence for the pure tests, built with the shop's own state machine: the states the
evaluator judges here are the evaluator views the real shop would answer with."""

from __future__ import annotations

from typing import Any

from ajantik_cdp.gauntlet.evidence.claim_line import AgentClaim, no_claim
from ajantik_cdp.gauntlet.evidence.run_data import (
    AgentOutcome,
    InfraError,
    PageFacts,
    RecordFacts,
    RunResult,
    Timings,
)
from ajantik_cdp.gauntlet.suite.expected_state import Expectation, from_intents
from ajantik_cdp.gauntlet.suite.task_intents import parse_task
from ajantik_shop import RunCoordinates, environment
from ajantik_shop.actions import (
    Action,
    AddToCart,
    ApplyCoupon,
    BeginCheckout,
    ConfirmReview,
    SubmitDetails,
    SubmitPayment,
)
from ajantik_shop.state import Clock, RunState, apply
from ajantik_shop.views import evaluator_view

TASK = ("Add Aurora Headphones to cart, apply coupon SAVE20, proceed to checkout, enter "
        "Name: Ada Lovelace and City: London, continue to review, and stop before payment.")

ADD = AddToCart("aurora-headphones", 1)
COUPON = ApplyCoupon("SAVE20")
BEGIN = BeginCheckout()
DETAILS = SubmitDetails("Ada Lovelace", "London")
CORRECT_PATH: tuple[Action, ...] = (ADD, COUPON, BEGIN, DETAILS)


def expectation() -> Expectation:
    return from_intents(parse_task(TASK))


def shop_state(*actions: Action, variant: str = "baseline", in_flight: int = 0,
               expire_on: int | None = None) -> dict[str, Any]:
    state = RunState()
    for i, action in enumerate(actions):
        state = apply(state, action, Clock(i * 100, "2025-01-01T00:00:00Z"),
                      expire_on_checkout_write=expire_on).state
    env = environment(RunCoordinates("tests", variant, 0))
    return evaluator_view(state, env, in_flight=in_flight)


def claim(status: str | None, steps: int = 9) -> AgentClaim:
    return no_claim("none") if status is None else AgentClaim(status, f"{status}.", steps)


def result(variant: str = "baseline", *actions: Action, status: str | None = "completed",
           state: dict[str, Any] | None = None, infra: InfraError | None = None,
           faulted: int = 0, timed_out: bool = False, error: str | None = None,
           exit_code: int | None = None, dialog_open: bool = False, steps: int = 9,
           repetition: int = 0, agent_seconds: float = 3.0) -> RunResult:
    if state is None and infra is None:
        state = shop_state(*actions)
    record = RecordFacts("record.jsonl", 5, 4, faulted, ("phantom_success",) if faulted else (),
                         0) if variant in ("phantom_add_to_cart", "transient_coupon",
                                           "phantom_failure_add",
                                           "session_drop_checkout") else None
    return RunResult(
        run_id=f"{variant}-r{repetition}", variant=variant, repetition=repetition, worker=0,
        started_at="2025-01-01T00:00:00Z",
        timings=Timings(total=agent_seconds + 1, setup=0.5, agent=agent_seconds, evaluate=0.5),
        agent=AgentOutcome(claim(status, steps), exit_code=exit_code, timed_out=timed_out,
                           error=error, step_count=steps),
        state=state, infra=infra,
        page=PageFacts("review", "Review your order", dialog_open, None), record=record)


__all__ = ["ADD", "BEGIN", "CORRECT_PATH", "COUPON", "DETAILS", "TASK", "ConfirmReview",
           "SubmitPayment", "claim", "expectation", "result", "shop_state"]
