"""The URL rule engine: what the guard does with one network request.

Chrome hands the guard a request (method, URL, resource type, whether it is a redirect
hop); this module says allow or block, why, and whether the request is recorded. It is
pure so that the property tests can throw arbitrary URLs at it.

Rules are searched in the forms of a URL (``canonical_url``), each list erring on its
own safe side:

- ``deny``, ``record`` and ``redact`` match when they match *any* form: the canonical
  one, every reading a server could make of it, or the URL as spelled. No spelling of a
  denied URL that some server dispatches to the denied handler escapes.
- ``allow_writes`` admits a write only when *every* server reading matches an entry (the
  canonical form among them). A URL that no server reads differently has one reading, so
  an allowed URL in any spelling servers agree on is still allowed; a URL that one server
  would read as a path outside the allowlist (``/api/..%2F..%2Fadmin``) is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ajantik_cdp.core.policy.canonical_url import UrlForms, url_forms
from ajantik_cdp.core.policy.config import GuardConfig, UrlRule

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


class Source(Enum):
    """Who made a request, as far as it changes the decision."""

    PAGE = "page"  # a document, its frames and dedicated workers, a shared worker
    # A site's service worker: its fetch() can carry a navigation it intercepted
    # (``fetch(event.request)``), which Chrome reports as a GET of type XHR with nothing
    # reliable to tell it from a read. Every request it makes to a denied URL is treated
    # as a page load.
    SERVICE_WORKER = "service_worker"
    # An extension's own worker or page (``chrome-extension://``): held to ``deny`` only,
    # so it still reaches its own server when ``allow_writes`` names only the portal.
    EXTENSION = "extension"


# Channels that stay open for the server to push through: a denied URL is denied for them
# whatever the method, as a page load is (a read that the page keeps listening to).
# Chrome 156 pauses an EventSource as "XHR"; ``paused.py`` names it from its Accept header.
# WebSockets never reach Fetch: ``socket_rules.py`` decides them.
CONNECTION_TYPES = frozenset({"EventSource"})


class Action(Enum):
    ALLOW = "allow"
    BLOCK = "block"


@dataclass(frozen=True)
class RequestFacts:
    method: str
    url: str
    resource_type: str
    is_redirect: bool = False
    source: Source = Source.PAGE


@dataclass(frozen=True)
class Decision:
    action: Action
    # Why it was blocked: "deny" or "allow_writes"; None when allowed.
    reason: str | None = None
    rule: UrlRule | None = None
    record: bool = False
    is_write: bool = False
    # For an allow_writes block of a URL whose canonical form the allowlist admits: the
    # reading of it (by some server) that no entry admits.
    reading: str | None = None

    @property
    def blocked(self) -> bool:
        return self.action is Action.BLOCK

    def describe(self) -> str:
        if self.reason == "deny" and self.rule is not None:
            return f"matches {self.rule.label}"
        if self.reason == "allow_writes" and self.reading is not None:
            return (f"write to a URL a server may read as {self.reading!r}, "
                    "which matches no allow_writes entry")
        if self.reason == "allow_writes":
            return "write to a URL that matches no allow_writes entry"
        return "allowed"


def is_write(method: str) -> bool:
    return method.upper() not in READ_METHODS


def _matching(rules: tuple[UrlRule, ...], forms: UrlForms) -> UrlRule | None:
    """The first rule that matches any form of the URL."""
    every = forms.every
    for rule in rules:
        if any(rule.search(form) for form in every):
            return rule
    return None


def _refused_reading(rules: tuple[UrlRule, ...], forms: UrlForms) -> str | None:
    """A server reading no allowlist entry admits (the URL itself when it has none)."""
    if not forms.server:
        return forms.author[0]
    for reading in forms.server:
        if not any(rule.search(reading) for rule in rules):
            return reading
    return None


def decide(config: GuardConfig, facts: RequestFacts) -> Decision:
    write = is_write(facts.method)
    page_load = facts.resource_type == "Document" or facts.source is Source.SERVICE_WORKER
    connection = facts.resource_type in CONNECTION_TYPES
    forms = url_forms(facts.url)
    if write or page_load or connection or facts.is_redirect:
        denied = _matching(config.deny, forms)
        if denied is not None:
            return Decision(Action.BLOCK, "deny", denied, record=False, is_write=write)
    if write and config.allow_writes is not None and facts.source is not Source.EXTENSION:
        refused = _refused_reading(config.allow_writes, forms)
        if refused is not None:
            return Decision(Action.BLOCK, "allow_writes", None, record=False, is_write=write,
                            reading=None if refused == forms.canonical else refused)
    record = write or _matching(config.record, forms) is not None
    return Decision(Action.ALLOW, None, None, record=record, is_write=write)


def redact_rule(config: GuardConfig, url: str) -> UrlRule | None:
    """The ``redact`` entry that withholds bodies sent to ``url``, if any."""
    if not config.redact:
        return None
    return _matching(config.redact, url_forms(url))


def fetch_patterns() -> list[dict[str, str]]:
    """The Fetch.enable patterns: request stage, every non-static resource type."""
    return [
        {"urlPattern": "*", "resourceType": t, "requestStage": "Request"}
        for t in INTERCEPTED_RESOURCE_TYPES
    ]
