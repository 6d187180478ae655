"""The canonical form of a URL, and every reading a server could make of it.

Rules are regular expressions over URLs, but servers dispatch on a decoded path: aiohttp
routes ``/%73ubmission/x`` to its ``/submission/{tail}`` handler, Tomcat drops ``;params``,
IIS treats ``\\`` as ``/`` and maps fullwidth letters to ASCII, some stacks decode twice.
A rule searched only in the URL as Chrome spelled it is bypassed by spelling it otherwise.

So a URL has three kinds of form here:

- **canonical**: the one spelling every standard-following server agrees on. Scheme and
  host lower-cased, the host mapped and encoded as Chrome does (UTS 46, punycode, IPv4 in
  any notation as a dotted quad), a trailing dot on the host and a default port dropped,
  userinfo and fragment dropped, percent-escapes decoded wherever the decoded character
  cannot change how the path or query splits (``%2F``, ``%5C``, ``%25``, ``%3F``, ``%23``,
  ``%3B``, spaces, controls and bytes that are not UTF-8 stay escaped, in upper case), dot
  segments resolved.
- **server readings**: the canonical form plus what a less careful server might make of
  the same bytes: every escape but ``%2F`` and ``%25`` decoded and dot segments left
  alone (aiohttp's router), every escape decoded once or until
  nothing changes, ``\\`` as a separator, ``;params`` stripped, empty segments merged, and
  fullwidth forms and trailing dots folded (NFKC, as IIS does). The host is the canonical
  host in all of them: servers do not re-read the host, DNS does.
- **author readings**: what a rule's author may have written against: the URL as given
  (minus userinfo), the canonical URL with a Unicode host, and each server reading
  without its query (a router dispatches on the path alone, so ``/submission$`` means
  the handler, whatever query follows).

``rules.py`` says how the rule lists use them. The module is pure and cached: the guard
asks for the same URL's forms for several lists.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import idna

# WHATWG's "special" schemes, with their default ports. file: is special too, but it has
# no network host a rule could be about; it is treated as opaque here.
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_ESCAPE_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_UNSAFE_LITERAL = re.compile(r"%(?![0-9A-Fa-f]{2})|[\x00-\x20\x7f]")
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")

# Characters whose escape is kept in the canonical form because decoding it could move a
# boundary: a path separator (``/``, and ``\\`` for IIS), the escape character itself, the
# start of the query or fragment, and ``;`` (the path parameter separator of Tomcat, Jetty
# and Spring). Controls and DEL stay escaped so the canonical form stays printable.
_PATH_KEEP = frozenset("/\\%?#;")
# In a query, the pair and key/value separators and ``+`` (a space in forms) keep theirs.
_QUERY_KEEP = frozenset("&=+#%;")
_ROUTER_KEEP = frozenset("/%")

# Code points WHATWG forbids in a domain; a host holding one is no host at all.
_FORBIDDEN_HOST = frozenset("\x00\t\n\r #/:<>?@[\\]^|%\x7f")
_MAX_DECODE_ROUNDS = 8


@dataclass(frozen=True)
class UrlForms:
    """The forms of one URL. ``canonical`` is None when the URL has no valid network
    host (a relative URL, an invalid host or port); it then has no server readings."""

    canonical: str | None
    server: tuple[str, ...]
    author: tuple[str, ...]

    @property
    def every(self) -> tuple[str, ...]:
        """Every form, each once: what deny-side rules are searched in."""
        return tuple(dict.fromkeys(self.server + self.author))


def canonical_url(url: str) -> str | None:
    return url_forms(url).canonical


def url_forms(url: str) -> UrlForms:
    # Long URLs (a data: URL, a query carrying a document) are not kept: a cache of them
    # would hold megabytes for a rare repeat.
    return _cached_forms(url) if len(url) <= _CACHED_URL_LENGTH else _forms(url)


_CACHED_URL_LENGTH = 4096


@functools.lru_cache(maxsize=4096)
def _cached_forms(url: str) -> UrlForms:
    return _forms(url)


def _forms(url: str) -> UrlForms:
    given = given_url(url)
    parsed = _parse(url)
    if parsed is None:
        return UrlForms(None, (), (given,))
    scheme, host, port, path, query = parsed
    origin = f"{scheme}://{host}" + ("" if port is None else f":{port}")
    canonical_query = _decode_query(query)
    canonical = origin + _resolve_dots(_decode(path, _PATH_KEEP)) + _with_q(canonical_query)
    server = [canonical] + [origin + p + _with_q(q)
                            for p, q in _server_parts(path, query, canonical_query)]
    author = [given]
    unicode_host = _unicode_host(host)
    if unicode_host != host:
        author.append(canonical.replace(origin, f"{scheme}://{unicode_host}"
                                        + ("" if port is None else f":{port}"), 1))
    if query is not None:
        # Routers dispatch on the path alone: `/submission$` denies `/submission?x=1`.
        author += [r.partition("?")[0] for r in server]
    return UrlForms(canonical, tuple(dict.fromkeys(server)), tuple(dict.fromkeys(author)))


def given_url(url: str) -> str:
    """The URL as given, with userinfo removed and scheme and host lower-cased.

    ``https://app.example.com@evil.net/`` goes to evil.net; the address before the ``@``
    must never be what a rule sees as the host.
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


# -- parsing ---------------------------------------------------------------------------


def _parse(url: str) -> tuple[str, str, int | None, str, str | None] | None:
    """Scheme, canonical host, port (None when default), raw path, raw query (None when
    absent) of an absolute URL with a special scheme, split as WHATWG does: ``\\`` ends
    the authority like ``/`` (so ``http://evil\\@good/`` goes to evil), the last ``@``
    ends the userinfo."""
    url = _TAB_OR_NEWLINE.sub("", url.strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b"
                                           "\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16"
                                           "\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "))
    m = _SCHEME.match(url)
    if m is None:
        return None
    scheme = m.group()[:-1].lower()
    if scheme not in DEFAULT_PORTS:
        return None
    rest = url[m.end():].lstrip("/\\")
    end = len(rest)
    for stop in "/\\?#":
        i = rest.find(stop)
        if i != -1:
            end = min(end, i)
    authority, rest = rest[:end], rest[end:]
    hostport = authority.rpartition("@")[2]
    if hostport.startswith("["):
        close = hostport.find("]")
        if close == -1:
            return None
        raw_host, after = hostport[: close + 1], hostport[close + 1:]
        if after and not after.startswith(":"):
            return None
        raw_port = after[1:]
    else:
        raw_host, _, raw_port = hostport.partition(":")
    host = canonical_host(raw_host)
    if host is None:
        return None
    port: int | None = None
    if raw_port:
        if not raw_port.isascii() or not raw_port.isdigit() or int(raw_port) > 65535:
            return None
        port = int(raw_port)
        if port == DEFAULT_PORTS[scheme]:
            port = None
    rest = rest.partition("#")[0]
    path, qmark, query = rest.partition("?")
    path = path.replace("\\", "/") or "/"
    return scheme, host, port, path, (query if qmark else None)


@functools.lru_cache(maxsize=1024)
def canonical_host(host: str) -> str | None:
    """A host as Chrome's URL parser leaves it, minus any trailing dot; None if invalid."""
    if host.startswith("["):
        if not host.endswith("]"):
            return None
        try:
            return f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]"
        except ValueError:
            return None
    decoded = _decode(host, frozenset())
    if not decoded or _ESCAPE.search(decoded):  # bytes that are not UTF-8
        return None
    try:
        mapped = idna.uts46_remap(decoded, std3_rules=False, transitional=False)
    except (idna.IDNAError, ValueError):
        return None
    if any(c in _FORBIDDEN_HOST for c in mapped):
        return None
    labels = mapped.split(".")
    while len(labels) > 1 and labels[-1] == "":
        labels.pop()
    if labels[-1] and _is_number(labels[-1]):
        return _ipv4(labels)
    if any(not label for label in labels):
        return None
    try:
        return ".".join(_ascii_label(label) for label in labels)
    except ValueError:
        return None


def _ascii_label(label: str) -> str:
    if label.isascii():
        return label
    try:
        return idna.alabel(label).decode("ascii")
    except idna.IDNAError:
        # Chrome is laxer than IDNA 2008 on some labels (CheckHyphens off, for one); the
        # plain punycode of the mapped label is what it then sends.
        return "xn--" + label.encode("punycode").decode("ascii")


def _unicode_host(host: str) -> str:
    if "xn--" not in host:
        return host
    out = []
    for label in host.split("."):
        try:
            out.append(idna.decode(label) if label.startswith("xn--") else label)
        except (idna.IDNAError, UnicodeError):
            out.append(label)
    return ".".join(out)


def _is_number(part: str) -> bool:
    if part[:2] in ("0x", "0X"):
        return all(c in "0123456789abcdefABCDEF" for c in part[2:])
    return part.isascii() and part.isdigit()


def _ipv4_part(part: str) -> int | None:
    if part[:2] in ("0x", "0X"):
        digits = part[2:]
        if not all(c in "0123456789abcdefABCDEF" for c in digits):
            return None
        return int(digits, 16) if digits else 0
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8) if all(c in "01234567" for c in part) else None
    return int(part) if part.isascii() and part.isdigit() else None


def _ipv4(labels: list[str]) -> str | None:
    """WHATWG's IPv4 parser: 2130706433, 0x7f.1, 127.1 and 0177.0.0.1 are 127.0.0.1."""
    if len(labels) > 4 or any(not label for label in labels):
        return None
    numbers = [_ipv4_part(label) for label in labels]
    if any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    address = values[-1]
    for i, n in enumerate(values[:-1]):
        address += n * 256 ** (3 - i)
    return str(ipaddress.IPv4Address(address))


# -- paths and queries -------------------------------------------------------------------


def _decode(text: str, keep: frozenset[str], *, controls: bool = False) -> str:
    """Decode percent-escapes (as UTF-8) except those of ``keep`` and, unless
    ``controls``, of spaces, controls and DEL. Escapes left in place are upper-cased and
    bytes that are not UTF-8 stay escaped."""
    if not controls and _UNSAFE_LITERAL.search(text):
        # A lone '%', a raw space or control is escaped, so that the canonical form is
        # its own ('%%34%31' must not come back as 'A', a trailing space must not be
        # trimmed away on the next parse).
        text = _UNSAFE_LITERAL.sub(lambda m: f"%{ord(m.group()):02X}", text)
    if "%" not in text:
        return text
    return _ESCAPE_RUN.sub(lambda m: _decode_run(m.group(), keep, controls), text)


@functools.lru_cache(maxsize=4096)
def _decode_run(run: str, keep: frozenset[str], controls: bool) -> str:
    text = bytes.fromhex(run.replace("%", "")).decode("utf-8", errors="surrogateescape")
    bad = _kept_characters(keep, controls)
    return text if bad.search(text) is None else bad.sub(_escaped, text)


@functools.lru_cache(maxsize=16)
def _kept_characters(keep: frozenset[str], controls: bool) -> re.Pattern[str]:
    """What stays escaped: bytes that are not UTF-8 (surrogate-escaped by the decoder),
    the characters of ``keep``, and unless ``controls``, spaces, controls and DEL."""
    chars = "".join(re.escape(c) for c in sorted(keep))
    return re.compile(f"[\udc80-\udcff{chars}" + ("" if controls else "\x00-\x20\x7f")
                      + "]")


def _escaped(m: re.Match[str]) -> str:
    ch = m.group()
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        return f"%{code - 0xDC00:02X}"
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8"))


def _decode_all(text: str) -> str:
    """Every escape decoded, again and again until nothing changes (double encoding)."""
    for _ in range(_MAX_DECODE_ROUNDS):
        decoded = _decode_once(text)
        if decoded == text:
            break
        text = decoded
    return text


def _decode_once(text: str) -> str:
    return _decode(text, frozenset(), controls=True)


def _decode_query(query: str | None) -> str | None:
    return None if query is None else _decode(query, _QUERY_KEEP)


def _with_q(query: str | None) -> str:
    return "" if query is None else "?" + query


def _resolve_dots(path: str) -> str:
    """RFC 3986 / WHATWG dot-segment removal (``..`` never climbs above the root)."""
    segments = path.split("/")[1:]
    out: list[str] = []
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == "..":
            if out:
                out.pop()
            if last:
                out.append("")
        elif seg == ".":
            if last:
                out.append("")
        else:
            out.append(seg)
    return "/" + "/".join(out)


def _strip_params(path: str) -> str:
    return "/".join(seg.partition(";")[0] for seg in path.split("/"))


def _merge_slashes(path: str) -> str:
    return re.sub(r"/{2,}", "/", path)


_IIS_ESCAPE = re.compile(r"%[uU]([0-9a-fA-F]{4})")
# Overlong UTF-8 forms of '.', '/' and '\' that old decoders accepted.
_OVERLONG = {"%C0%AE": ".", "%C0%AF": "/", "%C1%9C": "\\", "%E0%80%AE": ".",
             "%E0%80%AF": "/"}
_OVERLONG_RE = re.compile("|".join(re.escape(k) for k in _OVERLONG), re.IGNORECASE)


def _fold(path: str) -> str:
    """What IIS-like servers make of a path: ``%uXXXX`` escapes and overlong UTF-8
    decoded, NFKC (fullwidth to ASCII), trailing dots and spaces of segments dropped."""
    path = _IIS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), path)
    path = _OVERLONG_RE.sub(lambda m: _OVERLONG[m.group().upper()], path).replace("\\", "/")
    folded = unicodedata.normalize("NFKC", path)
    return "/".join(seg.rstrip(". ") if seg not in (".", "..") else seg
                    for seg in folded.split("/"))


_PLAIN_PATH = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,=:@/]*")


def _server_parts(path: str, query: str | None,
                  canonical_query: str | None) -> list[tuple[str, str | None]]:
    """The (path, query) pairs of the server readings other than the canonical one."""
    safe = _decode(path, _PATH_KEEP)
    decoded_query = canonical_query
    if query is not None and ("%" in query or "+" in query):
        decoded_query = _decode_all(query).replace("+", " ")
    # A router that decodes every escape but the separator's and its own and leaves dot
    # segments alone: aiohttp (yarl's path_safe).
    router = _decode(path, _ROUTER_KEEP, controls=True)
    paths = [safe, router, _resolve_dots(router)]
    # The decoded query goes with the readings of servers that decode everything; pairing
    # it with every path would multiply a long query's copies for nothing.
    decoding = [_resolve_dots(safe), router, _resolve_dots(router)]
    ambiguous = (
        _PLAIN_PATH.fullmatch(path) is None  # escapes, ;, non-ASCII...
        or "//" in path
        or "/." in path
        or any(seg.endswith((".", " ")) for seg in path.split("/"))
    )
    if ambiguous:
        # Each stage is applied or not, in the order servers apply them; equal
        # intermediate results are merged so that the work stays small.
        stages: list[Callable[[str], str]] = [
            lambda p: p.replace("\\", "/"), _strip_params, _merge_slashes]
        variants = {_decode_once(path), _decode_all(path)}
        for stage in stages:
            variants |= {stage(v) for v in variants}
        paths += sorted(variants)
        paths += sorted({_resolve_dots(v) for v in variants})
        aggressive = _resolve_dots(_merge_slashes(_fold(_strip_params(
            _decode_all(path).replace("\\", "/")))))
        paths.append(aggressive)
        decoding += [_resolve_dots(_decode_all(path)), aggressive]
    pairs = [(p, canonical_query) for p in dict.fromkeys(paths)]
    if decoded_query != canonical_query:
        pairs += [(p, decoded_query) for p in dict.fromkeys(decoding)]
    return pairs
