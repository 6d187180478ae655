"""What the record may hold: secrets are withheld, ordinary evidence is kept whole.

A body is withheld (only its length and a keyed fingerprint are written) when it was sent
to a URL matching a ``redact`` rule, or when ``secret_detection`` finds a secret anywhere in
its parsed structure. Whole bodies are withheld rather than single fields because a partly
masked body still invites guessing from what is left, and because the judge reads ordinary
bodies, which this module leaves byte for byte as sent.

The fingerprint is an HMAC-SHA256 under a key made fresh for each record and never
written, so two identical withheld bodies in one record match, while the value cannot be
recovered or confirmed by guessing from the file.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from urllib.parse import parse_qsl, quote, unquote_plus, urlsplit, urlunsplit

from cryptography.hazmat.primitives import hashes, hmac

from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.rules import redact_rule
from ajantik_cdp.core.record.record_schema import Body, Withheld
from ajantik_cdp.core.record.secret_detection import (
    find_secret,
    has_token,
    is_auth_value,
    is_secret_key,
    is_secret_query_key,
    key_words,
    mask_tokens,
    text_finds_secret,
)

WITHHELD = "[withheld]"
# Inspection runs on the guard's event loop at roughly half a millisecond per KiB of JSON;
# a larger body is withheld rather than stall every other request while it is read.
MAX_INSPECTED_BODY = 1024 * 1024
_WITHHELD_Q = quote(WITHHELD)

_SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "cookie2", "set-cookie2",
     "x-api-key", "api-key", "apikey", "x-auth-token", "x-access-token", "x-csrf-token",
     "x-xsrf-token", "x-amz-security-token", "x-goog-api-key", "www-authenticate",
     "proxy-authenticate", "x-refresh-token", "x-session-id"}
)
# A header whose name ends in one of these words holds a key or signature
# (Ocp-Apim-Subscription-Key, X-Functions-Key, X-Hub-Signature).
_HEADER_SECRET_WORDS = frozenset({"key", "signature", "sig"})
_URL_HEADERS = frozenset({"location", "referer", "content-location", "origin", "link"})
# Headers repeat from one request to the next (User-Agent, Accept, sec-ch-ua, Origin...):
# each distinct one is inspected once per record.
_HEADER_CACHE = 4096


@functools.lru_cache(maxsize=1024)
def is_secret_header(name: str) -> bool:
    lower = name.lower()
    return (lower in _SENSITIVE_HEADERS or is_secret_key(name)
            or any(w in _HEADER_SECRET_WORDS for w in key_words(name)))


class Redactor:
    def __init__(self, config: GuardConfig, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the fingerprint key must be at least 16 bytes")
        self._config = config
        self._key = key
        self._headers: dict[tuple[str, str], str] = {}

    def fingerprint(self, data: bytes) -> str:
        mac = hmac.HMAC(self._key, hashes.SHA256())
        mac.update(data)
        return "hmac-sha256:" + mac.finalize().hex()[:32]

    def body(self, url: str, content_type: str | None, data: bytes) -> Body:
        if not data:
            return Body(length=0, text="")
        rule = redact_rule(self._config, url)
        if rule is not None:
            reason = f"sent to a URL matching {rule.label}"
        elif len(data) > MAX_INSPECTED_BODY:
            reason = f"over {MAX_INSPECTED_BODY // 1024} KiB (not inspected, so not written)"
        else:
            reason = find_secret(content_type, data) or ""
        if not reason:
            try:
                return Body(length=len(data), text=data.decode("utf-8"))
            except UnicodeDecodeError:
                reason = "binary body (not inspected, so not written)"
        return Body(length=len(data), withheld=Withheld(reason, self.fingerprint(data)))

    def header_value(self, name: str, value: str) -> str:
        key = (name, value)
        shown = self._headers.get(key)
        if shown is None:
            if len(self._headers) >= _HEADER_CACHE:
                self._headers.clear()
            shown = self._headers[key] = self._header_value(name, value)
        return shown

    def _header_value(self, name: str, value: str) -> str:
        if is_secret_header(name) or has_token(value) or is_auth_value(value):
            return f"{WITHHELD} {self.fingerprint(value.encode())}"
        if name.lower() in _URL_HEADERS:
            return self.url(value)
        return value

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        return {k: self.header_value(k, v) for k, v in headers.items()}

    def url(self, url: str) -> str:
        """Mask userinfo, the values of secret query and fragment parameters (or of any
        parameter whose value carries a secret), and token-shaped text anywhere."""
        try:
            parts = urlsplit(url)
        except ValueError:
            return mask_tokens(url, _WITHHELD_Q)
        query = mask_query(parts.query)
        fragment = mask_query(parts.fragment) if "=" in parts.fragment else parts.fragment
        netloc = parts.netloc
        if "@" in netloc:  # userinfo may hold a password
            netloc = f"{_WITHHELD_Q}@" + netloc.rpartition("@")[2]
        rebuilt = urlunsplit((parts.scheme, netloc, parts.path, query, fragment))
        return mask_tokens(rebuilt, _WITHHELD_Q)


def mask_query(query: str) -> str:
    """A query string with secret values replaced; every other byte is kept as it was."""
    if not query:
        return query
    out = []
    for piece in query.split("&"):
        key, sep, value = piece.partition("=")
        pairs = parse_qsl(piece, keep_blank_values=True)
        plain_key = pairs[0][0] if pairs else unquote_plus(key)
        plain_value = unquote_plus(value)
        if sep and value and (is_secret_query_key(plain_key)
                              or text_finds_secret(plain_value) is not None):
            out.append(f"{key}={_WITHHELD_Q}")
        else:
            out.append(piece)
    return "&".join(out)
