"""Watching "Preload pages" while the guard holds it off (``core/guard/preload_watch.py``
says how it is read and why).

Every ``WATCH_INTERVAL`` seconds the watcher reads the preference on one of the guard's own
page sessions (``Preload.enable``, whose event carries it, then ``Preload.disable``). If it
reads "on" while the guard holds the lease, it logs an error and turns it off again through
the settings page, as at start; if that fails it closes the guard's browser connection, so
the guard stops as when it loses Chrome (fail closed: speculative loads would escape the
net). The value the lease gives back at the end stays the one read before the first switch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from typing import Any

from ajantik_cdp.core.guard.preload_watch import (
    STATE_EVENT,
    WATCH_INTERVAL,
    WatchAction,
    after_reading,
    preference_off,
)
from ajantik_cdp.proxy.cdp_connection import CdpConnection, CdpError, ConnectionLost
from ajantik_cdp.proxy.preloading import PreloadSwitchError, SessionOf, turn_off

log = logging.getLogger("ajantik.cdp")

READ_TIMEOUT = 5.0


class PreloadWatcher:
    def __init__(self, conn: CdpConnection, session_of: SessionOf,
                 page_sessions: Callable[[], Iterable[str]],
                 held: Callable[[], bool]) -> None:
        self.conn = conn
        self.session_of = session_of
        self.page_sessions = page_sessions
        self.held = held
        self.switched_again = 0  # how often it was found on and turned off again
        self._readings: dict[str, asyncio.Future[bool | None]] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self, interval: float = WATCH_INTERVAL) -> None:
        self._task = asyncio.create_task(self._run(interval))

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def on_event(self, msg: dict[str, Any]) -> bool:
        """Take ``Preload.preloadEnabledStateUpdated`` on a session being read."""
        if msg.get("method") != STATE_EVENT:
            return False
        fut = self._readings.get(str(msg.get("sessionId")))
        if fut is not None and not fut.done():
            fut.set_result(preference_off(msg.get("params")))
        return True

    async def read(self) -> bool | None:
        """Whether the preference is off now; None when no page session could tell."""
        loop = asyncio.get_running_loop()
        for sid in list(self.page_sessions())[:2]:  # a page may be closing under the read
            fut: asyncio.Future[bool | None] = loop.create_future()
            self._readings[sid] = fut
            try:
                await self.conn.send("Preload.enable", None, sid, READ_TIMEOUT)
                return await asyncio.wait_for(fut, READ_TIMEOUT)
            except (CdpError, TimeoutError):
                continue
            finally:
                self._readings.pop(sid, None)
                self.conn.post("Preload.disable", None, sid)
        return None

    async def _run(self, interval: float) -> None:
        try:
            while not self.conn.closed.is_set():
                await asyncio.sleep(interval)
                if after_reading(self.held(), await self.read()) is WatchAction.KEEP:
                    continue
                self.switched_again += 1
                log.error("Chrome's 'Preload pages' was turned back on while the guard held "
                          "it off (in chrome://settings, or by a program on Chrome's own "
                          "port); turning it off again")
                try:
                    await turn_off(self.conn, self.session_of)
                except PreloadSwitchError as exc:
                    log.error("could not turn 'Preload pages' off again (%s): the guard "
                              "stops, since speculative loads would escape its net", exc)
                    await self.conn.close()
                    return
        except ConnectionLost:
            return
