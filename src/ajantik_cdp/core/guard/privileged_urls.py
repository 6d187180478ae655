"""Which URLs open one of Chrome's own privileged pages, read as Chrome reads them.

A client that opens Chrome's settings (``chrome://settings``) can turn "Preload pages" back
on through the page's ``chrome.settingsPrivate``; other WebUI pages, DevTools' front end and
extension pages hold browser powers of their own (extension APIs read every cookie,
``chrome://quit`` and ``chrome://inducebrowsercrashforrealz`` stop the person's browser).
None of them is a site the rules speak of, so a client navigation to any of them is
refused as a class.

The decision is made on the scheme as Chrome's URL parser finds it, not on a spelling:
Chrome trims leading and trailing C0 controls and spaces, removes every tab and newline
anywhere in the text, and lowercases the scheme; a standard scheme needs no slashes
(measured: ``chrome:settings/performance`` opened the settings page). So
``" CHROME:\\tsettings"`` is the settings page as much as ``chrome://settings`` is.

The privileged class:

* every scheme of Chrome's family (``chrome``, ``chrome-untrusted``, ``chrome-extension``,
  ``chrome-search``, ``chrome-error``, ``chrome-devtools``, ...: any scheme that begins
  with ``chrome``), ``devtools`` and ``isolated-app``;
* ``about:`` other than ``about:blank`` and ``about:srcdoc`` (Chrome rewrites the others,
  ``about:settings``, ``about:version``, to ``chrome://``);
* ``view-source:``, ``blob:`` and ``filesystem:`` wrapped around one of the above (their
  page runs in the inner URL's origin);
* text in which no scheme can be found: Chrome refuses to navigate there anyway, and a
  parser that disagreed with Chrome's about it must not let a privileged page through.
"""

from __future__ import annotations

import re
from typing import Any

# The WHATWG URL parser's (and GURL's) trimming: C0 controls and space at either end,
# ASCII tab and newline anywhere.
_TRIMMED = "".join(chr(c) for c in range(0x21))
_REMOVED = str.maketrans("", "", "\t\n\r")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
# Schemes that wrap a whole URL whose origin the page then has.
_WRAPPERS = frozenset({"view-source", "blob", "filesystem"})
_PRIVILEGED = frozenset({"devtools", "isolated-app"})
_ABOUT_PAGES = frozenset({"blank", "srcdoc"})
_NESTING = 4  # Chrome refuses view-source of view-source; deeper text is refused here


def chrome_url(url: str) -> tuple[str, str] | None:
    """(scheme, the rest after its colon) as Chrome's parser reads ``url``; the scheme in
    lower case. None when no scheme can be found."""
    text = url.strip(_TRIMMED).translate(_REMOVED)
    match = _SCHEME.match(text)
    if match is None:
        return None
    return match.group()[:-1].lower(), text[match.end():]


def privileged_scheme(url: str, _depth: int = 0) -> str | None:
    """Why ``url`` opens a privileged page (the scheme that makes it one, or a sentence),
    or None for an ordinary URL (http, https, data, javascript, about:blank ...)."""
    parsed = chrome_url(url)
    if parsed is None:
        return "no URL scheme Chrome would accept"
    scheme, rest = parsed
    if scheme.startswith("chrome") or scheme in _PRIVILEGED:
        return f"{scheme}:"
    if scheme == "about":
        page = re.split(r"[?#]", rest, maxsplit=1)[0]
        return None if page in _ABOUT_PAGES else f"about:{page}"
    if scheme in _WRAPPERS:
        if _depth >= _NESTING:
            return f"{scheme}: nested too deep"
        inner = privileged_scheme(rest, _depth + 1)
        if inner is not None and scheme != "view-source" and chrome_url(rest) is None:
            # blob:/filesystem: of an opaque inner text (blob:null/...) are ordinary.
            return None
        return None if inner is None else f"{scheme}:{inner}"
    return None


def is_privileged_url(url: str) -> bool:
    return privileged_scheme(url) is not None


def shows_privileged_page(url: str) -> str | None:
    """Why a target whose document is at ``url`` is a privileged page, or None.

    For a document already there, not a navigation: a target with no URL yet is not one,
    and Chrome's error page (``chrome-error://chromewebdata/``, what a blocked load
    commits) holds no powers, so a client may go on driving its tab."""
    parsed = chrome_url(url)
    if parsed is None or parsed[0] == "chrome-error":
        return None
    return privileged_scheme(url)


PRIVILEGED_REFUSAL = ("it is one of Chrome's own privileged pages ({why}), which no rule "
                      "covers and where a client could, among other things, turn 'Preload "
                      "pages' back on; the guard opens none for a client")


# -- commands on a target that already shows a privileged page -------------------------------
#
# A settings tab the person has open, an extension's worker: Chrome lets a client attach
# to them, and a client library attaches to every target it is given (measured: Puppeteer's
# browser.pages() fails if a settings tab refuses Network.enable). So such a target takes
# the commands that only switch a domain's events on or off, describe the target or leave
# the page, and nothing that runs code there, acts on its page, reads its content or
# changes what its next document runs.
_PASSIVE = frozenset({
    "Runtime.runIfWaitingForDebugger", "Runtime.getIsolateId", "Page.getFrameTree",
    "Page.setLifecycleEventsEnabled", "Page.getNavigationHistory", "Page.bringToFront",
    "Page.close", "Page.createIsolatedWorld", "Page.setInterceptFileChooserDialog",
    "Page.setFontFamilies", "Page.setFontSizes",
    "Network.setCacheDisabled", "Network.setBypassServiceWorker",
    "Network.setUserAgentOverride", "Network.setExtraHTTPHeaders",
    "Network.emulateNetworkConditions", "Target.setAutoAttach", "Target.getTargetInfo",
    # Leaving the page: the gate decides where to (a privileged page is refused), and the
    # net decides the load. A client that finds the person's new-tab page (chrome://newtab
    # in a desktop Chrome) navigates it away like any tab.
    "Page.navigate", "Page.navigateToHistoryEntry", "Page.reload", "Page.stopLoading",
})
# Domains whose every command only changes how the page is shown or measured (viewport,
# media, time zone; metrics, console entries): none runs code or presses anything.
_PASSIVE_DOMAINS = frozenset({"Emulation", "Performance", "Log"})
# A script that is empty (Playwright's utility world) or one comment line (Puppeteer's,
# "//# sourceURL=pptr:internal"): no JavaScript line terminator, so no code.
_COMMENT_ONLY = re.compile(r"[ \t]*(//[^\n\r\u2028\u2029]*)?")


def passive_command(method: str, params: Any) -> bool:
    """Whether ``method`` may reach a target that shows a privileged page."""
    if method in _PASSIVE:
        return True
    domain, _, name = method.partition(".")
    if domain in _PASSIVE_DOMAINS:
        return True
    if name in ("enable", "disable") and domain not in ("Fetch",):
        # Fetch.enable on a privileged page would let a client answer its requests.
        return True
    if method == "Page.addScriptToEvaluateOnNewDocument" and isinstance(params, dict):
        source = params.get("source")
        return isinstance(source, str) and _COMMENT_ONLY.fullmatch(source) is not None
    return False
