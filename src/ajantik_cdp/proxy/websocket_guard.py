"""WebSockets to denied URLs: Chrome's emulation rule on every session, a main-world check.

The Fetch domain never sees a WebSocket handshake, so the guard cannot decide one when it
happens. ``core/socket_rules.py`` turns the rules into URL patterns ahead of time; this
module puts them in place on a target's session, as part of the guard's install:

- ``Network.emulateNetworkConditionsByRule`` with offline entries, on every target that
  can open a WebSocket (measured on Chrome 156: it stops the handshake before it leaves,
  for the session it is sent on only, so pages, frames and every kind of worker each get
  it; ``Network.enable`` first);
- for documents, the same patterns in a main-world script run before the page's own
  (measured: the emulation rule missed a WebSocket opened while the first document after
  a cross-process navigation was parsed in up to 4 of 6 navigations; the script stops it).

It also watches ``Network.webSocketCreated`` on those sessions and writes a block line
for each WebSocket the patterns refuse, so the record shows what was stopped.
"""

from __future__ import annotations

import asyncio
from importlib import resources
from typing import TYPE_CHECKING, Any

import orjson

from ajantik_cdp.core.socket_rules import SocketPlan
from ajantik_cdp.core.targets import DOCUMENT_TYPES, Target
from ajantik_cdp.proxy.cdp_connection import CdpConnection

if TYPE_CHECKING:
    from ajantik_cdp.proxy.reports import Reports

# Every target kind with a network of its own that can open a WebSocket.
SOCKET_TYPES = DOCUMENT_TYPES | {"worker", "shared_worker", "service_worker"}


class WebSocketGuard:
    def __init__(self, plan: SocketPlan, reports: Reports) -> None:
        self.plan = plan
        self.reports = reports
        self.source = ""
        if plan.patterns:
            here = resources.files("ajantik_cdp.proxy")
            self.source = here.joinpath("websocket_guard.js").read_text(encoding="utf-8") \
                .replace("__AJANTIK_SOCKET_PATTERNS__",
                         orjson.dumps(plan.url_patterns).decode())

    def install_steps(self, conn: CdpConnection, session_id: str,
                      target_type: str) -> list[tuple[str, asyncio.Future[Any]]]:
        """Queued at once, in order; renderer-side, so answered only once the target runs."""
        if not self.plan.patterns or target_type not in SOCKET_TYPES:
            return []
        steps = [
            ("Network.enable", conn.start("Network.enable", None, session_id)),
            ("Network.emulateNetworkConditionsByRule", conn.start(
                "Network.emulateNetworkConditionsByRule",
                {"matchedNetworkConditions": self.plan.conditions()}, session_id)),
        ]
        if target_type in DOCUMENT_TYPES:
            steps += [
                ("Page.enable", conn.start("Page.enable", None, session_id)),
                ("Page.addScriptToEvaluateOnNewDocument", conn.start(
                    "Page.addScriptToEvaluateOnNewDocument",
                    {"source": self.source, "runImmediately": True}, session_id)),
            ]
        return steps

    def on_created(self, target: Target, params: dict[str, Any]) -> None:
        """``Network.webSocketCreated``: record a WebSocket the patterns refuse."""
        url = str(params.get("url", ""))
        pattern = self.plan.refuses(url)
        if pattern is not None:
            self.reports.socket_block(target, url, pattern.reason, pattern.why)
