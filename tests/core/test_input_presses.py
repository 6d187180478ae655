"""A client's press at a point, judged by the name Chrome's tree gives the control there
(core/guard/input_presses.py), and the gate's part: check first, or forward."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from ajantik_cdp.core.guard.client_gate import ClientGate, RouteKind
from ajantik_cdp.core.guard.input_presses import PressPoint, judge_ax_nodes, press_point
from ajantik_cdp.core.guard.targets import TargetState
from ajantik_cdp.core.policy.config import parse_config

PATTERNS = ("proceed to submission", "^pay now$")
GUARDED = lambda tid: TargetState.GUARDED  # noqa: E731


@pytest.mark.parametrize(("method", "params", "point"), [
    ("Input.dispatchMouseEvent", {"type": "mousePressed", "x": 10, "y": 20.5},
     PressPoint(10, 20.5, "mousePressed")),
    ("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": 10, "y": 20}, None),
    ("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 10, "y": 20}, None),
    ("Input.dispatchMouseEvent", {"type": "mousePressed", "x": True, "y": 20}, None),
    ("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": 3, "y": 4}]},
     PressPoint(3, 4, "touchStart")),
    ("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": []}, None),
    ("Input.synthesizeTapGesture", {"x": 5, "y": 6}, PressPoint(5, 6, "tap")),
    ("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter"}, None),
])
def test_which_commands_press_a_point(method: str, params: dict[str, Any],
                                      point: PressPoint | None) -> None:
    assert press_point(method, params) == point


def ax(node_id: int, role: str, name: str, parent: int | None, backend: int) -> dict[str, Any]:
    return {"nodeId": str(node_id), "parentId": None if parent is None else str(parent),
            "role": {"type": "role", "value": role}, "backendDOMNodeId": backend,
            "name": {"type": "computedString", "value": name}}


TREE = [ax(1, "RootWebArea", "page", None, 100), ax(2, "generic", "", 1, 101),
        ax(3, "button", "Proceed to submission", 2, 102),
        ax(4, "StaticText", "Proceed to submission", 3, 103),
        ax(5, "button", "Save draft", 2, 104), ax(6, "StaticText", "Save draft", 5, 105),
        ax(7, "link", "PAY NOW", 2, 106), ax(8, "Iframe", "", 2, 107)]


@pytest.mark.parametrize(("backend", "denied"), [
    (102, "Proceed to submission"), (103, "Proceed to submission"),  # its text
    (104, None), (105, None), (106, "PAY NOW"), (101, None), (100, None),
    (107, None),  # a frame: its own target's page-side check judges inside it
    (999, None),  # a node the tree does not have
])
def test_the_nearest_pressable_node_is_judged_by_chromes_name(backend: int,
                                                              denied: str | None) -> None:
    found = judge_ax_nodes(PATTERNS, TREE, backend, "mousePressed")
    assert (found.name if found else None) == denied
    if found:
        assert found.rule.startswith("deny_clicks[") and found.event == "mousePressed"


def test_a_parent_loop_ends() -> None:
    loop = [ax(1, "generic", "", 2, 1), ax(2, "generic", "", 1, 2)]
    assert judge_ax_nodes(PATTERNS, loop, 1, "tap") is None


def gate(config: dict[str, Any]) -> ClientGate:
    g = ClientGate(parse_config(config))
    for sid, tid, kind in (("S1", "T1", "page"), ("W1", "T2", "worker")):
        g.observe(orjson.dumps({"method": "Target.attachedToTarget", "params": {
            "sessionId": sid, "targetInfo": {"targetId": tid, "type": kind}}}).decode())
    return g


def press(session: str) -> str:
    return orjson.dumps({"id": 4, "method": "Input.dispatchMouseEvent", "sessionId": session,
                         "params": {"type": "mousePressed", "x": 1, "y": 2}}).decode()


def test_the_gate_checks_a_page_press_first_and_answers_a_swallowed_one_as_done() -> None:
    route = gate({"deny_clicks": list(PATTERNS)}).route_text(press("S1"), GUARDED)
    assert route.kind is RouteKind.CHECK and route.press == PressPoint(1, 2, "mousePressed")
    assert orjson.loads(route.swallow_reply) == {"id": 4, "result": {}, "sessionId": "S1"}
    assert orjson.loads(route.text)["params"]["type"] == "mousePressed"


def test_without_deny_clicks_or_off_a_page_the_press_is_forwarded() -> None:
    assert gate({}).route_text(press("S1"), GUARDED).kind is RouteKind.FORWARD
    assert gate({"deny_clicks": ["x"]}).route_text(press("W1"), GUARDED).kind \
        is RouteKind.FORWARD


def test_a_wrapped_press_goes_on_to_the_page_side_check() -> None:
    g = gate({"deny_clicks": list(PATTERNS)})
    inner = orjson.loads(press("S1"))
    del inner["sessionId"]
    wrapped = orjson.dumps({"id": 9, "method": "Target.sendMessageToTarget", "params": {
        "sessionId": "S1", "message": orjson.dumps(inner).decode()}}).decode()
    assert g.route_text(wrapped, GUARDED).kind is RouteKind.FORWARD
