"""Which permissions the guard denies in each browser context, and which client commands
would lift them (core/guard/browser_permissions.py)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from ajantik_cdp.core.guard.browser_permissions import (
    DeniedContexts,
    deny_commands,
    permission_refusal,
)
from ajantik_cdp.core.guard.client_gate import ClientGate, RouteKind
from ajantik_cdp.core.guard.targets import TargetState
from ajantik_cdp.core.policy.config import parse_config


def test_each_context_gets_the_denials_once() -> None:
    book = DeniedContexts()
    first = book.needed("CTX")
    assert [p["permission"]["name"] for _, p in first] == \
        ["background-sync", "periodic-background-sync"]
    assert all(m == "Browser.setPermission" and p["setting"] == "denied"
               and p["browserContextId"] == "CTX" for m, p in first)
    assert book.needed("CTX") == []
    assert book.needed("OTHER") != []


def test_the_default_context_is_named_by_leaving_the_id_out() -> None:
    assert all("browserContextId" not in p for _, p in deny_commands(None))


@pytest.mark.parametrize(("method", "params"), [
    ("Browser.setPermission", {"permission": {"name": "background-sync"},
                               "setting": "granted"}),
    ("Browser.setPermission", {"permission": {"name": "Background_Sync"},
                               "setting": "prompt"}),
    ("Browser.setPermission", {"permission": {"name": "periodic-background-sync"},
                               "setting": "granted", "browserContextId": "X"}),
    ("Browser.grantPermissions", {"permissions": ["geolocation", "backgroundSync"]}),
    ("Browser.grantPermissions", {"permissions": ["periodicBackgroundSync"]}),
    ("Browser.resetPermissions", {}),
])
def test_commands_that_would_lift_a_denial_are_refused(method: str,
                                                       params: dict[str, Any]) -> None:
    assert permission_refusal(method, params)


@pytest.mark.parametrize(("method", "params"), [
    ("Browser.setPermission", {"permission": {"name": "background-sync"},
                               "setting": "denied"}),
    ("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": "granted"}),
    ("Browser.grantPermissions", {"permissions": ["geolocation", "notifications"]}),
    ("Browser.setPermission", {"permission": "background-sync", "setting": "granted"}),
    ("Page.navigate", {"url": "https://example.com/"}),
])
def test_other_commands_pass(method: str, params: dict[str, Any]) -> None:
    assert permission_refusal(method, params) is None


def test_the_gate_answers_a_refused_grant_itself() -> None:
    gate = ClientGate(parse_config({}))
    text = orjson.dumps({"id": 7, "method": "Browser.grantPermissions",
                         "params": {"permissions": ["backgroundSync"]}}).decode()
    route = gate.route_text(text, lambda _: TargetState.GUARDED)
    assert route.kind is RouteKind.REPLY
    assert "ajantik cdp refuses Browser.grantPermissions" in route.text
