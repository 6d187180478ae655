"""The URL rule engine: what the guard does with one network request.

Chrome hands the guard a request (method, URL, resource type, whether it is a redirect
hop); this module says allow or block, why, and whether the request is recorded. It is
pure so that the property tests can throw arbitrary URLs at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from urllib.parse import urlsplit, urlunsplit

from ajantik_cdp.core.config import GuardConfig, UrlRule

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# Resource types that only ever fetch with GET from an element (img, script, link...).
# Pausing them would cost every page load an interception round trip and can never change
# a decision, because they are neither writes nor page loads.
STATIC_RESOURCE_TYPES = frozenset({"Image", "Media", "Font", "Script", "Stylesheet"})

# The types paused at the request stage. Fetch.enable accepts only some resource types in
# a pattern (measured on Chrome 156: TextTrack, Prefetch, WebSocket, Manifest,
# SignedExchange, Preflight and FedCM are refused as "Unknown resource type"); those are
# GET or OPTIONS requests, or invisible to Fetch anyway, so leaving them out changes no
# decision about writes or page loads.
INTERCEPTED_RESOURCE_TYPES = (
    "Document",
    "XHR",
    "Fetch",
    "Ping",
    "EventSource",
    "CSPViolationReport",
    "Other",
)


class Action(Enum):
    ALLOW = "allow"
    BLOCK = "block"


@dataclass(frozen=True)
class RequestFacts:
    method: str
    url: str
    resource_type: str
    is_redirect: bool = False


@dataclass(frozen=True)
class Decision:
    action: Action
    # Why it was blocked: "deny" or "allow_writes"; None when allowed.
    reason: str | None = None
    rule: UrlRule | None = None
    record: bool = False
    is_write: bool = False

    @property
    def blocked(self) -> bool:
        return self.action is Action.BLOCK

    def describe(self) -> str:
        if self.reason == "deny" and self.rule is not None:
            return f"matches {self.rule.label}"
        if self.reason == "allow_writes":
            return "write to a URL that matches no allow_writes entry"
        return "allowed"


def is_write(method: str) -> bool:
    return method.upper() not in READ_METHODS


def matchable_url(url: str) -> str:
    """The URL that rules are searched in: userinfo removed, scheme and host lower-cased.

    ``https://app.example.com@evil.net/`` goes to evil.net; matching the raw string would
    let an allowlist entry for app.example.com admit it.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.scheme or not parts.netloc:
        return url
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, parts.fragment))


def _first(rules: tuple[UrlRule, ...], url: str) -> UrlRule | None:
    for rule in rules:
        if rule.search(url):
            return rule
    return None


def decide(config: GuardConfig, facts: RequestFacts) -> Decision:
    url = matchable_url(facts.url)
    write = is_write(facts.method)
    page_load = facts.resource_type == "Document"
    if write or page_load or facts.is_redirect:
        denied = _first(config.deny, url)
        if denied is not None:
            return Decision(Action.BLOCK, "deny", denied, record=False, is_write=write)
    if write and config.allow_writes is not None and _first(config.allow_writes, url) is None:
        return Decision(Action.BLOCK, "allow_writes", None, record=False, is_write=write)
    record = write or _first(config.record, url) is not None
    return Decision(Action.ALLOW, None, None, record=record, is_write=write)


def fetch_patterns() -> list[dict[str, str]]:
    """The Fetch.enable patterns: request stage, every non-static resource type."""
    return [
        {"urlPattern": "*", "resourceType": t, "requestStage": "Request"}
        for t in INTERCEPTED_RESOURCE_TYPES
    ]
