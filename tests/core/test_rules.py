"""The URL rule engine, with property tests for the properties a guard must keep."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.canonical_url import canonical_url, given_url
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.rules import (
    INTERCEPTED_RESOURCE_TYPES,
    STATIC_RESOURCE_TYPES,
    Action,
    RequestFacts,
    Source,
    decide,
    fetch_patterns,
    is_write,
)

CFG = parse_config({
    "deny": ["submission"],
    "allow_writes": ["^https://app\\.example\\.com/"],
    "record": ["/api/"],
})

METHODS = st.sampled_from(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE",
                           "post", "PROPFIND"])
TYPES = st.sampled_from(["Document", "XHR", "Fetch", "Ping", "Other", "Image", "Script"])


@pytest.mark.parametrize(("method", "write"), [
    ("GET", False), ("HEAD", False), ("OPTIONS", False), ("get", False),
    ("POST", True), ("PUT", True), ("PATCH", True), ("DELETE", True), ("PROPFIND", True),
])
def test_write_detection(method: str, write: bool) -> None:
    assert is_write(method) is write


def facts(method: str, url: str, rtype: str = "XHR", redirect: bool = False) -> RequestFacts:
    return RequestFacts(method, url, rtype, redirect)


def test_denied_write_blocked_with_rule() -> None:
    d = decide(CFG, facts("POST", "https://app.example.com/api/submission"))
    assert d.action is Action.BLOCK and d.reason == "deny"
    assert d.rule is not None and d.rule.label == "deny[0] 'submission'"


def test_write_outside_allowlist_blocked() -> None:
    d = decide(CFG, facts("POST", "https://tracker.example.net/collect"))
    assert d.blocked and d.reason == "allow_writes" and d.rule is None


def test_allowed_write_recorded() -> None:
    d = decide(CFG, facts("PUT", "https://app.example.com/draft"))
    assert not d.blocked and d.record and d.is_write


def test_read_of_denied_url_allowed_but_page_load_blocked() -> None:
    assert not decide(CFG, facts("GET", "https://app.example.com/submission")).blocked
    assert decide(CFG, facts("GET", "https://app.example.com/submission", "Document")).blocked


def test_redirect_into_denied_url_blocked_even_for_reads() -> None:
    assert decide(CFG, facts("GET", "https://app.example.com/submission", redirect=True)).blocked


def test_reads_recorded_only_when_listed() -> None:
    assert decide(CFG, facts("GET", "https://app.example.com/api/x")).record
    assert not decide(CFG, facts("GET", "https://app.example.com/page")).record


@pytest.mark.parametrize("url", [
    "https://app.example.com@evil.net/x",
    "https://app.example.com.evil.net/x",
    "https://evil.net/https://app.example.com/x",
    "http://app.example.com/x",
    "https://app.example.com:8443/x",
])
def test_allowlist_bypass_shapes_blocked(url: str) -> None:
    assert decide(CFG, facts("POST", url)).blocked


def test_userinfo_stripped_and_host_lowered() -> None:
    assert given_url("HTTPS://User:Pw@App.Example.COM/Path?q=1") == \
        "https://app.example.com/Path?q=1"
    assert given_url("not a url") == "not a url"


def test_static_types_are_never_paused() -> None:
    patterns = fetch_patterns()
    paused = {p["resourceType"] for p in patterns}
    assert paused == set(INTERCEPTED_RESOURCE_TYPES)
    assert not paused & STATIC_RESOURCE_TYPES
    assert {"Document", "XHR", "Fetch", "Ping", "Other"} <= paused
    assert all(p["requestStage"] == "Request" for p in patterns)


@given(METHODS, st.text(max_size=40), TYPES, st.booleans())
def test_denied_url_never_passes_as_write_or_page_load(method: str, tail: str, rtype: str,
                                                        redirect: bool) -> None:
    url = f"https://app.example.com/{tail}/submission"
    d = decide(CFG, facts(method, url, rtype, redirect))
    if is_write(method) or rtype == "Document" or redirect:
        assert d.blocked
    else:
        assert not d.blocked


@given(METHODS, st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60),
       TYPES)
def test_no_write_escapes_the_allowlist(method: str, url: str, rtype: str) -> None:
    d = decide(CFG, facts(method, url, rtype))
    if is_write(method) and not d.blocked:
        canonical = canonical_url(url)
        assert canonical is not None and canonical.startswith("https://app.example.com/")


@given(METHODS, st.text(max_size=60), TYPES, st.booleans())
def test_reads_never_blocked_by_allowlist(method: str, url: str, rtype: str,
                                          redirect: bool) -> None:
    d = decide(CFG, facts(method, url, rtype, redirect))
    if d.blocked:
        assert d.reason in ("deny", "allow_writes")
        if d.reason == "allow_writes":
            assert is_write(method)


def test_no_config_blocks_nothing_and_records_writes() -> None:
    empty = parse_config({})
    assert not decide(empty, facts("POST", "https://anywhere/x")).blocked
    assert decide(empty, facts("POST", "https://anywhere/x")).record


@given(METHODS, TYPES, st.sampled_from(list(Source)))
def test_every_source_is_held_to_deny_for_writes_and_page_loads(
        method: str, rtype: str, source: Source) -> None:
    url = "https://app.example.com/submission"
    d = decide(CFG, RequestFacts(method, url, rtype, source=source))
    must_block = is_write(method) or rtype == "Document" or source is Source.SERVICE_WORKER
    assert d.blocked is must_block
    if must_block:
        assert d.reason == "deny"


@given(METHODS, TYPES)
def test_a_site_worker_is_never_looser_than_a_page(method: str, rtype: str) -> None:
    for url in ("https://app.example.com/submission", "https://elsewhere.example/x",
                "https://app.example.com/draft"):
        page = decide(CFG, RequestFacts(method, url, rtype))
        worker = decide(CFG, RequestFacts(method, url, rtype, source=Source.SERVICE_WORKER))
        assert worker.blocked or not page.blocked


def test_an_extension_write_outside_allow_writes_is_allowed_but_recorded() -> None:
    d = decide(CFG, RequestFacts("POST", "https://vendor.example/sync", "XHR",
                                 source=Source.EXTENSION))
    assert not d.blocked and d.record
