"""Which WebSocket handshakes the guard refuses, as URL patterns Chrome applies itself.

Chrome's Fetch domain never sees a WebSocket handshake (measured on Chrome 156: Fetch
refuses a ``WebSocket`` resource type in its patterns, and a ``*`` pattern never pauses
one, on a page or on the browser session; ``Network.setBlockedURLs`` lets it through too,
in its ``urls`` and in its ``urlPatterns`` form, from a page and a dedicated worker).
What stops one is ``Network.emulateNetworkConditionsByRule`` with offline entries, on the
session of every target that can open one; Chrome matches them, first entry wins, with
URLPattern syntax before the handshake leaves. So this decision is made ahead of time,
from the rules, not per request.

A WebSocket carries writes the guard cannot see (its frames), so it is decided as a write
to its URL and to that URL's http(s) form (the handshake is an HTTP GET there, and a rule
written as ``^https://portal\\.example/`` means the same server): denied if a deny rule
matches either, and, under ``allow_writes``, refused unless an entry admits it.

Rules are regular expressions searched in every form of a URL (``canonical_url``), which
URLPattern cannot express. Each side errs on its own safe side:

- A deny rule becomes patterns that match *at least* what it matches: a literal piece
  every match of the regex must contain (a "required" piece, no URL delimiter in it),
  searched case-insensitively in the host, the port, the path and the query. Any
  percent-escape in a path or query is refused too, because a rule is searched in the
  decoded forms and URLPattern sees only the escaped one. A rule with no such piece
  (``.*``, a character class alone, an alternative without literal) cannot be narrowed:
  every WebSocket of guarded targets is then refused (fail closed).
- An ``allow_writes`` entry admits WebSockets only when it is exactly a scheme, host,
  optional port and optional literal path prefix (``^https://app\\.example\\.com/``,
  optionally followed by ``.*``); after the entries, every other WebSocket is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from re import _constants as sre_c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any
from urllib.parse import urlsplit

from ajantik_cdp.core.policy.canonical_url import DEFAULT_PORTS, url_forms
from ajantik_cdp.core.policy.config import GuardConfig, UrlRule

# Characters a required piece may hold: those Chrome's URL parser leaves as they are in a
# host, path and query, and that need no escaping in URLPattern or JavaScript regex
# syntax (``.`` is written as ``[.]``). Others split a literal run into pieces.
_PIECE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~-")
_SCHEMES = ("ws", "wss", "http", "https")
HTTP_OF = {"ws": "http", "wss": "https"}
# Alternatives expanded from a regex before giving up (fail closed).
MAX_ALTERNATIVES = 64
# Letters of a piece spelled in every letter case for Chrome's rule: at most 2**4
# spellings, each for the path and the query (33 entries a piece with its host entry).
# Six letters (129 entries) left a restarted service worker that never ran again
# (tests/guard/test_connections.py::
# test_a_service_worker_websocket_at_its_first_instruction_is_stopped, 2 of 2 failed).
CASE_LETTERS = 4


class Part(Enum):
    ALL = "all"  # every WebSocket
    HOSTNAME = "hostname"
    PORT = "port"
    PATHNAME = "pathname"
    SEARCH = "search"
    ESCAPE_PATH = "escape-path"  # a percent-escape in the path
    ESCAPE_SEARCH = "escape-search"
    PREFIX = "prefix"  # allow_writes: scheme, host, port and a path prefix


@dataclass(frozen=True)
class SocketPattern:
    """One entry of the emulation rule: a URLPattern string Chrome matches, and the same
    test in Python (for the record and the property tests)."""

    part: Part
    offline: bool
    needle: str = ""  # the required piece (lower case) or the path prefix
    schemes: tuple[str, ...] = ("ws", "wss")
    host: str = ""
    port: str = ""
    why: str = ""  # the rule it stands for
    reason: str = "deny"  # for the record: "deny" or "allow_writes"

    @property
    def url_pattern(self) -> str:
        """For Chrome's emulation rule. Measured on Chrome 156: it ignores a pattern with
        a regular-expression group (``(.*x.*)``: the WebSocket got through), so a piece is
        a plain wildcard match there, in the letter case given (``needle`` as emitted)."""
        return self._pattern(f"*{self.needle}*")

    @property
    def page_pattern(self) -> str:
        """For the guard's own check in documents and workers (JavaScript's URLPattern
        takes groups): the piece in any letter case, as the rules match it."""
        return self._pattern(f"(.*{_insensitive(self.needle)}.*)")

    def _pattern(self, piece: str) -> str:
        proto = "ws{s}?" if set(self.schemes) == {"ws", "wss"} else self.schemes[0]
        if self.part is Part.ALL:
            return f"{proto}://*:*/*"
        if self.part is Part.HOSTNAME:
            return f"{proto}://{piece}:*/*"
        if self.part is Part.PORT:
            return f"{proto}://*:{piece}/*"
        if self.part is Part.PATHNAME:
            return f"{proto}://*:*/{piece}"
        if self.part is Part.SEARCH:
            return f"{proto}://*:*/*\\?{piece}"
        if self.part is Part.ESCAPE_PATH:
            return f"{proto}://*:*/*%*"
        if self.part is Part.ESCAPE_SEARCH:
            return f"{proto}://*:*/*\\?*%*"
        port = f":{self.port}" if self.port else ""
        return f"{proto}://{self.host}{port}{self.needle}*"

    def matches(self, url: str, exact: bool = False) -> bool:
        """Whether the check's pattern matches ``url`` (a URL as Chrome spells it: host
        lower case, default port dropped, dot segments resolved); ``exact``: the
        emulation rule's pattern, whose piece keeps its letter case."""
        parts = urlsplit(url)
        if parts.scheme not in self.schemes:
            return False
        path = parts.path or "/"
        query = parts.query
        port = "" if parts.port is None or parts.port == DEFAULT_PORTS.get(parts.scheme) \
            else str(parts.port)
        needle = self.needle.lower()
        if exact and self.part in (Part.PATHNAME, Part.SEARCH):
            return self.needle in (path if self.part is Part.PATHNAME else query)
        if self.part is Part.ALL:
            return True
        if self.part is Part.HOSTNAME:
            return needle in (parts.hostname or "")
        if self.part is Part.PORT:
            return needle in port
        if self.part is Part.PATHNAME:
            return needle in path.lower()
        if self.part is Part.SEARCH:
            return needle in query.lower()
        if self.part is Part.ESCAPE_PATH:
            return "%" in path
        if self.part is Part.ESCAPE_SEARCH:
            return "%" in query
        return (parts.hostname == self.host and port == self.port
                and path.startswith(self.needle))

    def condition(self) -> dict[str, object]:
        """The entry for ``Network.emulateNetworkConditionsByRule``: no throttling, only
        the offline flag."""
        return {"urlPattern": self.url_pattern, "offline": self.offline, "latency": 0,
                "downloadThroughput": -1, "uploadThroughput": -1}


@dataclass(frozen=True)
class SocketPlan:
    patterns: tuple[SocketPattern, ...]
    # Why every WebSocket is refused, when it is (for the guard's start-up log).
    refuse_all: str | None = None

    def refuses(self, url: str, exact: bool = False) -> SocketPattern | None:
        """The entry that takes ``url`` offline, or None (first entry wins, as in Chrome);
        ``exact``: as Chrome's emulation rule matches (letter case kept)."""
        for pattern in self.patterns:
            if pattern.matches(url, exact):
                return pattern if pattern.offline else None
        return None

    def conditions(self) -> list[dict[str, object]]:
        return [p.condition() for p in self.patterns]

    @property
    def url_patterns(self) -> list[tuple[str, bool]]:
        """(URLPattern string, offline) for the guard's own check."""
        seen: dict[tuple[str, bool], None] = {}
        for p in self.patterns:
            seen[(p.page_pattern, p.offline)] = None
        return list(seen)


def socket_plan(config: GuardConfig) -> SocketPlan:
    deny: list[SocketPattern] = []
    for rule in config.deny:
        pieces = required_pieces(rule)
        if pieces is None:
            return _refuse_all(f"{rule.label} has no literal part a URL pattern can hold")
        for piece in pieces:
            deny.extend(_piece_patterns(piece, rule.label))
    if deny:
        deny.append(SocketPattern(Part.ESCAPE_PATH, True, why="escapes (deny rules)"))
        deny.append(SocketPattern(Part.ESCAPE_SEARCH, True, why="escapes (deny rules)"))
    if config.allow_writes is None:
        return SocketPlan(tuple(deny))
    allow = [p for rule in config.allow_writes for p in _allow_patterns(rule)]
    if allow and not deny:
        # The allow entries below are prefixes; escapes could hide a path outside them.
        deny += [SocketPattern(part, True, why="escapes (allow_writes)", reason="allow_writes")
                 for part in (Part.ESCAPE_PATH, Part.ESCAPE_SEARCH)]
    last = SocketPattern(Part.ALL, True, why="allow_writes admits no other WebSocket",
                         reason="allow_writes")
    return SocketPlan((*deny, *allow, last))


def _refuse_all(reason: str) -> SocketPlan:
    return SocketPlan((SocketPattern(Part.ALL, True, why=reason),), refuse_all=reason)


def _piece_patterns(piece: str, why: str) -> list[SocketPattern]:
    low = piece.lower()
    if any(low in scheme for scheme in _SCHEMES):
        return [SocketPattern(Part.ALL, True, why=why)]  # every URL spells it in its scheme
    out = [SocketPattern(Part.HOSTNAME, True, low, why=why)]  # Chrome lower-cases hosts
    if piece.isdigit():
        out.append(SocketPattern(Part.PORT, True, low, why=why))
    # Chrome's emulation rule matches a path or query in the letter case it is given and
    # ignores regular-expression groups, and the rules ignore case: so it is given every
    # letter case of the piece, or of a part of it (a URL holding the piece holds every
    # part of it) when the piece has more letters than CASE_LETTERS. Nothing in a page
    # or a client's command reaches this rule; the guard's own check in the page, which
    # they can reach, is only an early warning.
    for casing in _casings(_case_window(piece)):
        out += [SocketPattern(Part.PATHNAME, True, casing, why=why),
                SocketPattern(Part.SEARCH, True, casing, why=why)]
    return out


def _case_window(piece: str) -> str:
    """The longest part of ``piece`` with at most CASE_LETTERS letters (the first such)."""
    best, start, letters = "", 0, 0
    for end, ch in enumerate(piece):
        letters += ch.isalpha()
        while letters > CASE_LETTERS:
            letters -= piece[start].isalpha()
            start += 1
        if end + 1 - start > len(best):
            best = piece[start:end + 1]
    return best


def _casings(text: str) -> list[str]:
    """Every spelling of ``text`` in upper and lower case letters, ``text`` first."""
    out = [""]
    for ch in text:
        forms = dict.fromkeys((ch, ch.lower(), ch.upper())) if ch.isalpha() else (ch,)
        out = [o + f for o in out for f in forms]
    return out


def _insensitive(text: str) -> str:
    out = []
    for ch in text:
        if ch.isalpha():
            out.append(f"[{ch.lower()}{ch.upper()}]")
        elif ch == ".":
            out.append("[.]")
        else:
            out.append(ch)
    return "".join(out)


# -- regex analysis -----------------------------------------------------------------------

_GAP = None  # anything that is not a known literal character


def required_pieces(rule: UrlRule) -> list[str] | None:
    """One piece per alternative of the rule's regex, such that every string the regex
    matches (searched) contains at least one of them; None when some alternative has
    none."""
    try:
        tree = sre_parse.parse(rule.pattern, rule.regex.flags)
    except (re.error, RecursionError):
        return None
    alternatives = _expand(list(tree))
    if alternatives is None:
        return None
    pieces: list[str] = []
    for atoms in alternatives:
        best = max(_pieces(atoms), key=len, default="")
        if not best:
            return None
        if best not in pieces:
            pieces.append(best)
    return pieces


def _pieces(atoms: list[str | None]) -> list[str]:
    out, run = [], []
    for atom in [*atoms, _GAP]:
        if atom is not None and atom in _PIECE_CHARS:
            run.append(atom)
        elif run:
            out.append("".join(run))
            run = []
    return out


def _expand(items: list[tuple[Any, Any]]) -> list[list[str | None]] | None:
    """The alternatives of a parsed sequence, each as a list of characters and gaps."""
    alternatives: list[list[str | None]] = [[]]
    for op, arg in items:
        options: list[list[str | None]] | None
        if op is sre_c.LITERAL:
            options = [[chr(arg)]]
        elif op is sre_c.SUBPATTERN:
            options = _expand(list(arg[-1]))
        elif op is sre_c.BRANCH:
            options = []
            for branch in arg[1]:
                sub = _expand(list(branch))
                if sub is None:
                    return None
                options.extend(sub)
        elif op is sre_c.MAX_REPEAT or op is sre_c.MIN_REPEAT or \
                op is sre_c.POSSESSIVE_REPEAT:
            low, _high, body = arg
            sub = _expand(list(body)) if low >= 1 else None
            # One copy of the body is required; what repeats after it is a gap.
            options = [[*s, _GAP] for s in sub] if sub is not None else [[_GAP]]
        elif op is sre_c.AT or op is sre_c.ASSERT or op is sre_c.ASSERT_NOT:
            options = [[_GAP]]  # zero width: it joins nothing
        else:
            options = [[_GAP]]  # ANY, IN, CATEGORY, NOT_LITERAL, GROUPREF...
        if options is None or not options:
            return None
        alternatives = [a + o for a in alternatives for o in options]
        if len(alternatives) > MAX_ALTERNATIVES:
            return None
    return alternatives


# -- allow_writes -------------------------------------------------------------------------

_EXACT_ALLOW = re.compile(
    r"\^(?P<scheme>https?|wss?|https\?|wss\?)(?::|\\:)//"
    r"(?P<host>(?:[a-z0-9\-]|\\\.)+)(?::(?P<port>[0-9]+))?"
    r"(?P<path>/(?:[A-Za-z0-9_~\-/]|\\[./\-])*)?(?:\.\*)?")


_ALLOW_SCHEMES = {"http": ("ws",), "https": ("wss",), "https?": ("ws", "wss"),
                  "ws": ("ws",), "wss": ("wss",), "wss?": ("ws", "wss")}


def _allow_patterns(rule: UrlRule) -> list[SocketPattern]:
    m = _EXACT_ALLOW.fullmatch(rule.pattern)
    if m is None:
        return []  # not exactly a prefix: it admits no WebSocket (fail closed)
    schemes = _ALLOW_SCHEMES[m.group("scheme")]
    port = m.group("port") or ""
    if port and int(port) in (DEFAULT_PORTS[s] for s in schemes):
        return []  # the canonical forms drop a default port, so the entry admits nothing
    path = (m.group("path") or "/").replace("\\", "")
    return [SocketPattern(Part.PREFIX, False, path, schemes, m.group("host").replace("\\.", "."),
                          port, why=rule.label)]


# -- the rules' own answer (what the patterns must never be more permissive than) ----------

def http_form(ws_url: str) -> str:
    scheme, sep, rest = ws_url.partition("://")
    return f"{HTTP_OF.get(scheme.lower(), scheme)}{sep}{rest}"


def rules_refuse(config: GuardConfig, ws_url: str) -> bool:
    """Whether the rules refuse a WebSocket to ``ws_url``, decided as a write."""
    forms = [url_forms(ws_url), url_forms(http_form(ws_url))]
    for rule in config.deny:
        if any(rule.search(f) for forms_ in forms for f in forms_.every):
            return True
    if config.allow_writes is None:
        return False
    for forms_ in forms:
        readings = forms_.server or forms_.author[:1]
        if all(any(r.search(reading) for r in config.allow_writes) for reading in readings):
            return False
    return True
