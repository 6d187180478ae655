"""The canonical form of a URL and its readings, and the rule engine's use of them: no
spelling of a denied URL escapes, and every spelling of an allowed URL that servers agree
on is still allowed."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.canonical_url import canonical_host, canonical_url, url_forms
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.rules import RequestFacts, decide, redact_rule
from tests.support.examples import examples

# What Chrome 156 put in Fetch.requestPaused's request.url for each spelling typed into
# page.goto (measured on this machine; tests/guard/test_url_spellings.py checks it again).
CHROME_HOSTS = [
    ("http://2130706433:8080/", "http://127.0.0.1:8080/"),
    ("http://0x7f.1:8080/", "http://127.0.0.1:8080/"),
    ("http://127.1:8080/", "http://127.0.0.1:8080/"),
    ("http://0177.0.0.1:8080/", "http://127.0.0.1:8080/"),
    ("http://0x7F000001/", "http://127.0.0.1/"),
    ("http://127.0.0.1.:8080/", "http://127.0.0.1:8080/"),
    ("http://LOCALHOST:8080/", "http://localhost:8080/"),
    ("http://%31%32%37.0.0.1:8080/", "http://127.0.0.1:8080/"),
    ("http://127.0.0.1:08080/", "http://127.0.0.1:8080/"),
    ("http://ｌｏｃａｌｈｏｓｔ:8080/", "http://localhost:8080/"),
    ("HTTP://127.0.0.1:8080/", "http://127.0.0.1:8080/"),
    ("https://bücher.example/", "https://xn--bcher-kva.example/"),
    ("https://BÜCHER.example/", "https://xn--bcher-kva.example/"),
    ("https://straße.de/", "https://xn--strae-oqa.de/"),
    ("https://example。com/", "https://example.com/"),
    ("http://[::FFFF:127.0.0.1]/", "http://[::ffff:7f00:1]/"),
    ("http://[0:0::1]:80/", "http://[::1]/"),
    ("https://example.com:443/", "https://example.com/"),
    ("wss://example.com:443/", "wss://example.com/"),
    ("ws://example.com:80/", "ws://example.com/"),
]


@pytest.mark.parametrize(("spelled", "as_chrome"), CHROME_HOSTS)
def test_host_and_port_as_chrome_spells_them(spelled: str, as_chrome: str) -> None:
    # Not named `chrome`: that is the session's Chromium fixture.
    assert canonical_url(spelled) == as_chrome
    assert canonical_url(as_chrome) == as_chrome


@pytest.mark.parametrize(("url", "canonical"), [
    ("http://h/%73ubmission/x", "http://h/submission/x"),
    ("http://h/sub%6dission/x", "http://h/submission/x"),
    ("http://h/sub%6Dission/x", "http://h/submission/x"),
    ("http://h/a/../submission", "http://h/submission"),
    ("http://h/a/%2e%2E/submission", "http://h/submission"),
    ("http://h/a/.%2e/submission", "http://h/submission"),
    ("http://h/submission/x/..", "http://h/submission/"),
    ("http://h/submission/x/.", "http://h/submission/x/"),
    ("http://h/../../submission", "http://h/submission"),
    ("http://h\\submission\\x", "http://h/submission/x"),
    ("http://h//submission/x", "http://h//submission/x"),  # Chrome keeps it, so do we
    ("http://h/a%2fb", "http://h/a%2Fb"),  # the escape of a separator stays
    ("http://h/a%5cb", "http://h/a%5Cb"),
    ("http://h/a%3bb;c", "http://h/a%3Bb;c"),
    ("http://h/a%3fb", "http://h/a%3Fb"),
    ("http://h/100%25", "http://h/100%25"),
    ("http://h/%2573", "http://h/%2573"),  # decoded once only
    ("http://h/a%00b", "http://h/a%00b"),
    ("http://h/%c3%a9", "http://h/é"),
    ("http://h/%C3", "http://h/%C3"),  # not UTF-8: stays escaped
    ("http://h/%e2%82", "http://h/%E2%82"),
    ("http://h/a%20b c", "http://h/a%20b%20c"),
    ("http://h/x?q=%73ubmit&a=b+c&d=%26%3D%2B", "http://h/x?q=submit&a=b+c&d=%26%3D%2B"),
    ("http://h/x?", "http://h/x?"),
    ("http://h/x#frag", "http://h/x"),
    ("http://user:pw@h/x", "http://h/x"),
    ("http://h", "http://h/"),
    ("http://h?x", "http://h/?x"),
    ("http:h/x", "http://h/x"),
    ("  http://h/x\t\n ", "http://h/x"),
    ("http://evil.example\\@good.example/", "http://evil.example/@good.example/"),
])
def test_canonical_paths(url: str, canonical: str) -> None:
    assert canonical_url(url) == canonical


@pytest.mark.parametrize("url", [
    "/relative/path", "not a url", "mailto:x@example.com", "data:text/html,hi",
    "http://exa mple.com/", "http://[::1/", "http://h:99999/", "http://h:8o/",
    "http://256.0.0.1/", "http://1.2.3.4.5/", "http://0x100000000/", "http://%zz/",
    "http://%ff/", "http://a..b/", "http:///", "http://0xxn--.0/", "http://0x1g.1/",
])
def test_no_canonical_form(url: str) -> None:
    assert canonical_url(url) is None
    assert url_forms(url).server == ()
    assert url_forms(url).author  # deny rules still see the URL as given


def test_readings_of_an_ambiguous_path() -> None:
    forms = url_forms("http://h/a%2f..%2fsubmission;v=1//x%255c")
    paths = {r.removeprefix("http://h") for r in forms.server}
    assert "/a%2F..%2Fsubmission;v=1//x%255c" in paths or \
        "/a%2F..%2Fsubmission;v=1//x%255C" in paths  # canonical
    assert "/submission/x/" in paths  # every escape decoded, ;v=1 dropped, // merged
    assert "/a/../submission;v=1//x%5c" in paths  # decoded once, left as is


def test_plain_urls_have_one_reading() -> None:
    forms = url_forms("https://app.example.com/api/drafts/12?page=2")
    assert forms.server == ("https://app.example.com/api/drafts/12?page=2",)


def test_unicode_host_is_an_author_reading() -> None:
    forms = url_forms("https://xn--bcher-kva.example/x")
    assert "https://bücher.example/x" in forms.author
    assert all("xn--bcher-kva" in r for r in forms.server)


def test_ipv4_in_any_notation() -> None:
    for host in ("2130706433", "0x7f000001", "017700000001", "127.1", "127.0.1", "0x7f.1",
                 "0x7F.0.0.1", "127.0.0.1.", "0x7f.0x0.0x0.0x1"):
        assert canonical_host(host) == "127.0.0.1", host


# -- the rule engine over the forms ------------------------------------------------------

CFG = parse_config({
    "deny": ["submission", r"^https://portal\.example/final(/|$)"],
    "allow_writes": [r"^https://portal\.example/api/"],
    "record": [r"/recorded/"],
    "redact": [r"/login"],
})


def post(url: str) -> bool:
    """Whether a POST to ``url`` is blocked."""
    return decide(CFG, RequestFacts("POST", url, "Fetch")).blocked


@pytest.mark.parametrize("url", [
    "https://portal.example/api/%73ubmission/x",
    "https://portal.example/api/sub%6dission/x",
    "https://portal.example/api/SUB%6DISSION",
    "https://portal.example/api/%2573ubmission",  # double encoding
    "https://portal.example/api/%25%37%33ubmission",
    "https://portal.example/api/%EF%BD%93ubmission",  # fullwidth s
    "https://portal.example/api/ｓｕｂｍｉｓｓｉｏｎ",
    "https://portal.example/%66inal",
    "https://portal.example/x/..%2ffinal",
    "https://portal.example/x/%2e%2e/final",
    "https://portal.example//final",
    "https://portal.example/final;jsessionid=1",
    "https://portal.example/final%3bx",
    "https://portal.example/x%5c..%5cfinal",
    "https://portal.example/final./",
    "https://portal.example/final%20",
    "https://portal.example/api/../final",
    "https://PORTAL.example./final",
    "https://portal.example:443/final",
    "https://user@portal.example/final",
    "https://portal.example/final#x",
    "https://portal.example/final?next=1",  # a router dispatches on the path alone
    "https://portal.example/%66inal/?x=%2F",
    "https://portal.example/api/%u0073ubmission",  # IIS %u escapes
    "https://portal.example/x/%C0%AE%C0%AE%C0%AFfinal",  # overlong UTF-8 ../
    "https://portal.example/sub\nmission",  # tabs and newlines are dropped by parsers
])
def test_spellings_of_a_denied_url_are_denied(url: str) -> None:
    d = decide(CFG, RequestFacts("POST", url, "Fetch"))
    assert d.blocked and d.reason == "deny", url


@pytest.mark.parametrize("url", [
    "https://portal.example/api/drafts",
    "https://portal.example/api/dr%61fts",
    "https://portal.example/%61pi/drafts",
    "https://portal.example/api/x/../drafts",
    "https://portal.example/api/./drafts",
    "https://PORTAL.EXAMPLE/api/drafts",
    "https://portal.example:443/api/drafts",
    "https://portal.example./api/drafts",
    "https://user:pw@portal.example/api/drafts",
    "https://portal.example/api/drafts#top",
    "https://portal.example/api/drafts?id=%31",
    "https://portal.example/api/files/a%2Fb",  # an encoded slash inside the allowlist
    "https://portal.example/api/v1;rev=2/drafts",
    "https://portal.example/api/caf%C3%A9",
])
def test_spellings_of_an_allowed_url_are_allowed(url: str) -> None:
    assert not post(url), url


@pytest.mark.parametrize("url", [
    "https://portal.example/api/..%2fadmin",
    "https://portal.example/api/..%2f..%2fadmin",
    "https://portal.example/api/%2e%2e%2fadmin",
    "https://portal.example/api/..%5cadmin",
    "https://portal.example/api/..;/admin",
    "https://portal.example/api/%252e%252e%252fadmin",
    "https://portal.example/%61pi%2f..%2fadmin",
    "https://portal.example/api\\..\\admin",
    "https://portal.example/apı/x",  # dotless i: not the allowed path in any reading
    "https://portal.example.evil.net/api/x",
    "https://portal.example\\@evil.net/api/x",
    "https://evil.net\\@portal.example/api/x",
    "/api/x",
])
def test_writes_a_server_may_read_outside_the_allowlist_are_blocked(url: str) -> None:
    d = decide(CFG, RequestFacts("POST", url, "Fetch"))
    assert d.blocked and d.reason == "allow_writes", url


def test_an_allowlist_block_names_the_reading() -> None:
    d = decide(CFG, RequestFacts("POST", "https://portal.example/api/..%2fadmin", "Fetch"))
    assert d.reading == "https://portal.example/admin"
    assert "may read as 'https://portal.example/admin'" in d.describe()
    plain = decide(CFG, RequestFacts("POST", "https://elsewhere.example/", "Fetch"))
    assert plain.reading is None and plain.describe().startswith("write to a URL that")


def test_record_and_redact_match_any_spelling() -> None:
    read = decide(CFG, RequestFacts("GET", "https://portal.example/%72ecorded/x", "XHR"))
    assert read.record and not read.blocked
    assert redact_rule(CFG, "https://portal.example/%6Cogin") is not None
    assert redact_rule(CFG, "https://portal.example/a/..%2flogin") is not None
    assert redact_rule(CFG, "https://portal.example/api/x") is None


# -- properties ------------------------------------------------------------------------

UNRESERVED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"
SEGMENT = st.text(alphabet=UNRESERVED + "!$&'()*+,=:@é", min_size=1, max_size=8).filter(
    lambda s: s not in (".", ".."))
PATHS = st.lists(SEGMENT, min_size=1, max_size=4).map(lambda segs: "/" + "/".join(segs))


def _escape(ch: str, upper: bool) -> str:
    return "".join(f"%{b:02X}" if upper else f"%{b:02x}" for b in ch.encode("utf-8"))


@st.composite
def respelled(draw: st.DrawFn, path: str, dots: bool = True) -> str:
    """Another spelling of ``path``: characters percent-encoded (either hex case) and,
    with ``dots``, dot segments that resolve to nothing. Servers agree on the escapes;
    not on dot segments (aiohttp routes ``/x/../api`` as spelled), but Chrome resolves
    those before any request leaves it."""
    out = []
    for ch in path:
        if ch != "/" and draw(st.booleans()):
            out.append(_escape(ch, draw(st.booleans())))
        else:
            out.append(ch)
    spelled = "".join(out)
    segments = spelled.split("/")
    for _ in range(draw(st.integers(0, 2)) if dots else 0):
        at = draw(st.integers(1, len(segments) - 1)) if len(segments) > 1 else 1
        extra = draw(st.sampled_from([".", "%2e", "x/..", "x/%2E%2e", "x/.%2e", "x/%2e."]))
        segments[at:at] = extra.split("/")
    return "/".join(segments)


HOSTS = st.sampled_from(["portal.example", "PORTAL.example", "portal.example.",
                         "Portal.Example:443", "u:p@portal.example", "ｐｏｒｔａｌ.example"])


@examples(300)
@given(st.data(), PATHS)
def test_respelling_never_changes_the_canonical_form(data: st.DataObject, path: str) -> None:
    plain = canonical_url("https://portal.example" + path)
    spelled = data.draw(respelled(path))
    host = data.draw(HOSTS)
    fragment = data.draw(st.sampled_from(["", "#", "#frag"]))
    assert canonical_url(f"https://{host}{spelled}{fragment}") == plain


@examples(300)
@given(st.data(), PATHS)
def test_every_agreed_spelling_of_an_allowed_write_is_allowed(data: st.DataObject,
                                                              path: str) -> None:
    spelled = data.draw(respelled("/api" + path, dots=False))
    url = f"https://{data.draw(HOSTS)}{spelled}"
    if "submission" in path.lower() or path.lower().startswith("/final"):
        return  # denied by name, not by the allowlist
    assert not post(url), url


@examples(300)
@given(st.text(max_size=80))
def test_canonical_form_is_a_fixed_point(tail: str) -> None:
    for url in (tail, "https://h/" + tail, "http://" + tail):
        canonical = canonical_url(url)
        if canonical is not None:
            assert canonical_url(canonical) == canonical
            assert canonical in url_forms(url).server


AMBIGUOUS_PIECES = ["%2f", "%2F", "%5c", "\\", "//", "/./", "/../", "%2e%2e", ";x=1", "%3b",
                    "%25", "%252f", "%00", " ", "%20", ".", "ｓ", "%EF%BD%93"]


@examples(500)
@given(st.lists(st.sampled_from([*AMBIGUOUS_PIECES, "a", "b", "/"]), max_size=6),
       st.lists(st.sampled_from([*AMBIGUOUS_PIECES, "a", "/"]), max_size=4))
def test_denied_name_survives_any_junk_around_it(before: list[str],
                                                 after: list[str]) -> None:
    url = "https://portal.example/" + "".join(before) + "/submission/" + "".join(after)
    d = decide(CFG, RequestFacts("POST", url, "Fetch"))
    assert d.blocked and d.reason == "deny"


@examples(500)
@given(st.lists(st.sampled_from([*AMBIGUOUS_PIECES, "a", "api", "/"]), max_size=8))
def test_an_allowed_write_is_read_inside_the_allowlist_by_every_server(
        pieces: list[str]) -> None:
    url = "https://portal.example/" + "".join(pieces)
    d = decide(CFG, RequestFacts("POST", url, "Fetch"))
    if not d.blocked:
        prefix = re.compile(r"^https://portal\.example/api/")
        assert all(prefix.search(r) for r in url_forms(url).server), url


URL_PIECES = st.sampled_from([*"/\\%.;?#@:[]ａ0123456789abcdefABCDEF xX-~é\x00\t",
                              "%2e", "%2f", "%25", "%5c", "..", "xn--", "0x", "%u00"])


@examples(1000)
@given(st.sampled_from(["http://", "https://", "HTTP:", "ws:\\\\", "http:/"]),
       st.lists(URL_PIECES, max_size=30).map("".join))
def test_any_url_text_has_forms_and_a_stable_canonical_form(prefix: str, tail: str) -> None:
    forms = url_forms(prefix + tail)  # never raises
    assert forms.author
    if forms.canonical is not None:
        assert canonical_url(forms.canonical) == forms.canonical
        assert forms.server[0] == forms.canonical
