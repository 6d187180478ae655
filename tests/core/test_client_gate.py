"""The client gate, as a state machine: held, refused, rewritten, forwarded."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.client_gate import (
    ClientGate,
    NavigateWhenGuarded,
    RouteKind,
)
from ajantik_cdp.core.guard.targets import TargetState
from ajantik_cdp.core.policy.config import parse_config

CFG = parse_config({"deny": ["submission"], "allow_writes": ["^https://app/"]})


def dumps(msg: object) -> str:
    return orjson.dumps(msg).decode()


def attached(session: str, target: str, ttype: str = "page") -> str:
    return dumps({"method": "Target.attachedToTarget", "params": {
        "sessionId": session, "targetInfo": {"targetId": target, "type": ttype},
        "waitingForDebugger": True}})


def states(**by_target: TargetState):  # type: ignore[no-untyped-def]
    return lambda tid: by_target.get(tid, TargetState.UNKNOWN)


def test_command_for_target_being_guarded_is_held_then_forwarded() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    cmd = dumps({"id": 5, "method": "Runtime.runIfWaitingForDebugger", "sessionId": "S1"})
    held = gate.route_text(cmd, states(T1=TargetState.PENDING))
    assert held.kind is RouteKind.HOLD and held.target_id == "T1"
    fwd = gate.route_text(cmd, states(T1=TargetState.GUARDED))
    assert fwd.kind is RouteKind.FORWARD
    assert orjson.loads(fwd.text) == orjson.loads(cmd)


def test_unknown_target_is_held_and_failed_target_refused() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    cmd = dumps({"id": 1, "method": "Page.navigate", "params": {"url": "x"}, "sessionId": "S1"})
    assert gate.route_text(cmd, states()).kind is RouteKind.HOLD
    refused = gate.route_text(cmd, states(T1=TargetState.FAILED))
    assert refused.kind is RouteKind.REPLY
    reply = orjson.loads(refused.text)
    assert reply["id"] == 1 and reply["sessionId"] == "S1" and "could not be guarded" in \
        reply["error"]["message"]


def test_tab_and_browser_sessions_pass_while_pages_wait() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("TAB", "T-tab", "tab"))
    cmd = dumps({"id": 2, "method": "Target.setAutoAttach", "sessionId": "TAB",
                 "params": {"autoAttach": True}})
    assert gate.route_text(cmd, states()).kind is RouteKind.FORWARD
    browser_level = dumps({"id": 3, "method": "Target.getTargets"})
    assert gate.route_text(browser_level, states()).kind is RouteKind.FORWARD


def test_page_connection_is_gated_on_its_own_target() -> None:
    gate = ClientGate(CFG, page_target="P1")
    cmd = dumps({"id": 1, "method": "Runtime.evaluate", "params": {"expression": "1"}})
    assert gate.route_text(cmd, states(P1=TargetState.PENDING)).kind is RouteKind.HOLD
    assert gate.route_text(cmd, states(P1=TargetState.GUARDED)).kind is RouteKind.FORWARD


def test_detached_session_is_forgotten() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    gate.observe(dumps({"method": "Target.detachedFromTarget", "params": {"sessionId": "S1"}}))
    cmd = dumps({"id": 1, "method": "Runtime.evaluate", "sessionId": "S1"})
    # Chrome answers for a session it no longer has; the gate has nothing to hold.
    assert gate.route_text(cmd, states()).kind is RouteKind.FORWARD


def test_create_target_with_url_is_opened_blank_then_navigated() -> None:
    gate = ClientGate(CFG)
    cmd = dumps({"id": 9, "method": "Target.createTarget",
                 "params": {"url": "https://app/submission", "newWindow": True}})
    route = gate.route_text(cmd, states())
    sent = orjson.loads(route.text)
    assert sent["params"] == {"url": "about:blank", "newWindow": True}
    assert gate.wants('{"id":9,"result":{"targetId":"NEW"}}')
    navs = gate.observe('{"id":9,"result":{"targetId":"NEW"}}')
    assert navs == [NavigateWhenGuarded("NEW", "https://app/submission")]
    assert gate.observe('{"id":9,"result":{"targetId":"NEW"}}') == []


def test_blank_create_target_is_untouched() -> None:
    gate = ClientGate(CFG)
    for url in ("", "about:blank"):
        cmd = dumps({"id": 1, "method": "Target.createTarget", "params": {"url": url}})
        assert orjson.loads(gate.route_text(cmd, states()).text)["params"]["url"] == url
    assert not gate.deferred_urls


def test_refused_methods() -> None:
    gate = ClientGate(CFG)
    cmd = dumps({"id": 4, "method": "Target.exposeDevToolsProtocol",
                 "params": {"targetId": "T1"}})
    route = gate.route_text(cmd, states())
    assert route.kind is RouteKind.REPLY
    assert "bypasses the guard" in orjson.loads(route.text)["error"]["message"]


def paused(session: str, rid: str, method: str, url: str) -> str:
    return dumps({"method": "Fetch.requestPaused", "sessionId": session, "params": {
        "requestId": rid, "resourceType": "XHR", "request": {"method": method, "url": url}}})


def test_client_rewrite_into_denied_url_becomes_fail() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    gate.observe(paused("S1", "R1", "POST", "https://app/draft"))
    cmd = dumps({"id": 7, "method": "Fetch.continueRequest", "sessionId": "S1",
                 "params": {"requestId": "R1", "url": "https://app/submission"}})
    route = gate.route_text(cmd, states(T1=TargetState.GUARDED))
    sent = orjson.loads(route.text)
    assert sent["method"] == "Fetch.failRequest" and sent["id"] == 7
    assert sent["params"] == {"requestId": "R1", "errorReason": "BlockedByClient"}
    assert route.blocked is not None and route.blocked.decision.reason == "deny"


def test_client_rewrite_of_method_outside_allowlist_becomes_fail() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    gate.observe(paused("S1", "R2", "GET", "https://elsewhere/x"))
    cmd = dumps({"id": 8, "method": "Fetch.continueRequest", "sessionId": "S1",
                 "params": {"requestId": "R2", "method": "POST"}})
    sent = orjson.loads(gate.route_text(cmd, states(T1=TargetState.GUARDED)).text)
    assert sent["method"] == "Fetch.failRequest"


def test_harmless_rewrite_passes() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    gate.observe(paused("S1", "R3", "POST", "https://app/draft"))
    cmd = dumps({"id": 9, "method": "Fetch.continueRequest", "sessionId": "S1",
                 "params": {"requestId": "R3", "url": "https://app/draft2"}})
    route = gate.route_text(cmd, states(T1=TargetState.GUARDED))
    assert orjson.loads(route.text)["method"] == "Fetch.continueRequest"
    assert route.blocked is None


def test_nested_non_flat_messages_are_gated_like_flat_ones() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    inner = dumps({"id": 1, "method": "Runtime.runIfWaitingForDebugger"})
    outer = dumps({"id": 50, "method": "Target.sendMessageToTarget",
                   "params": {"sessionId": "S1", "message": inner}})
    assert gate.route_text(outer, states(T1=TargetState.PENDING)).kind is RouteKind.HOLD
    fwd = gate.route_text(outer, states(T1=TargetState.GUARDED))
    sent = orjson.loads(fwd.text)
    assert sent["method"] == "Target.sendMessageToTarget"
    assert orjson.loads(sent["params"]["message"])["method"] == \
        "Runtime.runIfWaitingForDebugger"
    bad = dumps({"id": 51, "method": "Target.sendMessageToTarget", "params": {
        "sessionId": "S1", "message": dumps({"id": 2, "method": "Target.exposeDevToolsProtocol"})}})
    reply = orjson.loads(gate.route_text(bad, states(T1=TargetState.GUARDED)).text)
    assert reply["id"] == 51 and "error" in reply


def test_duplicate_keys_cannot_smuggle_a_method() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    raw = ('{"id":1,"method":"Runtime.evaluate","sessionId":"S1",'
           '"method":"Runtime.runIfWaitingForDebugger"}')
    route = gate.route_text(raw, states(T1=TargetState.PENDING))
    assert route.kind is RouteKind.HOLD  # judged on the last key...
    fwd = gate.route_text(raw, states(T1=TargetState.GUARDED))
    assert fwd.text.count('"method"') == 1  # ...and Chrome gets exactly what was judged
    # The film's action line reads the parsed command: it is the one Chrome gets.
    assert fwd.command == orjson.loads(fwd.text)


def test_the_parsed_command_of_a_nested_message_is_the_inner_one() -> None:
    """The film summarises what acts on the page, not its envelope."""
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    inner = dumps({"id": 3, "method": "Input.dispatchMouseEvent",
                   "params": {"type": "mousePressed", "x": 5, "y": 6}})
    outer = dumps({"id": 60, "method": "Target.sendMessageToTarget",
                   "params": {"sessionId": "S1", "message": inner}})
    fwd = gate.route_text(outer, states(T1=TargetState.GUARDED))
    assert fwd.kind is RouteKind.FORWARD and fwd.target_id == "T1"
    assert fwd.command == orjson.loads(orjson.loads(fwd.text)["params"]["message"])
    assert fwd.command is not None and fwd.command["method"] == "Input.dispatchMouseEvent"


@given(st.one_of(st.text(max_size=30), st.binary(max_size=30).map(lambda b: b.hex())))
def test_garbage_is_answered_never_forwarded(text: str) -> None:
    gate = ClientGate(CFG)
    route = gate.route_text(text, states())
    if route.kind is RouteKind.FORWARD:
        msg = orjson.loads(route.text)
        assert isinstance(msg["id"], int) and isinstance(msg["method"], str)
        assert route.command == msg
    else:
        assert route.kind is RouteKind.REPLY and "error" in orjson.loads(route.text)


def test_malformed_messages_get_chrome_like_errors() -> None:
    gate = ClientGate(CFG)
    for text in ("not json", "[1]", '{"method":"x"}', '{"id":"1","method":"x"}',
                 '{"id":1}', '{"id":1,"method":"x","sessionId":5}',
                 '{"id":1,"method":"x","params":[]}'):
        route = gate.route_text(text, states())
        assert route.kind is RouteKind.REPLY, text


def test_chromes_settings_page_is_never_opened_for_a_client() -> None:
    """It is where "Preload pages" could be turned back on."""
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    for method, params, session in (
            ("Target.createTarget", {"url": "chrome://settings/performance"}, None),
            ("Target.createTarget", {"url": " CHROME://Settings"}, None),
            ("Page.navigate", {"url": "about:settings"}, "S1"),
            # The spelling that got through (issue 27): no slashes.
            ("Page.navigate", {"url": "chrome:settings/performance"}, "S1"),
            ("PWA.launch", {"manifestId": "https://app/m.json", "url": "chrome:settings"},
             None),
            ("Target.sendMessageToTarget", {"sessionId": "S1", "message": dumps(
                {"id": 1, "method": "Page.navigate",
                 "params": {"url": "\tview-source:chrome:settings"}})}, None)):
        msg: dict[str, object] = {"id": 7, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        route = gate.route_text(dumps(msg), states(T1=TargetState.GUARDED))
        assert route.kind is RouteKind.REPLY
        assert "Preload pages" in orjson.loads(route.text)["error"]["message"]
    ok = gate.route_text(dumps({"id": 8, "method": "Page.navigate", "sessionId": "S1",
                                "params": {"url": "https://app/settings"}}),
                         states(T1=TargetState.GUARDED))
    assert ok.kind is RouteKind.FORWARD




def test_a_target_showing_a_privileged_page_takes_only_passive_commands() -> None:
    urls = {"T1": "chrome://settings/performance", "T2": "chrome-error://chromewebdata/"}
    gate = ClientGate(CFG, url_of=lambda tid: urls.get(tid, ""))
    gate.observe(attached("S1", "T1"))
    gate.observe(attached("S2", "T2"))
    ok = states(T1=TargetState.GUARDED, T2=TargetState.GUARDED)

    def route(method: str, session: str, params: object = None) -> RouteKind:
        msg = {"id": 3, "method": method, "sessionId": session, "params": params or {}}
        return gate.route_text(dumps(msg), ok).kind

    assert route("Runtime.evaluate", "S1", {"expression": "1"}) is RouteKind.REPLY
    assert route("Input.dispatchMouseEvent", "S1") is RouteKind.REPLY
    assert route("Page.enable", "S1") is RouteKind.FORWARD
    # It may leave the page, for an ordinary one only.
    assert route("Page.navigate", "S1", {"url": "https://app/"}) is RouteKind.FORWARD
    assert route("Page.navigate", "S1", {"url": "chrome:settings"}) is RouteKind.REPLY
    assert route("Runtime.evaluate", "S2", {"expression": "1"}) is RouteKind.FORWARD
    # Wrapped in sendMessageToTarget (an old client), the same.
    nested = {"id": 4, "method": "Target.sendMessageToTarget", "params": {
        "sessionId": "S1", "message": dumps({"id": 1, "method": "Runtime.evaluate",
                                             "params": {"expression": "1"}})}}
    assert gate.route_text(dumps(nested), ok).kind is RouteKind.REPLY


def test_a_history_navigation_is_decided_on_the_entry_an_answer_named() -> None:
    gate = ClientGate(CFG)
    gate.observe(attached("S1", "T1"))
    ok = states(T1=TargetState.GUARDED)

    def go(entry: int) -> str:
        route = gate.route_text(dumps({"id": 9, "method": "Page.navigateToHistoryEntry",
                                       "sessionId": "S1", "params": {"entryId": entry}}), ok)
        return route.text if route.kind is RouteKind.REPLY else "forwarded"

    assert "does not know" in go(1)  # a guessed id
    ask = gate.route_text(dumps({"id": 5, "method": "Page.getNavigationHistory",
                                 "sessionId": "S1"}), ok)
    assert ask.kind is RouteKind.FORWARD
    answer = dumps({"id": 5, "sessionId": "S1", "result": {"currentIndex": 1, "entries": [
        {"id": 1, "url": "chrome:settings", "userTypedURL": "chrome:settings"},
        {"id": 2, "url": "https://app/", "userTypedURL": "https://app/"}]}})
    assert gate.wants(answer)
    gate.incoming(answer)
    assert "privileged" in go(1)
    assert go(2) == "forwarded"
    # Entries are per session: another session's answer does not vouch for this one.
    gate.observe(attached("S2", "T2"))
    route = gate.route_text(dumps({"id": 9, "method": "Page.navigateToHistoryEntry",
                                   "sessionId": "S2", "params": {"entryId": 2}}),
                            states(T2=TargetState.GUARDED))
    assert route.kind is RouteKind.REPLY


def test_devtools_front_end_is_never_opened_for_a_client() -> None:
    gate = ClientGate(CFG)
    route = gate.route_text(dumps({"id": 2, "method": "Target.openDevTools",
                                   "params": {"targetId": "T1"}}), states())
    assert route.kind is RouteKind.REPLY
    assert "DevTools' own front end" in orjson.loads(route.text)["error"]["message"]
