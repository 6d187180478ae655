"""WebSocket patterns: never more permissive than the rules, and narrow where they can be."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.socket_rules import (
    CASE_LETTERS,
    Part,
    http_form,
    required_pieces,
    rules_refuse,
    socket_plan,
)
from tests.support.examples import examples

# -- URLs as Chrome spells them: lower-case host, no default port, no dot segments -------

# Rules and URLs share a small vocabulary, so that matches (and near misses) are common.
_CHARS = "abmsuSU019-_.~"
_WORDS = ["sub", "mission", "SUB", "Sub", "ub", "%73ub", "s%75b", "%53UB", "%2573ub",
          "%C5%BFub", "%EF%BD%93ub", "api", "v2", "%2F", "%25"]
SEGMENT = st.lists(st.one_of(st.sampled_from(_CHARS), st.sampled_from(_WORDS)),
                   min_size=1, max_size=5).map("".join).filter(lambda s: s not in (".", ".."))
HOST = st.sampled_from(["h", "sub.example", "127.0.0.1", "a-b.c", "submission.example",
                        "ws.example"])
PORT = st.sampled_from(["", ":8080", ":9", ":4443"])
QUERY = st.one_of(st.just(""), st.lists(st.one_of(st.sampled_from(_CHARS + "=&/"),
                                                   st.sampled_from(_WORDS)),
                                         max_size=8).map(lambda p: "?" + "".join(p)))


@st.composite
def ws_urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["ws", "wss"]))
    segments = draw(st.lists(SEGMENT, max_size=4))
    return f"{scheme}://{draw(HOST)}{draw(PORT)}/{'/'.join(segments)}{draw(QUERY)}"


# -- rules from a small grammar of what people write ---------------------------------------

_ATOMS = st.one_of(
    st.text(alphabet="absmu/S.0-_~", min_size=1, max_size=4).map(re.escape),
    st.sampled_from(["sub", "mission", "/sub", "submission", "api/", "ub/", "b.e"]),
    st.sampled_from([".", ".*", ".+", r"\d+", "[a-z]", "[^/]*", "^", "$", "s?", r"\b",
                     "(?:sub|mission)", "(api|v2|)", "(?=x)", "/", r"\.", "https?://",
                     "wss?", ":8080", "(?i:SUB)", "sub{2,3}"]),
)
RULE = st.lists(_ATOMS, min_size=1, max_size=5).map("".join)
RULES = st.lists(RULE, min_size=1, max_size=3)


def _config(deny: list[str], allow: list[str] | None = None) -> object:
    data: dict[str, object] = {"deny": deny}
    if allow is not None:
        data["allow_writes"] = allow
    return parse_config(data)


@examples(300)
@given(RULES, ws_urls())
@example(["sub"], "ws://h/x%73ub")
@example(["sub"], "ws://h/?q=%2573ub")
@example(["^https://h/"], "wss://h/x")
@example(["(?:api|v2)/sub"], "ws://h/v2/SUB")
@example(["sub"], "ws://h/sUb")
@example(["submission"], "ws://h/x?SuBmIsSiOn=1")
def test_no_websocket_the_deny_rules_refuse_gets_past_the_patterns(deny: list[str],
                                                                    url: str) -> None:
    config = parse_config({"deny": deny})
    if rules_refuse(config, url):
        assert socket_plan(config).refuses(url) is not None, (deny, url)
        # Chrome's own rule too, as it matches (letter case kept): no page script or
        # client command reaches it, so it is the decision, not the page's check.
        assert socket_plan(config).refuses(url, exact=True) is not None, (deny, url)


ALLOW = st.sampled_from([
    r"^http://127\.0\.0\.1:8080/", r"^https://sub\.example/", r"^https?://h/api/.*",
    r"^wss://ws\.example/", r"^http://h:80/", r"^https://h/", r"h/", r"^http://a-b\.c:9/x",
])


@examples(300)
@given(st.lists(RULE, max_size=2), st.lists(ALLOW, min_size=1, max_size=3), ws_urls())
def test_under_allow_writes_no_websocket_is_admitted_that_the_rules_refuse(
        deny: list[str], allow: list[str], url: str) -> None:
    config = parse_config({"deny": deny, "allow_writes": allow})
    if socket_plan(config).refuses(url) is None:
        assert not rules_refuse(config, url), (deny, allow, url)


@pytest.mark.parametrize(("deny", "url"), [
    ("/submission", "ws://h/live"),
    ("/submission", "wss://portal.example/socket?room=7"),
    (r"portal\.example\.com/(api|v2)/\d+/cancel", "wss://portal.example.org/live"),
    ("^https://bank\\.example/", "wss://shop.example/live"),
])
def test_a_rule_with_a_literal_leaves_other_websockets_alone(deny: str, url: str) -> None:
    plan = socket_plan(parse_config({"deny": [deny]}))
    assert plan.refuse_all is None
    assert plan.refuses(url) is None


@pytest.mark.parametrize(("deny", "url"), [
    ("/submission", "ws://h/submission/live"),
    ("/submission", "ws://h/SUBMISSION"),
    ("/submission", "ws://h/%73ubmission"),
    ("^https://bank\\.example/", "wss://bank.example/live"),
    ("denied", "ws://127.0.0.2:9/x?to=denied"),
])
def test_websockets_to_denied_urls_are_refused(deny: str, url: str) -> None:
    assert rules_refuse(parse_config({"deny": [deny]}), url)
    assert socket_plan(parse_config({"deny": [deny]})).refuses(url) is not None


@pytest.mark.parametrize("deny", [".*", "[a-z]+", r"\d", "(?:x|.)", "^.{3}$"])
def test_a_rule_without_a_literal_refuses_every_websocket(deny: str) -> None:
    plan = socket_plan(parse_config({"deny": [deny]}))
    assert plan.refuse_all is not None and deny in plan.refuse_all
    assert [p.part for p in plan.patterns] == [Part.ALL]
    assert required_pieces(parse_config({"deny": [deny]}).deny[0]) is None


def test_pieces_are_required_in_every_alternative() -> None:
    rule = parse_config({"deny": [r"/(submit|cancel)/\d+"]}).deny[0]
    assert sorted(required_pieces(rule) or []) == ["/cancel/", "/submit/"] or \
        sorted(required_pieces(rule) or []) == ["cancel", "submit"]


def test_allow_writes_admits_its_exact_prefixes_only() -> None:
    plan = socket_plan(parse_config({"allow_writes": [r"^http://127\.0\.0\.1:8080/",
                                                      r"^https://x\.example/api/.*",
                                                      r"example"]}))
    assert plan.refuses("ws://127.0.0.1:8080/live") is None
    assert plan.refuses("wss://x.example/api/live") is None
    assert plan.refuses("wss://x.example/other") is not None  # outside the prefix
    assert plan.refuses("ws://x.example/api/live") is not None  # http entry is not https
    assert plan.refuses("wss://other.example/") is not None  # 'example' is no prefix
    assert plan.refuses("ws://127.0.0.1:8080/a%2F..%2Fb") is not None  # escapes refused


def test_url_patterns_are_what_chrome_is_given() -> None:
    plan = socket_plan(parse_config({"deny": ["sub"], "allow_writes": [r"^https://h/"]}))
    # Chrome's emulation rule ignores regular-expression groups: plain wildcards, in the
    # spellings people write; the page-side check takes groups and any letter case.
    casings = ["sub", "suB", "sUb", "sUB", "Sub", "SuB", "SUb", "SUB"]
    assert [c["urlPattern"] for c in plan.conditions()] == [
        "ws{s}?://*sub*:*/*",
        *[p for c in casings for p in (f"ws{{s}}?://*:*/*{c}*", f"ws{{s}}?://*:*/*\\?*{c}*")],
        "ws{s}?://*:*/*%*", "ws{s}?://*:*/*\\?*%*",
        "wss://h/*",
        "ws{s}?://*:*/*",
    ]
    assert all("(" not in c["urlPattern"] for c in plan.conditions())
    assert [c["offline"] for c in plan.conditions()] == [True] * 19 + [False, True]
    assert ("ws{s}?://*:*/(.*[sS][uU][bB].*)", True) in plan.url_patterns
    assert plan.refuses("wss://h/sUb") is not None  # the page-side check
    assert plan.refuses("wss://h/sUb", exact=True) is not None  # Chrome's rule


def test_a_long_piece_is_given_to_chrome_in_every_case_of_a_part_of_it() -> None:
    plan = socket_plan(parse_config({"deny": ["/submission-form"]}))
    paths = {c["urlPattern"] for c in plan.conditions() if "\\?" not in c["urlPattern"]
             and c["urlPattern"].startswith("ws{s}?://*:*/*") and "%" not in c["urlPattern"]}
    # The first longest part with four letters ("sion-"), in every letter case.
    assert CASE_LETTERS == 4
    assert len(paths) == 2 ** 4
    assert "ws{s}?://*:*/*SiOn-*" in paths
    assert plan.refuses("ws://h/SUBMISSION-FORM", exact=True) is not None
    # The cost of the part: a WebSocket holding only "sion-" is refused too.
    assert plan.refuses("ws://h/occasion-x", exact=True) is not None


def test_http_form() -> None:
    assert http_form("wss://h/x") == "https://h/x"
    assert http_form("ws://h:1/x") == "http://h:1/x"


# -- EventSource: a connection, decided as a page load is ----------------------------------

@pytest.mark.parametrize(("given", "accept", "named"), [
    ("XHR", "text/event-stream", "EventSource"),
    ("Fetch", "Text/Event-Stream; q=1", "EventSource"),
    ("XHR", "application/json", "XHR"),
    ("Document", "text/event-stream", "Document"),
    ("Image", "text/event-stream", "Image"),
])
def test_an_event_source_is_named_by_its_accept_header(given: str, accept: str,
                                                       named: str) -> None:
    from ajantik_cdp.core.guard.paused import resource_type
    assert resource_type({"resourceType": given}, {"Accept": accept}) == named


def test_a_denied_event_source_is_blocked_though_it_is_a_get() -> None:
    from ajantik_cdp.core.policy.rules import RequestFacts, decide
    config = parse_config({"deny": ["denied"], "allow_writes": [r"^https://app\.example/"]})
    assert decide(config, RequestFacts("GET", "https://x/denied/feed", "EventSource")).blocked
    assert not decide(config, RequestFacts("GET", "https://x/denied/feed", "XHR")).blocked
    # A read elsewhere is not a write: allow_writes does not apply to it.
    assert not decide(config, RequestFacts("GET", "https://x/feed", "EventSource")).blocked
