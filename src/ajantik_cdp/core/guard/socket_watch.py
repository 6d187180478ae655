"""What a WebSocket the rules refuse became, from the events Chrome sends the guard's own
session: stopped (a block line) or got through (an escaped line, and the guard ends it).

Chrome's emulation rule decides a handshake before it leaves, outside any page script
(``proxy/websocket_guard.py``). What it did shows on the guard's session of the target
that opened the WebSocket (measured on Chrome 156):

- stopped: ``Network.webSocketCreated``, then ``webSocketFrameError`` with
  ``net::ERR_INTERNET_DISCONNECTED`` and ``webSocketClosed``; no handshake event;
- got through: ``webSocketCreated``, ``webSocketWillSendHandshakeRequest`` (the request
  is on the wire: the site's hit log has it), ``webSocketHandshakeResponseReceived``.

So a block line is written only once Chrome's own refusal is seen, never on
``webSocketCreated`` alone; a handshake request for a refused URL is an escape, told once
per WebSocket, whatever comes after it. A WebSocket that fails on its own before any
handshake (the site is down) was not stopped by the guard and writes nothing. The page's
own check (a refusal in the constructor) never reaches Chrome, and is reported apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

# Chrome's error for a handshake its emulation rule took offline.
OFFLINE_ERROR = "ERR_INTERNET_DISCONNECTED"
# WebSockets followed at once per guard; the oldest is forgotten past this (a page that
# opens sockets without end must not grow the guard's memory).
KEPT = 4096


class SocketFate(Enum):
    BLOCKED = "blocked"
    ESCAPED = "escaped"


@dataclass(frozen=True)
class SocketNews:
    """One WebSocket's outcome, told once."""

    outcome: SocketFate
    session_id: str
    request_id: str
    url: str
    stage: str = ""  # ESCAPED: "handshake sent" or "opened"


@dataclass
class _Open:
    url: str
    refused: bool  # the rules refuse its URL (decided by the canonical matcher)
    told: bool = False


class SocketWatch:
    """Follows each WebSocket by (session, request id) from its creation."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str], _Open] = {}

    def __len__(self) -> int:
        return len(self._open)

    def created(self, session_id: str, request_id: str, url: str, refused: bool) -> None:
        self._open[(session_id, request_id)] = _Open(url, refused)
        if len(self._open) > KEPT:
            del self._open[next(iter(self._open))]

    def knows(self, session_id: str, request_id: str) -> bool:
        return (session_id, request_id) in self._open

    def escaped(self, session_id: str, request_id: str) -> bool:
        """Already told as got through (a later event of it asks the guard to end it
        again, not to write another line)."""
        sock = self._open.get((session_id, request_id))
        return sock is not None and sock.refused and sock.told

    def handshake(self, session_id: str, request_id: str, opened: bool) -> SocketNews | None:
        """``webSocketWillSendHandshakeRequest`` (opened False) or
        ``webSocketHandshakeResponseReceived`` (True)."""
        sock = self._open.get((session_id, request_id))
        if sock is None or not sock.refused or sock.told:
            return None
        sock.told = True
        return SocketNews(SocketFate.ESCAPED, session_id, request_id, sock.url,
                          "opened" if opened else "handshake sent")

    def failed(self, session_id: str, request_id: str, error: str) -> SocketNews | None:
        """``webSocketFrameError``: a refusal by Chrome's rule is a block, once, and only
        before any handshake was seen."""
        sock = self._open.get((session_id, request_id))
        if sock is None or not sock.refused or sock.told or OFFLINE_ERROR not in error:
            return None
        sock.told = True
        return SocketNews(SocketFate.BLOCKED, session_id, request_id, sock.url)

    def closed(self, session_id: str, request_id: str) -> None:
        self._open.pop((session_id, request_id), None)

    def session_gone(self, session_id: str) -> None:
        for key in [k for k in self._open if k[0] == session_id]:
            del self._open[key]


@dataclass(frozen=True)
class CloseStep:
    """A command that ends an escaped WebSocket with its whole target: ``session_id``
    None is the browser session."""

    method: str
    params: dict[str, str]
    session_id: str | None
    says: str  # for the record's ``closed`` field


DOCUMENTS = frozenset({"page", "iframe", "webview"})
OWN_TARGET_WORKERS = frozenset({"shared_worker", "service_worker"})


def close_step(target_type: str, target_id: str, session_id: str,
               owners: list[tuple[str, str, str]]) -> CloseStep | None:
    """How to end a WebSocket that got through, by Chrome's machinery (no page script
    can refuse it): measured on Chrome 156, neither a new offline rule for its URL nor
    ``Network.emulateNetworkConditions`` offline closes a WebSocket already open, while
    ``Page.crash`` on a document's session and ``Target.closeTarget`` on a shared or
    service worker closed it at the site within a second. A dedicated worker cannot be
    closed as a target ("doesn't support closing"): the document it runs under is
    crashed. ``owners``: (type, session, target id) of the sessions it was attached through, nearest
    first, with their target ids. None: nothing to do it with (the record says so)."""
    if target_type in DOCUMENTS:
        return CloseStep("Page.crash", {}, session_id, "its renderer crashed by the guard")
    if target_type in OWN_TARGET_WORKERS:
        return CloseStep("Target.closeTarget", {"targetId": target_id}, None,
                         f"its {target_type} closed by the guard")
    for owner_type, owner_session, owner_id in owners:
        if owner_type in DOCUMENTS:
            return CloseStep("Page.crash", {}, owner_session,
                             f"the renderer of the {owner_type} that runs it crashed by "
                             "the guard")
        if owner_type in OWN_TARGET_WORKERS:
            return CloseStep("Target.closeTarget", {"targetId": owner_id}, None,
                             f"the {owner_type} that started it closed by the guard")
    return None


def answered_url(response: object) -> str | None:
    """The URL of a WebSocket from its handshake answer (``webSocketHandshakeResponse
    Received``'s ``response``): Chrome puts the request line there, ``GET ws://host/path
    HTTP/1.1`` (measured on Chrome 156). For a WebSocket created before the guard's
    session heard of it (a target attached already running), this is the only place its
    URL shows."""
    if not isinstance(response, dict):
        return None
    text = response.get("requestHeadersText")
    if not isinstance(text, str):
        return None
    parts = text.split("\r\n", 1)[0].split(" ")
    if len(parts) != 3 or parts[0] != "GET" or not parts[2].startswith("HTTP/"):
        return None
    url = parts[1]
    return url if url.lower().startswith(("ws://", "wss://")) else None
