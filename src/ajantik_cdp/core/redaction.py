"""What the record may hold: secrets are withheld, ordinary evidence is kept whole.

A body is withheld (only its length and a keyed fingerprint are written) when it was sent
to a URL matching a ``redact`` rule, or when it carries a secret anywhere in its parsed
structure: JSON (nested, and JSON inside strings), form-urlencoded, multipart, or a
JWT-shaped or well-known token string in any value. Whole bodies are withheld rather than
single fields because a partly masked body still invites guessing from what is left, and
because the judge reads ordinary bodies, which this module leaves byte for byte as sent.

The fingerprint is an HMAC-SHA256 under a key made fresh for each record and never
written, so two identical withheld bodies in one record match, while the value cannot be
recovered or confirmed by guessing from the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

import orjson
from cryptography.hazmat.primitives import hashes, hmac

from ajantik_cdp.core.config import GuardConfig
from ajantik_cdp.core.record_schema import Body, Withheld
from ajantik_cdp.core.rules import matchable_url

WITHHELD = "[withheld]"

# Substrings of a normalised key (lower-case, letters and digits only) that always name a
# secret.
_STRONG_KEY_PARTS = (
    "password", "passwd", "passphrase", "passcode", "secret", "token", "apikey",
    "accesskey", "privatekey", "secretkey", "signingkey", "clientsecret", "samlrequest",
    "samlresponse", "assertion", "jwt", "credential", "authorization", "cookie",
    "sessionid", "sessid", "bearer", "codeverifier",
)
# Whole words (after splitting camelCase, snake_case, kebab-case) that name a secret.
# Kept as words because as substrings they hide in ordinary names ("footprint", "author").
_WEAK_KEY_WORDS = frozenset(
    {"pwd", "pass", "pin", "otp", "sid", "session", "auth", "verifier", "cvv", "cvc", "ssn"}
)
# Query-string keys are also masked for OAuth's one-time values, which are only secrets
# in a URL (in a JSON body "code" is usually an ordinary record code).
_QUERY_ONLY_WORDS = frozenset({"code", "state", "sig", "signature", "ticket", "key", "relaystate"})

_SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key",
     "apikey", "x-auth-token", "x-access-token", "x-csrf-token", "x-xsrf-token",
     "x-amz-security-token", "x-goog-api-key"}
)
_URL_HEADERS = frozenset({"location", "referer", "content-location", "origin"})

_TOKEN_PATTERNS = re.compile(
    r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_\-]*"  # JWT / JWS
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JWE
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{30,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
    r"|\bsk-[A-Za-z0-9_-]{20,}"
    r"|\bAIza[0-9A-Za-z_-]{35}"
    r"|<(?:saml2?p?:)?(?:Assertion|EncryptedAssertion)\b"
    r"|\bSAML(?:Request|Response)\b"
)
# In text we cannot parse, a secret-named key followed by a value.
_TEXT_SECRET = re.compile(
    r"(?i)(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|client[_-]?secret|"
    r"authorization|session[_-]?id)[\"']?\s*[=:]\s*[\"']?[^\s\"'&<>,;]{3,}"
)
_SPLIT_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_MAX_DEPTH = 64


def _key_words(key: str) -> list[str]:
    return [w.lower() for w in _SPLIT_WORDS.findall(key)]


def is_secret_key(key: str) -> bool:
    norm = re.sub(r"[^a-z0-9]", "", key.lower())
    if any(part in norm for part in _STRONG_KEY_PARTS):
        return True
    return any(w in _WEAK_KEY_WORDS for w in _key_words(key))


def is_secret_query_key(key: str) -> bool:
    return is_secret_key(key) or any(w in _QUERY_ONLY_WORDS for w in _key_words(key))


def has_token(text: str) -> bool:
    return _TOKEN_PATTERNS.search(text) is not None


def _secret_value(key: str, value: Any) -> bool:
    """A secret-named key counts only when it holds a value worth hiding."""
    if isinstance(value, str):
        return value.strip() != ""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float):
        return any(w in {"pin", "otp", "cvv", "cvc", "password", "passcode"}
                   for w in _key_words(key))
    return False


def _walk_finds_secret(value: Any, depth: int = 0) -> str | None:
    if depth > _MAX_DEPTH:
        return "nesting too deep to inspect"
    if isinstance(value, dict):
        for k, v in value.items():
            key = str(k)
            if is_secret_key(key) and _secret_value(key, v):
                return f"field {key!r}"
            found = _walk_finds_secret(v, depth + 1)
            if found:
                return found
    elif isinstance(value, list):
        for item in value:
            found = _walk_finds_secret(item, depth + 1)
            if found:
                return found
    elif isinstance(value, str):
        return _string_finds_secret(value, depth)
    return None


def _string_finds_secret(text: str, depth: int) -> str | None:
    if has_token(text):
        return "token-shaped value"
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and depth < _MAX_DEPTH:
        try:
            return _walk_finds_secret(orjson.loads(stripped), depth + 1)
        except orjson.JSONDecodeError:
            pass
    if "=" in stripped and "&" in stripped and " " not in stripped:
        return _pairs_find_secret(parse_qsl(stripped, keep_blank_values=True), depth + 1)
    return None


def _pairs_find_secret(pairs: Iterable[tuple[str, str]], depth: int) -> str | None:
    for key, value in pairs:
        if is_secret_key(key) and value.strip():
            return f"field {key!r}"
        found = _string_finds_secret(value, depth)
        if found:
            return found
    return None


def _multipart_finds_secret(content_type: str, data: bytes) -> str | None:
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1", "replace") + b"\r\n\r\n" + data
    )
    if not message.is_multipart():
        return "multipart body that does not parse"
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition") or ""
        payload = part.get_payload(decode=True)
        raw = payload if isinstance(payload, bytes) else b""
        text = raw.decode("utf-8", "replace")
        if is_secret_key(str(name)) and text.strip():
            return f"field {str(name)!r}"
        if part.get_filename() is None:
            found = _string_finds_secret(text, 1)
            if found:
                return found
        elif has_token(text):
            return "token-shaped value in an uploaded file"
    return None


def find_secret(content_type: str | None, data: bytes) -> str | None:
    """Why this body must be withheld, or None when it carries no secret we can see."""
    ctype = (content_type or "").lower()
    if "multipart/" in ctype:
        try:
            return _multipart_finds_secret(content_type or "", data)
        except Exception:  # a malformed multipart body is withheld, never guessed at
            return "multipart body that does not parse"
    text = data.decode("utf-8", "replace")
    if has_token(text):
        return "token-shaped value"
    stripped = text.strip()
    if "json" in ctype or stripped[:1] in ("{", "["):
        try:
            return _walk_finds_secret(orjson.loads(data))
        except orjson.JSONDecodeError:
            pass
    if "x-www-form-urlencoded" in ctype or (
        "=" in stripped and " " not in stripped and "\n" not in stripped
    ):
        found = _pairs_find_secret(parse_qsl(stripped, keep_blank_values=True), 1)
        if found:
            return found
    if _TEXT_SECRET.search(text):
        return "secret-named value in text"
    return None


class Redactor:
    def __init__(self, config: GuardConfig, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the fingerprint key must be at least 16 bytes")
        self._config = config
        self._key = key

    def fingerprint(self, data: bytes) -> str:
        mac = hmac.HMAC(self._key, hashes.SHA256())
        mac.update(data)
        return "hmac-sha256:" + mac.finalize().hex()[:32]

    def body(self, url: str, content_type: str | None, data: bytes) -> Body:
        if not data:
            return Body(length=0, text="")
        rule = next((r for r in self._config.redact if r.search(matchable_url(url))), None)
        if rule is not None:
            reason = f"sent to a URL matching {rule.label}"
        else:
            reason = find_secret(content_type, data) or ""
        if not reason:
            try:
                return Body(length=len(data), text=data.decode("utf-8"))
            except UnicodeDecodeError:
                reason = "binary body (not inspected, so not written)"
        return Body(length=len(data), withheld=Withheld(reason, self.fingerprint(data)))

    def header_value(self, name: str, value: str) -> str:
        lower = name.lower()
        if lower in _SENSITIVE_HEADERS or is_secret_key(name) or has_token(value):
            return f"{WITHHELD} {self.fingerprint(value.encode())}"
        if lower in _URL_HEADERS:
            return self.url(value)
        return value

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        return {k: self.header_value(k, v) for k, v in headers.items()}

    def url(self, url: str) -> str:
        """Mask the values of secret-named query parameters and token-shaped text."""
        try:
            parts = urlsplit(url)
        except ValueError:
            return _TOKEN_PATTERNS.sub(WITHHELD, url)
        query = _mask_pairs(parts.query)
        fragment = _mask_pairs(parts.fragment) if "=" in parts.fragment else parts.fragment
        netloc = parts.netloc
        if "@" in netloc:  # userinfo may hold a password
            netloc = f"{quote(WITHHELD)}@" + netloc.rpartition("@")[2]
        rebuilt = urlunsplit((parts.scheme, netloc, parts.path, query, fragment))
        return _TOKEN_PATTERNS.sub(quote(WITHHELD), rebuilt)


def _mask_pairs(query: str) -> str:
    if not query:
        return query
    out = []
    for piece in query.split("&"):
        key, sep, value = piece.partition("=")
        plain_key = parse_qsl(piece, keep_blank_values=True)[0][0] if sep and key else key
        if sep and value and is_secret_query_key(plain_key):
            out.append(f"{key}={quote(WITHHELD)}")
        else:
            out.append(piece)
    return "&".join(out)
