"""Chrome's privileged pages, decided on the URL as Chrome parses it (issue 27, class 3).

Every property spells a privileged URL the way an attacker could (scheme case, C0 controls
and spaces at the ends, tabs and newlines anywhere, slashes left out, wrapped in
view-source:) and requires the class to hold, not the spellings tried before.
``tests/guard/test_privileged_pages.py`` checks the parser against Chrome's own.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.privileged_urls import (
    chrome_url,
    is_privileged_url,
    passive_command,
    privileged_scheme,
    shows_privileged_page,
)

PRIVILEGED = (
    "chrome://settings/performance", "chrome:settings/performance", "chrome://quit",
    "chrome-untrusted://terminal/", "chrome-extension://abcdefghijklmnop/options.html",
    "chrome-search://local-ntp/", "chrome-error://chromewebdata/", "devtools://devtools/"
    "bundled/inspector.html", "chrome-devtools://devtools/", "isolated-app://x/",
    "about:settings", "about:version", "about:inducebrowsercrashforrealz", "about:",
    "view-source:chrome://settings", "view-source:about:settings",
    "blob:chrome://settings/0a0b", "filesystem:chrome-extension://id/temporary/x",
)
ORDINARY = (
    "https://portal.example/settings", "http://127.0.0.1:8080/chrome://settings",
    "about:blank", "about:blank#top", "about:blank?x", "about:srcdoc", "data:text/html,hi",
    "javascript:void(0)", "view-source:https://portal.example/", "blob:https://a.example/1",
    "blob:null/1", "file:///tmp/x.html", "ws://127.0.0.1/",
)

_C0_OR_SPACE = st.text(alphabet=[chr(c) for c in range(0x21)], max_size=4)
_TAB_OR_NEWLINE = st.sampled_from(["\t", "\n", "\r"])


@st.composite
def spelled(draw: st.DrawFn, url: str) -> str:
    """``url`` as an attacker could spell it for Chrome's parser to read it the same."""
    scheme, _, rest = url.partition(":")
    scheme = "".join(c.upper() if draw(st.booleans()) else c for c in scheme)
    if rest.startswith("//") and draw(st.booleans()):
        rest = rest[2:]  # a standard scheme needs no slashes
    text = scheme + ":" + rest
    chars = list(text)
    for _ in range(draw(st.integers(0, 4))):
        chars.insert(draw(st.integers(0, len(chars))), draw(_TAB_OR_NEWLINE))
    return draw(_C0_OR_SPACE) + "".join(chars) + draw(_C0_OR_SPACE)


@pytest.mark.parametrize("url", PRIVILEGED)
def test_each_privileged_page_is_refused(url: str) -> None:
    assert is_privileged_url(url)


@pytest.mark.parametrize("url", ORDINARY)
def test_ordinary_urls_pass(url: str) -> None:
    assert privileged_scheme(url) is None


@given(st.sampled_from(PRIVILEGED).flatmap(spelled))
def test_no_spelling_of_a_privileged_page_passes(url: str) -> None:
    assert is_privileged_url(url)


@given(st.sampled_from(PRIVILEGED).flatmap(spelled))
def test_view_source_of_any_spelling_is_privileged_too(url: str) -> None:
    assert is_privileged_url("view-source:" + url)
    assert is_privileged_url(" VIEW-SOURCE:" + url)


@given(st.sampled_from([u for u in ORDINARY if not u.startswith("about:")]).flatmap(spelled))
def test_spelling_an_ordinary_url_oddly_does_not_make_it_privileged(url: str) -> None:
    assert privileged_scheme(url) is None


@given(st.from_regex(r"[a-z][a-z0-9+.\-]{0,12}", fullmatch=True), st.text(max_size=30))
def test_every_chrome_family_scheme_is_privileged(tail: str, rest: str) -> None:
    # The class is the family, not a list: a scheme Chrome adds later is refused too.
    assert is_privileged_url(f"chrome-{tail}:{rest}")
    assert is_privileged_url(f"chrome{tail}:{rest}")


@given(st.one_of(st.sampled_from(["blank", "srcdoc", "blank#x", "srcdoc?y", "BLANK",
                                   "blank/", "%62lank", "settings"]),
                 st.text(st.characters(min_codepoint=0x21, max_codepoint=0x2FFF),
                         max_size=20)))
def test_about_pages_other_than_blank_and_srcdoc_are_privileged(page: str) -> None:
    # Over-refusing about:BLANK is harmless; letting an alias of chrome:// through is not.
    name = page.split("?")[0].split("#")[0]
    assert is_privileged_url("about:" + page) is (name not in ("blank", "srcdoc"))


@given(st.text(max_size=40))
def test_the_decision_is_the_same_on_the_text_chrome_reads(url: str) -> None:
    # Trimming and tab removal are Chrome's first steps: deciding before them or after
    # them must agree, so no control character can move a URL out of the class.
    parsed = chrome_url(url)
    if parsed is None:
        assert is_privileged_url(url)
        return
    scheme, rest = parsed
    assert privileged_scheme(url) == privileged_scheme(f"{scheme}:{rest}")


@given(st.text(max_size=30))
def test_text_without_a_scheme_is_refused(text: str) -> None:
    # Chrome cannot navigate to it; refusing it keeps a parser disagreement on the safe side.
    if chrome_url(text) is None:
        assert is_privileged_url(text)


def test_a_target_showing_chromes_error_page_or_no_url_is_not_privileged() -> None:
    # A blocked load commits chrome-error://chromewebdata/: the client drives on from it.
    for url in ("chrome-error://chromewebdata/", "", "about:blank"):
        assert shows_privileged_page(url) is None
    for url in ("chrome://settings/", "chrome-extension://id/bg.js",
                "view-source:chrome://settings/", "devtools://devtools/x"):
        assert shows_privileged_page(url) is not None


@pytest.mark.parametrize("method", [
    "Runtime.evaluate", "Runtime.callFunctionOn", "Runtime.compileScript",
    "Runtime.runScript", "Debugger.setBreakpointByUrl", "Debugger.evaluateOnCallFrame",
    "Input.dispatchMouseEvent", "Input.dispatchKeyEvent", "Input.insertText",
    "DOM.setAttributeValue", "DOM.setOuterHTML", "DOM.getOuterHTML",
    "Page.captureScreenshot", "Page.setDocumentContent", "Fetch.enable", "Fetch.fulfillRequest",
    "Page.addScriptToEvaluateOnNewDocument", "Storage.getCookies", "Runtime.addBinding"])
def test_nothing_that_acts_reaches_a_privileged_page(method: str) -> None:
    assert not passive_command(method, {"source": "chrome.settingsPrivate.setPref()"})


@given(st.text(max_size=30))
def test_only_a_one_line_comment_may_be_added_to_a_privileged_pages_next_document(
        tail: str) -> None:
    source = "//# sourceURL=pptr:internal" + tail
    allowed = passive_command("Page.addScriptToEvaluateOnNewDocument", {"source": source})
    # A JavaScript line terminator anywhere ends the comment, and what follows runs.
    assert allowed is not any(c in tail for c in "\n\r\u2028\u2029")


def test_what_client_libraries_send_while_attaching_is_passive() -> None:
    for method in ("Page.enable", "Runtime.enable", "Network.enable", "Log.enable",
                   "Page.getFrameTree", "Page.setLifecycleEventsEnabled",
                   "Target.setAutoAttach", "Runtime.runIfWaitingForDebugger",
                   "Emulation.setDeviceMetricsOverride", "Page.createIsolatedWorld",
                   # leaving the page (where to is decided as any navigation)
                   "Page.navigate", "Page.navigateToHistoryEntry", "Page.reload"):
        assert passive_command(method, {}), method
    # Playwright's utility world (empty) and Puppeteer's (one comment line).
    for source in ("", "//# sourceURL=pptr:internal"):
        assert passive_command("Page.addScriptToEvaluateOnNewDocument",
                               {"source": source, "worldName": "w"})
