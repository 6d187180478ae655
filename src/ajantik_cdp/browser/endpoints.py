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


def _shapes(url: str) -> set[str]:
    """The pieces of ``url`` that a message may quote and that identify the browser."""
    parts = urlsplit(url)
    shapes = {url, url.rstrip("/"), url.split("#")[0]}
    no_query = url.split("?")[0].split("#")[0]
    shapes |= {no_query, no_query.rstrip("/")}
    if parts.netloc:
        shapes.add(parts.netloc)
        host_port = parts.netloc.rsplit("@", 1)[-1]
        if parts.port is not None:
            shapes.add(host_port)
    if "://" in url:
        shapes.add(url.split("://", 1)[1])
    if parts.password:
        shapes.add(parts.password)
    if parts.username and parts.password:
        shapes.add(parts.username + ":" + parts.password)
    if len(parts.path.strip("/")) >= MIN_SECRET:
        shapes |= {parts.path, parts.path.rstrip("/")}
    if parts.query:
        shapes.add(parts.query)
        shapes |= {v for _, v in parse_qsl(parts.query, keep_blank_values=True)
                   if len(v) >= MIN_SECRET}
    return {s for s in shapes if s}


def _piece_pattern(piece: str) -> str:
    # A host:port must not match inside a longer port or name ("127.0.0.1:1" in
    # "127.0.0.1:12"), so a piece that starts or ends with a word character is matched
    # only where the word ends there too.
    before = "(?<![\\w.-])" if piece[:1].isalnum() else ""
    after = "(?![\\w-])" if piece[-1:].isalnum() else ""
    return before + re.escape(piece) + after


class EndpointScrubber:
    """Replaces every shape of every endpoint in a text by ``<label>``."""

    def __init__(self, browsers: Iterable[RemoteBrowser] = ()) -> None:
        self.browsers = tuple(browsers)
        pieces: dict[str, str] = {}
        for b in self.browsers:
            for shape in _shapes(b.url):
                pieces.setdefault(shape, b.label)
        # Longest first: a URL is replaced whole before its host:port would be.
        ordered = sorted(pieces, key=len, reverse=True)
        self._labels = pieces
        self._pattern = (re.compile("|".join(_piece_pattern(s) for s in ordered))
                         if ordered else None)

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
