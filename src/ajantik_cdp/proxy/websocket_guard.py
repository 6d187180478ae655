"""WebSockets to denied URLs: Chrome's emulation rule on every session, a main-world check.

The Fetch domain never sees a WebSocket handshake, so the guard cannot decide one when it
happens. ``core/policy/socket_rules.py`` turns the rules into URL patterns ahead of time; this
module puts them in place on a target's session, as part of the guard's install:

- ``Network.emulateNetworkConditionsByRule`` with offline entries, on every target that
  can open a WebSocket (measured on Chrome 156: it stops the handshake before it leaves,
  for the session it is sent on only, so pages, frames and every kind of worker each get
  it; ``Network.enable`` first);
- for documents, the same patterns in a main-world script run before the page's own
  (measured: the emulation rule missed a WebSocket opened while the first document after
  a cross-process navigation was parsed in up to 4 of 6 navigations; the script stops it);
- for workers (dedicated, shared, service), the same script evaluated in the worker's
  global scope while it waits for the debugger, before its first instruction: a service
  worker's rule is in place only after its release, so without it one that opens a
  WebSocket at once passed.

The emulation rule is the decision (it is given every letter case of each rule's piece:
socket_rules.py); the scripts live where a page or a client can get around them (a
URL object with two answers, an isolated world, the debugger: tests/guard/
test_socket_escapes.py), so they are early warnings for the moments the rule is not yet
in place.

It also follows every WebSocket on those sessions (``core/guard/socket_watch.py``): one
whose URL the rules refuse is a block line only once Chrome's refusal is seen, and one
whose handshake Chrome sent anyway is an escaped line, never a block; the guard then ends
it with its target at once (``close_step``), and the run exits non-zero at its end.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import orjson

from ajantik_cdp.core.guard.socket_watch import (
    CloseStep,
    SocketFate,
    SocketWatch,
    answered_url,
    close_step,
)
from ajantik_cdp.core.guard.targets import DOCUMENT_TYPES, Target
from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.socket_rules import SocketPlan, rules_refuse
from ajantik_cdp.proxy.cdp_connection import CdpConnection

if TYPE_CHECKING:
    from ajantik_cdp.proxy.reports import Reports

log = logging.getLogger("ajantik.cdp")
Step = tuple[str, asyncio.Future[Any]]

BINDING = "__ajantikSocketRefused"
# The first argument of a worker's console report (see websocket_guard.js).
CONSOLE_MARK = "__ajantik_socket_refused"
# Chrome sent the same console message several times to one session (service workers,
# Chrome 156): reports already seen, by (session, context, count), so each is one line.
SEEN_KEPT = 1024

# Every target kind with a network of its own that can open a WebSocket.
WORKER_TYPES = frozenset({"worker", "shared_worker", "service_worker"})
SOCKET_TYPES = DOCUMENT_TYPES | WORKER_TYPES
# Measured on Chrome 156 with a site's service worker: unlike a dedicated or shared
# worker, it answers nothing (Network.enable, Runtime.evaluate, Runtime.addBinding) while
# it waits for the debugger, so awaiting a step before its release left it paused until
# the install timed out (and the page it would control waiting with it). Its steps are
# queued before the release and awaited after it. Chrome hands them to the worker in
# order, ahead of the release: the script queued this way was in place before the
# worker's first instruction (a WebSocket opened at the top of the script: refused in
# every round measured), while the emulation rule, which is sent only once
# Network.enable has answered, is not.
AFTER_RELEASE_WORKERS = frozenset({"service_worker"})

# The guard's own Network domain reads no bodies, so Chrome keeps none for it (a buffer
# per page otherwise), and its requestWillBeSent events carry no request body: measured on
# Chrome 150, a 1 KB JSON write's event is 1.1 KB with maxPostDataSize 1 and 3.5 KB
# without (0 means no limit). The guard reads a write's body from its Fetch pause on the
# browser session, which this does not touch. Sent once per session, by the WebSocket
# rules or by the service-worker bypass, whichever needs it first.
NETWORK_ENABLE = {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0, "maxPostDataSize": 1}


class WebSocketGuard:
    def __init__(self, plan: SocketPlan, reports: Reports,
                 config: GuardConfig | None = None) -> None:
        self.plan = plan
        self.reports = reports
        # The rules themselves (the canonical matcher), to tell an escape that the
        # patterns missed: without them, the patterns' own answer.
        self.config = config
        self.watch = SocketWatch()
        # A session's parent session (the one it was auto-attached through): a dedicated
        # worker is ended by crashing the document it runs under.
        self.parents: dict[str, str] = {}
        # The target on a session (the guardian's book).
        self.target_of: Callable[[str], Target | None] = lambda _sid: None
        self.source = ""
        if plan.refuse_all:
            log.warning("every WebSocket of guarded targets is refused: %s", plan.refuse_all)
        if plan.patterns:
            here = resources.files("ajantik_cdp.proxy")
            self.source = here.joinpath("websocket_guard.js").read_text(encoding="utf-8") \
                .replace("__AJANTIK_SOCKET_PATTERNS__",
                         orjson.dumps(plan.url_patterns).decode()) \
                .replace("__AJANTIK_SOCKET_BINDING__", orjson.dumps(BINDING).decode()) \
                .replace("__AJANTIK_SOCKET_CONSOLE__", orjson.dumps(CONSOLE_MARK).decode())
        self._seen: dict[tuple[str, str, str], None] = {}

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
        if target_type in WORKER_TYPES:
            # A worker runs no document, so no script is added "on new document": the
            # check is evaluated once in its global scope, before it runs (and again when
            # a stopped worker starts, see restart_steps).
            steps = network + self.worker_steps(conn, session_id)
            if target_type in AFTER_RELEASE_WORKERS:
                return [], steps
            return steps, []
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

    def worker_steps(self, conn: CdpConnection, session_id: str) -> list[Step]:
        """The check in a worker's global scope, with its report channel. Queued before
        the worker is released; the evaluation fails if the script did not run to its end
        (a thrown exception is an answer, not a protocol error)."""
        if not self.plan.patterns:
            return []
        # Runtime.enable: the reports are console messages (Runtime.consoleAPICalled).
        enabled = conn.start("Runtime.enable", None, session_id)
        evaluated = conn.start("Runtime.evaluate",
                               {"expression": self.source, "returnByValue": True}, session_id)
        return [("Runtime.enable", enabled),
                ("Runtime.evaluate", _checked(evaluated, "guarded"))]

    def restart_steps(self, conn: CdpConnection, session_id: str, target_type: str,
                      ) -> list[Step]:
        """A stopped worker starting again on its old session has a new global scope:
        the rule and the check again, queued before its release."""
        if not self.plan.patterns or target_type not in WORKER_TYPES:
            return []
        before, after = self.install_steps(conn, session_id, target_type)
        return before + after

    def on_binding(self, target: Target, params: dict[str, Any]) -> bool:
        """The main-world check refused a WebSocket; False if the call was not for it."""
        if params.get("name") != BINDING:
            return False
        self._refused(target, str(params.get("payload", "")), target.url)
        return True

    def on_console(self, target: Target, params: dict[str, Any]) -> bool:
        """A worker's check refused a WebSocket (a console report); False if the message
        is not one."""
        args = params.get("args") or []
        # Only from workers: a document's check reports over a binding the page cannot
        # reach, so a page's own console message must not forge a block line.
        if target.target_type not in WORKER_TYPES:
            return False
        if params.get("type") != "debug" or len(args) != 3 or \
                args[0].get("value") != CONSOLE_MARK:
            return False
        # A page's script can write the same message: nothing in it is trusted.
        key = (target.session_id or "", str(params.get("executionContextId")),
               str(args[1].get("value")))
        if key in self._seen:
            return True
        self._seen[key] = None
        if len(self._seen) > SEEN_KEPT:
            del self._seen[next(iter(self._seen))]
        self._refused(target, str(args[2].get("value", "")), target.url)
        return True

    def attached(self, session_id: str, parent_session: str | None) -> None:
        if parent_session:
            self.parents[session_id] = parent_session

    def detached(self, session_id: str) -> None:
        self.parents.pop(session_id, None)
        self.watch.session_gone(session_id)

    def refusal(self, url: str) -> tuple[str, str] | None:
        """(reason, rule) when the guard refuses a WebSocket to ``url``: the patterns'
        entry, else the rules searched in every form of the URL."""
        pattern = self.plan.refuses(url)
        if pattern is not None:
            return pattern.reason, pattern.why
        if self.config is not None and rules_refuse(self.config, url):
            return ("allow_writes" if self.config.allow_writes is not None else "deny",
                    "the rules (every form of the URL)")
        return None

    def on_created(self, target: Target, params: dict[str, Any]) -> None:
        """``Network.webSocketCreated``: follow it; nothing is written yet."""
        if target.session_id is None:
            return
        url = _socket_url(str(params.get("url", "")), target.url)
        self.watch.created(target.session_id, str(params.get("requestId")), url,
                           self.refusal(url) is not None)

    def on_socket_event(self, target: Target, method: str, params: dict[str, Any],
                        ) -> CloseStep | None:
        """A later WebSocket event on the guard's session: a block line for Chrome's
        refusal; for a handshake the rules refuse, an escaped line and the step that ends
        it (the caller sends it)."""
        sid, rid = target.session_id or "", str(params.get("requestId"))
        if method == "Network.webSocketClosed":
            self.watch.closed(sid, rid)
            return None
        if method == "Network.webSocketHandshakeResponseReceived" and \
                not self.watch.knows(sid, rid):
            # Created before this session heard of it: its URL is in Chrome's request line.
            url = answered_url(params.get("response"))
            if url is not None:
                self.watch.created(sid, rid, url, self.refusal(url) is not None)
        if method == "Network.webSocketHandshakeResponseReceived" and \
                self.watch.escaped(sid, rid):
            # Measured in the guard's test: a shared worker closed when its handshake was
            # sent kept the WebSocket open 1 time in 3; it is ended again once it opens.
            return close_step(target.target_type, target.target_id, sid, self._owners(sid))
        if method == "Network.webSocketFrameError":
            news = self.watch.failed(sid, rid, str(params.get("errorMessage", "")))
        else:
            news = self.watch.handshake(
                sid, rid, method == "Network.webSocketHandshakeResponseReceived")
        if news is None:
            return None
        why = self.refusal(news.url) or ("deny", "the rules")
        if news.outcome is SocketFate.BLOCKED:
            self.reports.socket_block(target, news.url, *why)
            return None
        step = close_step(target.target_type, target.target_id, sid, self._owners(sid))
        closed = step.says if step is not None else \
            "not closed: the guard has no command that ends this kind of target"
        self.reports.socket_escaped(target, news.url, why[0], why[1], news.stage, closed)
        return step

    def _owners(self, session_id: str) -> list[tuple[str, str, str]]:
        out = []
        seen = {session_id}
        parent = self.parents.get(session_id)
        while parent is not None and parent not in seen:
            seen.add(parent)
            owner = self.target_of(parent)
            if owner is not None:
                out.append((owner.target_type, parent, owner.target_id))
            parent = self.parents.get(parent)
        return out

    def _refused(self, target: Target, raw: str, base: str) -> None:
        url = _socket_url(raw, base)
        why = self.refusal(url)
        if why is not None:
            self.reports.socket_block(target, url, *why)


def _answer() -> asyncio.Future[Any]:
    """A future whose failure, if no one awaits it, is not reported as never retrieved."""
    out: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    out.add_done_callback(lambda f: f.cancelled() or f.exception())
    return out


def _follow(out: asyncio.Future[Any], done: asyncio.Future[Any],
            on_result: Callable[[Any], None]) -> None:
    """Carry ``done``'s cancellation or failure over to ``out``; its result to
    ``on_result``."""
    if out.done():
        return
    if done.cancelled():
        out.cancel()
    elif done.exception() is not None:
        out.set_exception(done.exception())  # type: ignore[arg-type]
    else:
        on_result(done.result())


def _then(first: asyncio.Future[Any],
          second: Callable[[], asyncio.Future[Any]]) -> asyncio.Future[Any]:
    """A future for ``second()``, started once ``first`` has answered (failing with it)."""
    out = _answer()

    def relay(done: asyncio.Future[Any]) -> None:
        _follow(out, done, out.set_result)

    def started(done: asyncio.Future[Any]) -> None:
        if done.cancelled() or done.exception() is not None:
            relay(done)
        else:
            second().add_done_callback(relay)

    first.add_done_callback(started)
    return out


def _checked(fut: asyncio.Future[Any], want: str) -> asyncio.Future[Any]:
    """A future for a ``Runtime.evaluate`` answer that fails unless the script returned
    ``want``."""
    out = _answer()

    def check(result: Any) -> None:
        if (result or {}).get("result", {}).get("value") == want:
            out.set_result(result)
            return
        details = (result or {}).get("exceptionDetails") or {}
        out.set_exception(RuntimeError(
            "the WebSocket check did not run: "
            + str((details.get("exception") or {}).get("description")
                  or details.get("text") or result)[:200]))

    fut.add_done_callback(lambda done: _follow(out, done, check))
    return out


def _socket_url(raw: str, base: str) -> str:
    """The ws(s) URL a WebSocket constructor makes of what it was given."""
    url = urljoin(base, raw) if base.startswith("http") else raw
    scheme, sep, rest = url.partition("://")
    return {"http": "ws", "https": "wss"}.get(scheme.lower(), scheme.lower()) + sep + rest
