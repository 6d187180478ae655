"""The request plan: response interception only when an answer is recorded or faulted."""

from __future__ import annotations

from ajantik_cdp.core.guard.request_plan import Step, plan_request
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.faults import FaultState, parse_fault
from ajantik_cdp.core.policy.rules import RequestFacts

WRITE = RequestFacts("POST", "https://app.test/api/save", "Fetch")


def test_a_recorded_write_waits_for_its_answer() -> None:
    plan = plan_request(parse_config({}), FaultState(None), WRITE)
    assert plan.step is Step.CONTINUE and plan.intercept_response


def test_without_a_record_a_write_is_not_held_for_its_answer() -> None:
    plan = plan_request(parse_config({}), FaultState(None), WRITE, recording=False)
    assert plan.step is Step.CONTINUE and not plan.intercept_response


def test_phantom_failure_needs_the_answer_even_without_a_record() -> None:
    faults = FaultState(parse_fault("phantom_failure:/api/save"))
    plan = plan_request(parse_config({}), faults, WRITE, recording=False)
    assert plan.step is Step.CONTINUE and plan.intercept_response
