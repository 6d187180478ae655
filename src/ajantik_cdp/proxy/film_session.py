"""The guard's camera with no guard: ``Camera`` driven on a DevTools session of its own.

A run with nothing in front of its browser (a perturbation suite's variants without a
write fault) is filmed by the same ``Camera`` the guard films with, on a browser
connection held here: it auto-attaches to every page without pausing it (it guards
nothing, so a page never waits for it) and keeps the ``TargetBook`` of their URLs that
the film's choices read (a page at a ``redact`` URL is not filmed). Its record is a
version-2 record with only the start line, the frame lines and the end line, so every
reader of a guard's film (the players, ``ajantik record film``) reads it unchanged.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

from ajantik_cdp.core.guard.targets import TARGET_EVENTS, TargetBook
from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.record.redaction import Redactor
from ajantik_cdp.proxy.cdp_connection import CdpConnection, EventHandler
from ajantik_cdp.proxy.film import Camera, FilmSettings, prepare_folder
from ajantik_cdp.proxy.reports import start_record
from ajantik_cdp.proxy.upstream import reach_upstream

# No waitForDebuggerOnStart: this session only watches, and a page must not wait for it.
WATCH = {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}
STOPPED = "filming stopped"


def _book_keeper(conn: CdpConnection, targets: TargetBook) -> EventHandler:
    """The guardian's bookkeeping of Target events (``TargetBook.news``), and nothing
    else: this session installs no guard."""

    def on_event(msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method not in TARGET_EVENTS:
            return
        news = targets.news(method, msg.get("params") or {})
        if news is not None and news.attached is not None \
                and news.attached.target_type == "page":
            # A page's out-of-process frames: the camera must know their URLs too.
            conn.post("Target.setAutoAttach", WATCH, news.attached.session_id)

    return on_event


@contextlib.asynccontextmanager
async def filming(upstream: str, record_path: Path, settings: FilmSettings,
                  config: GuardConfig) -> AsyncIterator[Camera]:
    """Film every page of the browser at ``upstream`` (its HTTP or browser WebSocket
    address) until the block ends: frames into ``settings.folder``, frame lines into a
    fresh record at ``record_path``."""
    async with aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, connect=5)) as http:
        found = await reach_upstream(http, upstream)
        prepare_folder(settings.folder)
        writer = start_record(record_path, found, config, None, settings)
        try:
            ws = await http.ws_connect(found.browser_ws, max_msg_size=0, compress=0,
                                       autoping=True)
            conn = CdpConnection(ws)
            try:
                targets = TargetBook()
                conn.on_event = _book_keeper(conn, targets)
                camera = Camera(conn, targets, Redactor(config, os.urandom(32)), writer,
                                settings, config)
                camera.attach()
                try:
                    await conn.send("Target.setDiscoverTargets", {"discover": True})
                    await conn.send("Target.setAutoAttach", WATCH)
                    yield camera
                finally:
                    await camera.close()
            finally:
                await conn.close()
        finally:
            writer.close(STOPPED)
