"""deny_clicks in every shadow root: the DevTools half (core/guard/shadow_roots.py says
why). Each author root Chrome shows the guard's session is resolved in the guard's
isolated world of its frame and handed to the page-side script's ``__ajantikWatchRoot``,
which puts the same listeners on it as on the window."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ajantik_cdp.core.guard.shadow_roots import (
    DOM_EVENTS,
    RootRef,
    Unexplored,
    found_in_event,
    walk,
)
from ajantik_cdp.core.guard.targets import Target
from ajantik_cdp.proxy.cdp_connection import CdpConnection

log = logging.getLogger("ajantik.cdp")

CONTEXT_EVENTS = frozenset({"Runtime.executionContextCreated",
                            "Runtime.executionContextDestroyed",
                            "Runtime.executionContextsCleared"})
SHADOW_EVENTS = DOM_EVENTS | CONTEXT_EVENTS
WATCH = "function () { const watch = globalThis.__ajantikWatchRoot; if (watch) watch(this); }"
GET_DOCUMENT = {"depth": -1, "pierce": True}


class ShadowRoots:
    def __init__(self, world: str) -> None:
        self.world = world
        self.conn: CdpConnection | None = None
        # (session, frame) -> the guard's isolated world there; roots found before it
        # existed wait for it.
        self.contexts: dict[tuple[str, str], int] = {}
        self.pending: dict[tuple[str, str], list[int]] = {}

    def install_steps(self, conn: CdpConnection, session_id: str,
                      main_frame: str) -> list[tuple[str, asyncio.Future[Any]]]:
        self.conn = conn
        steps = [("DOM.enable", conn.start("DOM.enable", None, session_id))]
        self._get_document(session_id, main_frame)
        return steps

    def _get_document(self, session_id: str, main_frame: str) -> None:
        assert self.conn is not None
        fut = self.conn.start("DOM.getDocument", GET_DOCUMENT, session_id)

        def done(f: asyncio.Future[Any]) -> None:
            if f.cancelled() or f.exception() is not None:
                return  # the target went away (or navigated: documentUpdated asks again)
            root = (f.result() or {}).get("root")
            if isinstance(root, dict):
                self._found(session_id, main_frame, list(walk(root, main_frame)))
        fut.add_done_callback(done)

    def on_event(self, target: Target, method: str, params: dict[str, Any]) -> None:
        sid = target.session_id
        if sid is None:
            return
        if method == "Runtime.executionContextCreated":
            ctx = params.get("context") or {}
            frame = (ctx.get("auxData") or {}).get("frameId")
            if ctx.get("name") == self.world and isinstance(frame, str) and \
                    isinstance(ctx.get("id"), int):
                self.contexts[(sid, frame)] = ctx["id"]
                for backend in self.pending.pop((sid, frame), []):
                    self._watch(sid, ctx["id"], backend)
        elif method == "Runtime.executionContextDestroyed":
            gone = params.get("executionContextId")
            for key in [k for k, v in self.contexts.items() if v == gone]:
                del self.contexts[key]
        elif method == "Runtime.executionContextsCleared":
            for key in [k for k in self.contexts if k[0] == sid]:
                del self.contexts[key]
        elif method == "DOM.documentUpdated":
            # A new document: Chrome forgot every node it had sent; ask for the tree again.
            self._get_document(sid, target.target_id)
        else:
            self._found(sid, target.target_id, found_in_event(method, params))

    def _found(self, sid: str, main_frame: str, items: list[RootRef | Unexplored]) -> None:
        assert self.conn is not None
        for item in items:
            if isinstance(item, Unexplored):
                self.conn.post("DOM.requestChildNodes",
                               {"nodeId": item.node_id, **GET_DOCUMENT}, sid)
                continue
            frame = item.frame_id or main_frame
            ctx = self.contexts.get((sid, frame))
            if ctx is None:
                self.pending.setdefault((sid, frame), []).append(item.backend_node_id)
            else:
                self._watch(sid, ctx, item.backend_node_id)

    def _watch(self, sid: str, ctx: int, backend: int) -> None:
        assert self.conn is not None
        conn = self.conn
        fut = conn.start("DOM.resolveNode", {"backendNodeId": backend,
                                             "executionContextId": ctx}, sid)

        def done(f: asyncio.Future[Any]) -> None:
            if f.cancelled() or f.exception() is not None:
                return  # the node is gone, or lives in another frame's document
            oid = ((f.result() or {}).get("object") or {}).get("objectId")
            if isinstance(oid, str):
                conn.post("Runtime.callFunctionOn",
                          {"objectId": oid, "functionDeclaration": WATCH, "silent": True}, sid)
                conn.post("Runtime.releaseObject", {"objectId": oid}, sid)
        fut.add_done_callback(done)
