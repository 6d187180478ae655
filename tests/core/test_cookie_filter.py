"""The cookie filter: no withheld cookie value survives any message shape Chrome sends."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.client_gate import ClientGate, RouteKind
from ajantik_cdp.core.guard.cookie_filter import (
    CookiePolicy,
    filter_cookies,
    filter_event,
    filter_result,
)
from ajantik_cdp.core.guard.targets import TargetState
from ajantik_cdp.core.policy.config import parse_config

SECRET = "s3cr3t-session-value"
NONE = CookiePolicy.from_patterns([])
ALL = CookiePolicy.from_patterns(["*"])
SHOP = CookiePolicy.from_patterns([r"^shop\.example$"])


def cookie(domain: str, name: str = "sid", value: str = SECRET) -> dict[str, Any]:
    return {"name": name, "value": value, "domain": domain, "path": "/", "httpOnly": True}


def test_cookie_lists_lose_withheld_entries_not_values() -> None:
    cookies = [cookie("portal.example"), cookie(".shop.example", "cart", "c1")]
    assert filter_cookies(cookies, NONE) == []
    assert filter_cookies(cookies, SHOP) == [cookies[1]]
    assert filter_cookies(cookies, ALL) == cookies
    assert filter_result({"cookies": cookies}, SHOP) == {"cookies": [cookies[1]]}
    assert filter_result({"cookies": [cookies[1]]}, SHOP) is None
    assert filter_result({"cookies": cookies}, ALL) is None


def test_cookie_header_of_a_shared_host_keeps_only_when_every_parent_is_shared() -> None:
    params = {"request": {"url": "https://shop.example/x",
                          "headers": {"Cookie": f"sid={SECRET}; cart=c1"}}}
    assert filter_event("Network.requestWillBeSent", params, SHOP) is None
    sub = {"request": {"url": "https://a.shop.example/x",
                       "headers": {"Cookie": f"sid={SECRET}"}}}
    # a.shop.example could receive a cookie set on the unshared parent "example".
    assert SECRET not in orjson.dumps(filter_event("Network.requestWillBeSent", sub,
                                                   SHOP)).decode()


def test_extra_info_uses_associated_cookies_to_keep_shared_pairs() -> None:
    params = {
        "requestId": "1",
        "associatedCookies": [{"blockedReasons": [], "cookie": cookie("portal.example")},
                              {"blockedReasons": [],
                               "cookie": cookie("shop.example", "cart", "c1")}],
        "headers": {"Cookie": f"sid={SECRET}; cart=c1", "Accept": "*/*"},
    }
    out = filter_event("Network.requestWillBeSentExtraInfo", params, SHOP)
    assert out["headers"] == {"Cookie": "cart=c1", "Accept": "*/*"}
    assert [c["cookie"]["name"] for c in out["associatedCookies"]] == ["cart"]


def test_set_cookie_lines_and_raw_header_text() -> None:
    params = {
        "requestId": "1",
        "headers": {"set-cookie": f"sid={SECRET}; HttpOnly\ncart=c1; Domain=shop.example",
                    "Content-Type": "text/html"},
        "headersText": f"HTTP/1.1 302 Found\r\nSet-Cookie: sid={SECRET}\r\n"
                       "SET-COOKIE: cart=c1; domain=.shop.example\r\nX: y\r\n\r\n",
        "blockedCookies": [{"blockedReasons": ["SameSiteLax"],
                            "cookieLine": f"sid={SECRET}"}],
    }
    out = filter_event("Network.responseReceivedExtraInfo", params, SHOP)
    assert out["headers"]["set-cookie"] == "cart=c1; Domain=shop.example"
    assert SECRET not in out["headersText"] and "X: y" in out["headersText"]
    assert out["blockedCookies"] == []


def test_fetch_header_entries() -> None:
    params = {"requestId": "1", "request": {"url": "https://portal.example/login",
                                            "headers": {}},
              "responseHeaders": [{"name": "Set-Cookie", "value": f"sid={SECRET}"},
                                  {"name": "Location", "value": "/home"}]}
    out = filter_event("Fetch.requestPaused", params, NONE)
    assert out["responseHeaders"] == [{"name": "Location", "value": "/home"}]
    shared = filter_event("Fetch.requestPaused", params,
                          CookiePolicy.from_patterns([r"^portal\.example$"]))
    assert shared is None  # host-only cookie of a shared host


header_names = st.sampled_from(["Cookie", "cookie", "COOKIE", "Set-Cookie", "set-cookie",
                                "SeT-CoOkIe", "Authorization", "AUTHORIZATION",
                                " authorization", "Proxy-Authorization",
                                "proxy-authorization"])
urls = st.one_of(st.none(), st.sampled_from(["https://portal.example/", "http://127.0.0.1:9/",
                                             "https://a.b.portal.example/x", "not a url"]))
events = st.sampled_from(sorted(["Network.requestWillBeSent", "Network.responseReceived",
                                 "Network.requestWillBeSentExtraInfo",
                                 "Network.responseReceivedExtraInfo", "Fetch.requestPaused",
                                 "Network.webSocketWillSendHandshakeRequest",
                                 "Network.webSocketHandshakeResponseReceived",
                                 "Network.signedExchangeReceived", "Fetch.authRequired",
                                 "Network.responseReceivedEarlyHints"]))


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(header_names)
    value = draw(st.sampled_from([f"sid={SECRET}", f"a=1; sid={SECRET}",
                                  f"sid={SECRET}; Path=/\nb=2", f"Basic {SECRET}",
                                  f"Bearer {SECRET}"]))
    url = draw(urls)
    headers: Any = ({name: value} if draw(st.booleans())
                    else [{"name": name, "value": value}])
    inner: dict[str, Any] = {"headers": headers}
    if url is not None:
        inner["url"] = url
    text = f"GET / HTTP/1.1\r\n{name}: {value.splitlines()[0]}\r\n\r\n"
    shape = draw(st.sampled_from(["request", "response", "redirectResponse", "flat",
                                  "outerResponse"]))
    params: dict[str, Any] = ({**inner, "headersText": text} if shape == "flat"
                              else {shape: {**inner, "requestHeadersText": text}})
    return params


@given(events, messages())
def test_no_shape_leaks_a_withheld_value(method: str, params: dict[str, Any]) -> None:
    out = filter_event(method, params, SHOP)
    assert out is not None
    assert SECRET not in orjson.dumps(out).decode()
    # Opting out changes nothing at all.
    assert filter_event(method, params, ALL) is None


def attached(sid: str, tid: str) -> str:
    return orjson.dumps({"method": "Target.attachedToTarget", "params": {
        "sessionId": sid, "targetInfo": {"targetId": tid, "type": "page"}}}).decode()


def test_gate_filters_answers_to_the_clients_cookie_reads_only() -> None:
    gate = ClientGate(parse_config({}))
    gate.incoming(attached("S1", "T1"))
    status = {"T1": TargetState.GUARDED}.__getitem__
    for msg_id, method, sid in ((1, "Network.getCookies", "S1"),
                                (2, "Storage.getCookies", None),
                                (3, "Runtime.evaluate", "S1")):
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": {}}
        if sid:
            msg["sessionId"] = sid
        assert gate.route(msg, status).kind is RouteKind.FORWARD
    reply = {"cookies": [cookie("portal.example")]}
    for msg_id, sid in ((1, "S1"), (2, None)):
        text = orjson.dumps({"id": msg_id, "result": reply,
                             **({"sessionId": sid} if sid else {})}).decode()
        assert gate.wants(text)
        out, _ = gate.incoming(text)
        assert orjson.loads(out)["result"] == {"cookies": []}
    # A reply that is not to a cookie read passes untouched (even if it looks like one).
    text = orjson.dumps({"id": 3, "result": reply, "sessionId": "S1"}).decode()
    assert gate.incoming(text)[0] == text
    assert gate.cookie_reads == {}


def test_gate_refuses_load_network_resource_and_filters_nested_replies() -> None:
    gate = ClientGate(parse_config({}))
    route = gate.route({"id": 1, "method": "Network.loadNetworkResource", "params": {}},
                       lambda t: TargetState.GUARDED)
    assert route.kind is RouteKind.REPLY and "loadNetworkResource" in route.text
    # Old, non-flattened clients: the reply comes inside receivedMessageFromTarget.
    gate.incoming(attached("S1", "T1"))
    inner = orjson.dumps({"id": 7, "method": "Network.getAllCookies"}).decode()
    gate.route({"id": 2, "method": "Target.sendMessageToTarget",
                "params": {"sessionId": "S1", "message": inner}},
               lambda t: TargetState.GUARDED)
    answer = orjson.dumps({"id": 7, "result": {"cookies": [cookie("x.example")]}}).decode()
    event = orjson.dumps({"method": "Target.receivedMessageFromTarget",
                          "params": {"sessionId": "S1", "message": answer}}).decode()
    assert gate.wants(event)
    out, _ = gate.incoming(event)
    assert SECRET not in out


def test_share_cookies_config_is_validated() -> None:
    cfg = parse_config({"share_cookies": ["*", r"^shop\.example$"]})
    assert cfg.cookie_policy.share_all
    try:
        parse_config({"share_cookies": ["(*"]})
    except ValueError as exc:
        assert "share_cookies[0]" in str(exc)
    else:
        raise AssertionError("a pattern that does not compile must be refused")


def test_a_reused_id_cannot_slip_a_second_answer_through() -> None:
    gate = ClientGate(parse_config({}))
    gate.incoming(attached("S1", "T1"))
    status = {"T1": TargetState.GUARDED}.__getitem__
    for method in ("Network.getCookies", "Network.getCookies", "Runtime.evaluate"):
        gate.route({"id": 5, "method": method, "sessionId": "S1", "params": {}}, status)
    other = orjson.dumps({"id": 5, "sessionId": "S1", "result": {"result": {}}}).decode()
    read = orjson.dumps({"id": 5, "sessionId": "S1",
                         "result": {"cookies": [cookie("portal.example")]}}).decode()
    assert gate.incoming(other)[0] == other  # settles nothing
    assert SECRET not in gate.incoming(read)[0]
    assert SECRET not in gate.incoming(read)[0]
    assert gate.cookie_reads == {}


def test_inspector_issues_and_prerender_mismatches_lose_cookie_values() -> None:
    issue = {"issue": {"code": "CookieIssue", "details": {"cookieIssueDetails": {
        "cookie": {"name": "sid", "path": "/", "domain": "portal.example"},
        "rawCookieLine": f"sid={SECRET}; SameSite=None", "cookieWarningReasons": [],
        "cookieUrl": "https://portal.example/login"}}}}
    out = filter_event("Audits.issueAdded", issue, SHOP)
    details = out["issue"]["details"]["cookieIssueDetails"]
    assert "rawCookieLine" not in details and details["cookie"]["name"] == "sid"
    assert filter_event("Audits.issueAdded", issue,
                        CookiePolicy.from_patterns([r"portal\.example$"])) is None
    prerender = {"key": {}, "status": "Failure", "mismatchedHeaders": [
        {"headerName": "Cookie", "initialValue": f"sid={SECRET}", "activationValue": "b"},
        {"headerName": "Accept-Language", "initialValue": "en", "activationValue": "de"}]}
    out = filter_event("Preload.prerenderStatusUpdated", prerender, NONE)
    assert [h["headerName"] for h in out["mismatchedHeaders"]] == ["Accept-Language"]


def test_credential_headers_are_withheld_where_cookies_are() -> None:
    """Issue 27, class 5: Chrome adds Authorization from its credential cache; it is
    the password for a Basic portal. Only a shared host's requests keep it."""
    params = {"requestId": "1", "headers": {
        "Authorization": f"Basic {SECRET}", "Proxy-Authorization": f"Basic {SECRET}",
        "Accept": "*/*"}, "headersText": f"GET / HTTP/1.1\r\nAuthorization: Basic "
        f"{SECRET}\r\nAccept: */*\r\n\r\n"}
    out = filter_event("Network.requestWillBeSentExtraInfo", params, NONE)
    assert out["headers"] == {"Accept": "*/*"}
    assert SECRET not in orjson.dumps(out).decode() and "Accept: */*" in out["headersText"]
    request = {"request": {"url": "https://portal.example/x",
                           "headers": {"authorization": f"Bearer {SECRET}"}}}
    assert filter_event("Network.requestWillBeSent", request, NONE)["request"]["headers"] == {}
    shared = CookiePolicy.from_patterns([r"portal\.example$"])
    assert filter_event("Network.requestWillBeSent", request, shared) is None
    assert filter_event("Network.requestWillBeSent", request, SHOP) is not None
    mismatch = {"mismatchedHeaders": [{"headerName": "Authorization",
                                       "initialValue": SECRET, "activationValue": "x"}]}
    assert filter_event("Preload.prerenderStatusUpdated", mismatch, NONE) == {
        "mismatchedHeaders": []}


def test_the_gate_parses_an_event_whose_only_secret_is_a_credential_header() -> None:
    # The gate skips the parser for events without "cookie" in them; an Authorization
    # header must not ride on that shortcut.
    gate = ClientGate(parse_config({}))
    text = orjson.dumps({"method": "Network.requestWillBeSentExtraInfo", "params": {
        "requestId": "1", "headers": {"AUTHORIZATION": f"Basic {SECRET}"}}}).decode()
    assert gate.wants(text)
    out, _ = gate.incoming(text)
    assert SECRET not in out
    assert gate.incoming(text.replace("AUTHORIZATION", "Accept"))[0] == text.replace(
        "AUTHORIZATION", "Accept")
