"""Browsers that run elsewhere, by their DevTools endpoint, and how their addresses are
kept out of everything written.

An endpoint of a Chrome farm or a hosted browser carries what lets anyone drive that
browser (a token in the query, a password, a path only its owner knows), so it is a
credential: results, logs, reports and error messages name a browser by its label
("browser 2"), never by its address. Playwright's connect errors quote the URL they were
given, in several shapes (with and without the query, as host:port), so every shape is
scrubbed, not only the URL as typed. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

SCHEMES = ("http", "https", "ws", "wss")
MIN_SECRET = 4  # shorter query values ("1", "on") are not worth a false match
LONG_SEGMENT = 12  # a path segment this long, or with a digit, is taken for a secret


class EndpointError(ValueError):
    """A browser endpoint that is not a URL this can connect to (the message names it
    by its label only)."""


@dataclass(frozen=True)
class RemoteBrowser:
    url: str = field(repr=False)
    label: str

    def __repr__(self) -> str:  # never in a traceback or a log line
        return f"RemoteBrowser({self.label!r})"

    @property
    def guardable(self) -> bool:
        """Whether a guard can sit in front of it: the guard reaches a browser by its
        DevTools HTTP address alone (http://host:port), so an endpoint that needs a path,
        a query or a password to be reached cannot carry fault variants."""
        parts = urlsplit(self.url)
        return (parts.scheme in ("http", "https") and parts.path in ("", "/")
                and not parts.query and parts.password is None and parts.username is None)


def remote_browsers(urls: Iterable[str]) -> list[RemoteBrowser]:
    """Endpoints as given (``--browser``, the suite's ``browsers``), labelled in order."""
    out: list[RemoteBrowser] = []
    for i, raw in enumerate(urls, start=1):
        label = f"browser {i}"
        url = raw.strip()
        parts = urlsplit(url)
        if parts.scheme not in SCHEMES or not parts.hostname:
            raise EndpointError(f"{label} is not a DevTools endpoint: give "
                                "http://host:port or a ws:// or wss:// URL")
        try:
            parts.port  # noqa: B018 - raises for a port that is not a number
        except ValueError:
            raise EndpointError(f"{label} has a port that is not a number") from None
        out.append(RemoteBrowser(url, label))
    return out


def _shapes(url: str) -> dict[str, bool]:
    """The pieces of ``url`` that a message may quote, each with whether it must be
    matched as a whole address only. A secret piece (a token, a password, a path, any
    shape that holds one) is replaced wherever it appears, even inside a longer word;
    a bare address (host:port) only where it ends, so that 127.0.0.1:1 is not found in
    127.0.0.1:12 or in the shop's own address."""
    parts = urlsplit(url)
    secrets: set[str] = set()
    if parts.password:
        secrets |= {parts.password, f"{parts.username or ''}:{parts.password}"}
    if len(parts.path.strip("/")) >= MIN_SECRET:
        secrets |= {parts.path, parts.path.rstrip("/")}
        # A segment alone (a browser's id, a key in the path), unless it is a word any
        # message may hold ("devtools", "browser").
        secrets |= {seg for seg in parts.path.split("/") if len(seg) >= MIN_SECRET
                    and (any(c.isdigit() for c in seg) or len(seg) >= LONG_SEGMENT)}
    if parts.query:
        secrets.add(parts.query)
        secrets |= {v for _, v in parse_qsl(parts.query, keep_blank_values=True)
                    if len(v) >= MIN_SECRET}
    whole = {url, url.rstrip("/"), url.split("#")[0], url.split("?")[0].split("#")[0]}
    whole |= {w.split("://", 1)[1] for w in list(whole) if "://" in w}
    whole |= {w.rstrip("/") for w in list(whole)}
    host_port = parts.netloc.rsplit("@", 1)[-1]
    whole |= {parts.netloc, host_port}
    shapes = {s: False for s in secrets if s}
    for shape in whole:
        if shape and shape not in shapes:
            shapes[shape] = not any(secret in shape for secret in secrets)
    return shapes


def _piece_pattern(piece: str, bounded: bool) -> str:
    if not bounded:
        return re.escape(piece)
    before = "(?<![\\w.-])" if piece[:1].isalnum() else ""
    after = "(?![\\w-])" if piece[-1:].isalnum() else ""
    return before + re.escape(piece) + after


class EndpointScrubber:
    """Replaces every shape of every endpoint in a text by ``<label>``."""

    def __init__(self, browsers: Iterable[RemoteBrowser] = ()) -> None:
        self.browsers = tuple(browsers)
        pieces: dict[str, tuple[str, bool]] = {}
        for b in self.browsers:
            for shape, bounded in _shapes(b.url).items():
                pieces.setdefault(shape, (b.label, bounded))
        # Longest first: a URL is replaced whole before its host:port would be.
        ordered = sorted(pieces, key=len, reverse=True)
        self._labels = {shape: label for shape, (label, _) in pieces.items()}
        self._pattern = (re.compile("|".join(_piece_pattern(s, pieces[s][1])
                                             for s in ordered)) if ordered else None)

    def __bool__(self) -> bool:
        return bool(self.browsers)

    def scrub(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(lambda m: f"<{self._labels[m.group(0)]}>", text)

    def scrub_data(self, value: object) -> object:
        """Every string in plain JSON-like data, scrubbed."""
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, list | tuple):
            return type(value)(self.scrub_data(v) for v in value)
        if isinstance(value, dict):
            return {k: self.scrub_data(v) for k, v in value.items()}
        return value
