"""Keep the person's session inside Chrome: what a client's cookie reads may return.

The guard sees only requests Chrome makes. A client that reads the session cookies over
DevTools (Playwright's ``page.request`` does, through ``Storage.getCookies``) can send
writes from its own process that the guard never sees and the record never shows. So by
default every cookie is withheld from what Chrome tells a client: cookie lists lose the
entries, ``Cookie`` headers lose the pairs and ``Set-Cookie`` headers the lines.

Entries are removed, never blanked: a client that writes back what it read (a saved
storage state, Playwright's cookie jar) would overwrite the real session with an empty
value and log the person out.

The session can sit in a header of its own too: for a portal behind HTTP authentication
(Basic, Digest, NTLM, Negotiate) or a proxy that asks for it, Chrome adds
``Authorization`` / ``Proxy-Authorization`` from its credential cache to every request,
and the raw request headers it reports (``Network.requestWillBeSentExtraInfo``, raw header
text) carry them; a Basic header is the password itself, replayable from anywhere
(measured on Chrome 156). So these headers are withheld everywhere the cookie headers
are, for every URL whose cookies are withheld.

``share_cookies`` in the config hands cookies of matching domains to clients; ``*`` hands
all of them out (the explicit opt-out). Where Chrome reports a header without saying which
domain its cookies belong to, a pair or line is kept only when every domain it could belong
to is shared: the filter errs on the side of withholding.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

SHARE_ALL = "*"

# Commands whose result lists cookies with their values (checked against Chrome 156's
# /json/protocol: every command whose result holds a Network.Cookie).
COOKIE_READS = frozenset({"Network.getCookies", "Network.getAllCookies", "Storage.getCookies"})

# Events whose parameters hold request or response headers, raw header text, or cookies
# (every event of Chrome 156's protocol that holds Network.Headers, Fetch.HeaderEntry,
# Network.Request/Response, a WebSocket handshake or an associated/blocked cookie).
COOKIE_EVENTS = frozenset({
    "Fetch.requestPaused",
    "Fetch.authRequired",
    "Network.requestWillBeSent",
    "Network.requestWillBeSentExtraInfo",
    "Network.responseReceived",
    "Network.responseReceivedExtraInfo",
    "Network.responseReceivedEarlyHints",
    "Network.webSocketWillSendHandshakeRequest",
    "Network.webSocketHandshakeResponseReceived",
    "Network.signedExchangeReceived",
    # An inspector issue about a cookie quotes its Set-Cookie line (rawCookieLine).
    "Audits.issueAdded",
    # A prerender whose headers differ from its activation names them with both values.
    "Preload.prerenderStatusUpdated",
})

_HEADER_KEYS = frozenset({"headers", "requestHeaders", "responseHeaders"})
_TEXT_KEYS = frozenset({"headersText", "requestHeadersText"})
_COOKIE_ENTRY_KEYS = frozenset({"associatedCookies", "blockedCookies", "exemptedCookies"})
_COOKIE_HEADERS = frozenset({"cookie", "set-cookie", "set-cookie2"})
# Headers that carry the person's credentials for HTTP authentication; a page's own
# ``fetch`` may set Authorization as well, and is withheld alike (the filter cannot tell).
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization"})
_WITHHELD_HEADERS = _COOKIE_HEADERS | CREDENTIAL_HEADERS
_DOMAIN_ATTR = re.compile(r";\s*domain\s*=\s*([^;]*)", re.IGNORECASE)


@dataclass(frozen=True)
class CookiePolicy:
    """Which cookie domains a client may see. ``share`` holds compiled patterns searched
    in the cookie's domain (lower case, leading dot removed)."""

    share: tuple[re.Pattern[str], ...] = ()
    share_all: bool = False

    @classmethod
    def from_patterns(cls, patterns: Iterable[str]) -> CookiePolicy:
        items = list(patterns)
        return cls(
            share=tuple(re.compile(p, re.IGNORECASE) for p in items if p != SHARE_ALL),
            share_all=SHARE_ALL in items,
        )

    def shares(self, domain: str) -> bool:
        if self.share_all:
            return True
        d = domain.strip().lstrip(".").lower()
        return bool(d) and any(p.search(d) for p in self.share)

    def shares_url(self, url: str | None) -> bool:
        """Every cookie that can go to ``url`` is shared: its host and each parent."""
        if self.share_all:
            return True
        host = _host(url)
        return host is not None and all(self.shares(d) for d in _domains_of(host))


def filter_cookies(cookies: Any, policy: CookiePolicy) -> Any:
    """A cookie list (Network.Cookie objects) without the withheld entries."""
    if policy.share_all or not isinstance(cookies, list):
        return cookies
    return [c for c in cookies
            if isinstance(c, dict) and isinstance(c.get("domain"), str)
            and policy.shares(c["domain"])]


def filter_result(result: Any, policy: CookiePolicy) -> Any | None:
    """The result of a cookie read (one of ``COOKIE_READS``), filtered; None when nothing
    had to change."""
    if not isinstance(result, dict) or policy.share_all:
        return None
    cookies = result.get("cookies")
    kept = filter_cookies(cookies, policy)
    if kept == cookies:
        return None
    return {**result, "cookies": kept}


def filter_event(method: str, params: Any, policy: CookiePolicy) -> Any | None:
    """An event's parameters with withheld cookies and credential headers removed; None
    when nothing changed."""
    if method not in COOKIE_EVENTS or policy.share_all or not isinstance(params, dict):
        return None
    out = _walk(params, None, None, policy)
    return None if out == params else out


# -- the walk over an event's parameters ----------------------------------------------------

def _walk(value: Any, url: str | None, shared_pairs: frozenset[tuple[str, str]] | None,
          policy: CookiePolicy) -> Any:
    if isinstance(value, list):
        return [_walk(v, url, shared_pairs, policy) for v in value]
    if not isinstance(value, dict):
        return value
    # The nearest URL says where a header went; Network.Request and Response carry one.
    here = value.get("url")
    for child in ("request", "response"):
        inner = value.get(child)
        if not isinstance(here, str) and isinstance(inner, dict):
            here = inner.get("url")
    if isinstance(here, str):
        url = here
    associated = value.get("associatedCookies")
    if isinstance(associated, list):
        shared_pairs = frozenset(
            (str(c["cookie"].get("name")), str(c["cookie"].get("value")))
            for c in associated
            if isinstance(c, dict) and isinstance(c.get("cookie"), dict)
            and policy.shares(str(c["cookie"].get("domain", "")))
        )
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "rawCookieLine" and isinstance(item, str):
            if not _issue_shared(value, item, policy):
                continue
            out[key] = item
        elif key == "mismatchedHeaders" and isinstance(item, list):
            out[key] = [h for h in item if policy.share_all or not (
                isinstance(h, dict) and str(h.get("headerName", "")).strip().lower()
                in _WITHHELD_HEADERS)]
        elif key in _HEADER_KEYS:
            out[key] = _headers(item, url, shared_pairs, policy)
        elif key in _TEXT_KEYS and isinstance(item, str):
            out[key] = _headers_text(item, url, shared_pairs, policy)
        elif key in _COOKIE_ENTRY_KEYS and isinstance(item, list):
            out[key] = [e for e in item if _entry_shared(e, url, policy)]
        else:
            out[key] = _walk(item, url, shared_pairs, policy)
    return out


def _headers(headers: Any, url: str | None, shared_pairs: frozenset[tuple[str, str]] | None,
             policy: CookiePolicy) -> Any:
    if isinstance(headers, dict):  # Network.Headers
        out: dict[str, Any] = {}
        for name, value in headers.items():
            kept = _header_value(name, value, url, shared_pairs, policy)
            if kept is not None:
                out[name] = kept
        return out
    if isinstance(headers, list):  # Fetch.HeaderEntry list
        entries = []
        for entry in headers:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                kept = _header_value(entry["name"], entry.get("value"), url, shared_pairs,
                                     policy)
                if kept is None:
                    continue
                entry = {**entry, "value": kept}
            entries.append(entry)
        return entries
    return headers


def _header_value(name: str, value: Any, url: str | None,
                  shared_pairs: frozenset[tuple[str, str]] | None,
                  policy: CookiePolicy) -> Any | None:
    """The header's value with withheld cookies removed; None drops the header."""
    lname = name.strip().lower()
    if lname in CREDENTIAL_HEADERS:
        # Shared only where the request's host and every parent domain are shared.
        return value if policy.shares_url(url) else None
    if lname not in _COOKIE_HEADERS:
        return value
    if not isinstance(value, str):
        return None
    if lname == "cookie":
        kept = _cookie_pairs(value, url, shared_pairs, policy)
        return kept or None
    # Chrome joins repeated Set-Cookie headers with newlines.
    lines = [line for line in value.split("\n") if _set_cookie_shared(line, url, policy)]
    return "\n".join(lines) or None


def _cookie_pairs(value: str, url: str | None,
                  shared_pairs: frozenset[tuple[str, str]] | None,
                  policy: CookiePolicy) -> str:
    if policy.shares_url(url):
        return value
    if shared_pairs is None:
        return ""
    kept = []
    for pair in value.split(";"):
        name, _, val = pair.strip().partition("=")
        if (name, val) in shared_pairs:
            kept.append(pair.strip())
    return "; ".join(kept)


def _set_cookie_shared(line: str, url: str | None, policy: CookiePolicy) -> bool:
    m = _DOMAIN_ATTR.search(line)
    if m and m.group(1).strip():
        return policy.shares(m.group(1))
    host = _host(url)
    return host is not None and policy.shares(host)


def _entry_shared(entry: Any, url: str | None, policy: CookiePolicy) -> bool:
    if not isinstance(entry, dict):
        return False
    cookie = entry.get("cookie")
    if isinstance(cookie, dict) and isinstance(cookie.get("domain"), str):
        return policy.shares(cookie["domain"])
    line = entry.get("cookieLine")
    return isinstance(line, str) and _set_cookie_shared(line, url, policy)


def _issue_shared(details: dict[str, Any], line: str, policy: CookiePolicy) -> bool:
    """An Audits cookie issue: its affected cookie names the domain, else its URL."""
    cookie = details.get("cookie")
    if isinstance(cookie, dict) and isinstance(cookie.get("domain"), str) \
            and cookie["domain"]:
        return policy.shares(cookie["domain"])
    url = details.get("cookieUrl")
    return _set_cookie_shared(line, url if isinstance(url, str) else None, policy)


def _headers_text(text: str, url: str | None,
                  shared_pairs: frozenset[tuple[str, str]] | None,
                  policy: CookiePolicy) -> str:
    lines = []
    for line in text.split("\r\n"):
        name, sep, value = line.partition(":")
        if sep:
            kept = _header_value(name, value.strip(), url, shared_pairs, policy)
            if kept is None:
                continue
            if kept != value.strip():
                line = f"{name}: {kept}"
        lines.append(line)
    return "\r\n".join(lines)


def _host(url: str | None) -> str | None:
    if not url:
        return None
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.lower() if host else None


def _domains_of(host: str) -> list[str]:
    """The host and every parent domain a cookie sent to it could have been set on.

    A top-level label alone is a public suffix (Chrome refuses cookies on it), so it is
    left out unless it is the whole host (``localhost``)."""
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    labels = host.split(".")
    return [".".join(labels[i:]) for i in range(max(1, len(labels) - 1))]
