"""What the rules and the fault say about one paused request, before anything is sent.

At the request stage a request is failed (blocked), answered by a fault without reaching
the system, or continued; it is continued with response interception only when its answer
must be recorded or replaced. At the response stage the system's answer is passed on, or
replaced by the fault's status.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.faults import CLIENT_STATUS, REASON_PHRASE, FaultKind, FaultState
from ajantik_cdp.core.policy.rules import Decision, RequestFacts, decide


class Step(Enum):
    FAIL = "fail"  # Fetch.failRequest BlockedByClient
    FULFILL = "fulfill"  # Fetch.fulfillRequest with ``status``; never reaches the system
    CONTINUE = "continue"  # Fetch.continueRequest


@dataclass(frozen=True)
class RequestPlan:
    step: Step
    decision: Decision
    fault: FaultKind | None = None
    status: int | None = None  # for FULFILL
    intercept_response: bool = False


def plan_request(config: GuardConfig, faults: FaultState, facts: RequestFacts,
                 recording: bool = True) -> RequestPlan:
    decision = decide(config, facts)
    if decision.blocked:
        return RequestPlan(Step.FAIL, decision)
    fault = faults.on_write(facts.url) if decision.is_write else None
    if fault is None:
        # With no record to write, waiting for the answer would only cost a round trip.
        return RequestPlan(Step.CONTINUE, decision,
                           intercept_response=decision.record and recording)
    if fault is FaultKind.PHANTOM_FAILURE:
        # The write really goes out; only the answer the client sees is replaced.
        return RequestPlan(Step.CONTINUE, decision, fault, intercept_response=True)
    return RequestPlan(Step.FULFILL, decision, fault, status=CLIENT_STATUS[fault])


def client_status_after_response(fault: FaultKind | None, system_status: int) -> int:
    if fault is FaultKind.PHANTOM_FAILURE:
        return CLIENT_STATUS[fault]
    return system_status


def fault_headers(request_headers: dict[str, str], status: int) -> list[dict[str, str]]:
    """Headers of a fabricated answer. Cross-origin callers need CORS headers, or the page
    would see a network error instead of the status the fault means to show."""
    headers = [{"name": "Cache-Control", "value": "no-store"}]
    if status != 204:
        headers.append({"name": "Content-Type", "value": "text/plain; charset=utf-8"})
    origin = next((v for k, v in request_headers.items() if k.lower() == "origin"), None)
    if origin and origin != "null":
        headers.append({"name": "Access-Control-Allow-Origin", "value": origin})
        headers.append({"name": "Access-Control-Allow-Credentials", "value": "true"})
        headers.append({"name": "Vary", "value": "Origin"})
    return headers


@dataclass(frozen=True)
class MadeUpAnswer:
    """The answer a fault gives in place of the system's: its status, reason phrase as
    the body (none for 204), and headers that let a cross-origin caller read it."""

    status: int
    phrase: str
    headers: tuple[tuple[str, str], ...]
    body: bytes


def made_up_answer(status: int, request_headers: dict[str, str]) -> MadeUpAnswer:
    phrase = REASON_PHRASE.get(status, "")
    body = b"" if status == 204 else phrase.encode()
    headers = tuple((h["name"], h["value"]) for h in fault_headers(request_headers, status))
    return MadeUpAnswer(status, phrase, headers, body)
