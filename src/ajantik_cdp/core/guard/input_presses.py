"""A client's pointer presses, judged before Chrome sees them, by the name Chrome's own
accessibility tree gives the control under the point. Pure.

The page-side check (deny_clicks.js) judges every press however it is made, but by a name
it computes itself, in the page's DOM; the DOM cannot show everything Chrome's tree
names a control by (a custom element's ``ElementInternals`` role and label). A client's
``Input.dispatchMouseEvent`` (``mousePressed``), ``Input.dispatchTouchEvent``
(``touchStart``) or ``Input.synthesizeTapGesture`` names a point, and the gate sees it
before Chrome does: the guard asks Chrome what is there (``DOM.getNodeForLocation``) and
what its tree calls it (``Accessibility.getPartialAXTree`` with its ancestors), and a
press on a control whose name a pattern matches is answered as done and never sent. The
release that follows presses nothing. Where the question cannot be answered in time, the
press goes on to Chrome, where the page-side check still judges it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ajantik_cdp.core.policy.click_patterns import click_pattern_matches

# Chrome's tree's roles for controls a press acts on (its spelling, compared lowercased).
PRESSABLE_ROLES = frozenset({
    "button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "option",
    "switch", "checkbox", "radio", "treeitem", "menulistoption", "listboxoption",
    "togglebutton", "popupbutton",
})
STOP_ROLES = frozenset({"rootwebarea", "webarea", "iframe", "iframepresentational"})


@dataclass(frozen=True)
class PressPoint:
    x: float
    y: float
    event: str  # how the record names the press: "mousePressed", "touchStart", "tap"


@dataclass(frozen=True)
class PressDenial:
    name: str
    rule_index: int
    rule: str
    event: str


def _coordinate(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def press_point(method: str, params: Mapping[str, Any]) -> PressPoint | None:
    """The point a client's command presses, or None when it presses nothing."""
    where: Mapping[str, Any] = params
    if method == "Input.dispatchMouseEvent":
        if params.get("type") != "mousePressed":
            return None
        event = "mousePressed"
    elif method == "Input.dispatchTouchEvent":
        points = params.get("touchPoints")
        if params.get("type") != "touchStart" or not isinstance(points, list) or not points \
                or not isinstance(points[0], Mapping):
            return None
        where, event = points[0], "touchStart"
    elif method == "Input.synthesizeTapGesture":
        event = "tap"
    else:
        return None
    x, y = _coordinate(where.get("x")), _coordinate(where.get("y"))
    if x is None or y is None:
        return None
    return PressPoint(x, y, event)


def _value(field: Any) -> str:
    value = field.get("value") if isinstance(field, Mapping) else None
    return value if isinstance(value, str) else ""


def judge_ax_nodes(patterns: Sequence[str], nodes: Sequence[Mapping[str, Any]],
                   backend_node_id: int, event: str) -> PressDenial | None:
    """The denial of a press on ``backend_node_id``, from ``getPartialAXTree`` with its
    relatives: the nearest pressable node at or above it, named as Chrome names it."""
    by_id = {n.get("nodeId"): n for n in nodes if isinstance(n, Mapping)}
    current = next((n for n in by_id.values()
                    if n.get("backendDOMNodeId") == backend_node_id), None)
    seen: set[Any] = set()
    while current is not None and current.get("nodeId") not in seen:
        seen.add(current.get("nodeId"))
        role = _value(current.get("role")).lower()
        if role in STOP_ROLES:
            return None
        if role in PRESSABLE_ROLES:
            name = _value(current.get("name"))
            for index, pattern in enumerate(patterns):
                if click_pattern_matches(pattern, name):
                    return PressDenial(name, index, f"deny_clicks[{index}] {pattern!r}", event)
            return None
        current = by_id.get(current.get("parentId"))
    return None
