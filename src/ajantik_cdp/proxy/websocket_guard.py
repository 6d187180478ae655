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
import logging
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import orjson

from ajantik_cdp.core.socket_rules import SocketPlan
from ajantik_cdp.core.targets import DOCUMENT_TYPES, Target
from ajantik_cdp.proxy.cdp_connection import CdpConnection

if TYPE_CHECKING:
    from ajantik_cdp.proxy.reports import Reports

log = logging.getLogger("ajantik.cdp")
Step = tuple[str, asyncio.Future[Any]]

BINDING = "__ajantikSocketRefused"

# Every target kind with a network of its own that can open a WebSocket.
SOCKET_TYPES = DOCUMENT_TYPES | {"worker", "shared_worker", "service_worker"}
# Measured on Chrome 156 with a site's service worker: unlike a dedicated worker, it does
# not answer Network.enable while it waits for the debugger, so awaiting the rule before
# its release left it paused until the install timed out (and the page it would control
# waiting with it). Its rule is queued before the release and awaited after it.
AFTER_RELEASE_WORKERS = frozenset({"service_worker"})

# The guard's own Network domain reads no bodies, so Chrome keeps none for it (a buffer
# per page otherwise). Sent once per session, by the WebSocket rules or by the
# service-worker bypass, whichever needs it first.
NETWORK_ENABLE = {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0}


class WebSocketGuard:
    def __init__(self, plan: SocketPlan, reports: Reports) -> None:
        self.plan = plan
        self.reports = reports
        self.source = ""
        if plan.refuse_all:
            log.warning("every WebSocket of guarded targets is refused: %s", plan.refuse_all)
        if plan.patterns:
            here = resources.files("ajantik_cdp.proxy")
            self.source = here.joinpath("websocket_guard.js").read_text(encoding="utf-8") \
                .replace("__AJANTIK_SOCKET_PATTERNS__",
                         orjson.dumps(plan.url_patterns).decode()) \
                .replace("__AJANTIK_SOCKET_BINDING__", orjson.dumps(BINDING).decode())

    def install_steps(self, conn: CdpConnection, session_id: str, target_type: str,
                      ) -> tuple[list[Step], list[Step]]:
        """(steps to have answered before the release, steps answered only after it),
        queued at once, in order.

        Measured on Chrome 156: the emulation rule takes effect only when sent after
        ``Network.enable`` has answered (sent together, both answered, a dedicated worker's
        WebSocket still reached the site), so it is sent from that answer. A worker answers
        ``Network.enable`` while it waits for the debugger, so its rule is in place before
        it runs; a document answers it only once released (a popup in a new process), so
        until then the main-world check stands alone.
        """
        if not self.plan.patterns or target_type not in SOCKET_TYPES:
            return [], []
        enabled = conn.start("Network.enable", NETWORK_ENABLE, session_id)
        rule = _then(enabled, lambda: conn.start(
            "Network.emulateNetworkConditionsByRule",
            {"matchedNetworkConditions": self.plan.conditions()}, session_id))
        network: list[Step] = [("Network.enable", enabled),
                               ("Network.emulateNetworkConditionsByRule", rule)]
        if target_type in AFTER_RELEASE_WORKERS:
            return [], network
        if target_type not in DOCUMENT_TYPES:
            return network, []
        # Measured on Chrome 156: without Runtime.enable a main-world binding is gone in
        # the next document.
        script = [
            ("Runtime.enable", conn.start("Runtime.enable", None, session_id)),
            ("Page.enable", conn.start("Page.enable", None, session_id)),
            ("Runtime.addBinding", conn.start("Runtime.addBinding", {"name": BINDING},
                                              session_id)),
            ("Page.addScriptToEvaluateOnNewDocument", conn.start(
                "Page.addScriptToEvaluateOnNewDocument",
                {"source": self.source, "runImmediately": True}, session_id)),
        ]
        return [], network + script

    def on_binding(self, target: Target, params: dict[str, Any]) -> bool:
        """The main-world check refused a WebSocket; False if the call was not for it."""
        if params.get("name") != BINDING:
            return False
        self._refused(target, str(params.get("payload", "")), target.url)
        return True

    def on_created(self, target: Target, params: dict[str, Any]) -> None:
        """``Network.webSocketCreated``: record a WebSocket the patterns refuse."""
        self._refused(target, str(params.get("url", "")), target.url)

    def _refused(self, target: Target, raw: str, base: str) -> None:
        url = _socket_url(raw, base)
        pattern = self.plan.refuses(url)
        if pattern is not None:
            self.reports.socket_block(target, url, pattern.reason, pattern.why)


def _then(first: asyncio.Future[Any],
          second: Callable[[], asyncio.Future[Any]]) -> asyncio.Future[Any]:
    """A future for ``second()``, started once ``first`` has answered (failing with it)."""
    out: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    out.add_done_callback(lambda f: f.cancelled() or f.exception())

    def relay(done: asyncio.Future[Any]) -> None:
        if out.done():
            return
        if done.cancelled():
            out.cancel()
        elif done.exception() is not None:
            out.set_exception(done.exception())  # type: ignore[arg-type]
        else:
            out.set_result(done.result())

    def started(done: asyncio.Future[Any]) -> None:
        if done.cancelled() or done.exception() is not None:
            relay(done)
        else:
            second().add_done_callback(relay)

    first.add_done_callback(started)
    return out


def _socket_url(raw: str, base: str) -> str:
    """The ws(s) URL a WebSocket constructor makes of what it was given."""
    url = urljoin(base, raw) if base.startswith("http") else raw
    scheme, sep, rest = url.partition("://")
    return {"http": "ws", "https": "wss"}.get(scheme.lower(), scheme.lower()) + sep + rest
