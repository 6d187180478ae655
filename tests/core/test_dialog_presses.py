"""Accepting a JavaScript dialog is a press on a control named by its message: the gate
judges it by deny_clicks (core/guard/dialog_presses.py)."""

from __future__ import annotations

import orjson
import pytest

from ajantik_cdp.core.guard.client_gate import ClientGate, RouteKind
from ajantik_cdp.core.guard.dialog_presses import OpenDialog, denied_accept
from ajantik_cdp.core.guard.targets import TargetState
from ajantik_cdp.core.policy.config import parse_config

CFG = parse_config({"deny_clicks": ["proceed to submission", "^pay now$"]})
GUARDED = lambda tid: TargetState.GUARDED  # noqa: E731


def dumps(msg: object) -> str:
    return orjson.dumps(msg).decode()


def opening(session: str | None, message: str, kind: str = "confirm") -> str:
    msg: dict[str, object] = {"method": "Page.javascriptDialogOpening", "params": {
        "url": "https://portal/form", "frameId": "F", "message": message, "type": kind,
        "hasBrowserHandler": False, "defaultPrompt": ""}}
    if session:
        msg["sessionId"] = session
    return dumps(msg)


def accept(session: str | None = "S1", accept: object = True, msg_id: int = 7) -> str:
    msg: dict[str, object] = {"id": msg_id, "method": "Page.handleJavaScriptDialog",
                              "params": {"accept": accept}}
    if session:
        msg["sessionId"] = session
    return dumps(msg)


def gate_with_page() -> ClientGate:
    gate = ClientGate(CFG)
    gate.observe(dumps({"method": "Target.attachedToTarget", "params": {
        "sessionId": "S1", "targetInfo": {"targetId": "T1", "type": "page"}}}))
    return gate


@pytest.mark.parametrize(("message", "kind", "denied"), [
    ("Proceed to submission?", "confirm", True),
    ("PROCEED TO SUBMİSSİON?", "confirm", True),
    ("Proceed to submission? Type YES", "prompt", True),
    ("Proceed to submission", "beforeunload", True),
    ("Proceed to submission", "alert", False),  # one button: nothing is decided
    ("Save draft?", "confirm", False),
    ("Pay now", "confirm", True),
    ("Pay now?", "confirm", False),  # ^pay now$ is anchored
])
def test_a_dialog_accept_is_judged_by_its_message(message: str, kind: str,
                                                  denied: bool) -> None:
    found = denied_accept(CFG.deny_clicks, "T1", OpenDialog(message, kind, "u"))
    assert (found is not None) == denied
    if found:
        assert found.event == f"{kind} accept" and found.rule.startswith("deny_clicks[")


def test_the_gate_refuses_the_accept_and_lets_the_dismiss_through() -> None:
    gate = gate_with_page()
    gate.incoming(opening("S1", "Proceed to submission?"))
    refused = gate.route_text(accept(), GUARDED)
    assert refused.kind is RouteKind.REPLY and refused.refused_dialog is not None
    reply = orjson.loads(refused.text)
    assert reply["id"] == 7 and reply["sessionId"] == "S1"
    assert "refuses to accept the confirm dialog" in reply["error"]["message"]
    assert "deny_clicks[0] 'proceed to submission'" in reply["error"]["message"]
    # An accept spelled otherwise (missing, or truthy but not True) is still an accept.
    for odd in (None, 1, "yes"):
        assert gate.route_text(accept(accept=odd), GUARDED).kind is RouteKind.REPLY
    assert gate.route_text(accept(accept=False), GUARDED).kind is RouteKind.FORWARD
    gate.incoming(dumps({"method": "Page.javascriptDialogClosed", "sessionId": "S1",
                         "params": {"result": False, "userInput": ""}}))
    assert gate.route_text(accept(), GUARDED).kind is RouteKind.FORWARD  # none open


def test_the_guard_sessions_view_counts_when_the_client_saw_nothing() -> None:
    gate = gate_with_page()
    gate.guard_dialog = lambda tid: OpenDialog("Proceed to submission?", "confirm", "u") \
        if tid == "T1" else None
    assert gate.route_text(accept(), GUARDED).kind is RouteKind.REPLY


def test_a_page_link_and_a_wrapped_command_are_judged_alike() -> None:
    link = ClientGate(CFG, page_target="T9")
    link.incoming(opening(None, "Proceed to submission?"))
    assert link.route_text(accept(session=None), GUARDED).kind is RouteKind.REPLY

    gate = gate_with_page()
    inner = orjson.loads(opening(None, "Proceed to submission?"))
    gate.incoming(dumps({"method": "Target.receivedMessageFromTarget", "params": {
        "sessionId": "S1", "message": dumps(inner), "targetId": "T1"}}))
    wrapped = dumps({"id": 3, "method": "Target.sendMessageToTarget", "params": {
        "sessionId": "S1", "message": accept(session=None, msg_id=99)}})
    route = gate.route_text(wrapped, GUARDED)
    assert route.kind is RouteKind.REPLY and route.refused_dialog is not None
    assert orjson.loads(route.text)["id"] == 3


def test_without_deny_clicks_every_accept_goes_through() -> None:
    gate = ClientGate(parse_config({}))
    gate.observe(dumps({"method": "Target.attachedToTarget", "params": {
        "sessionId": "S1", "targetInfo": {"targetId": "T1", "type": "page"}}}))
    gate.incoming(opening("S1", "Proceed to submission?"))
    assert gate.route_text(accept(), GUARDED).kind is RouteKind.FORWARD
