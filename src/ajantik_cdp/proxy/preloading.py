"""Chrome's "Preload pages" preference, turned off while the guard runs.

A speculation-rules prefetch or prerender is fetched by the browser outside every view
the guard has (measured on Chrome 156: no Fetch session at page or browser level, no
``setBlockedURLs``, no emulation rule, no cache switch and no CSP the page could live with
sees or stops it), and a later navigation commits the fetched page with no request left to
decide. The one switch that stops it is the preference behind chrome://settings'
"Preload pages" (``net.network_prediction_options``: 2 is off), which only Chrome's
settings page may write, through ``chrome.settingsPrivate``. So the guard opens that page
in a tab of its own, reads the value, writes 2, and writes the old value back when it stops.

It is browser-wide (every profile context) and stored in the profile: a guard that dies
without restoring leaves preloading off, the safe side. Guards sharing one Chrome share the
switch through a lease file (``core/guard/preload_lease.py`` says why): only the first opens the
settings page to turn it off, only the last to stop turns it back on. A guard that joins
trusts the lease that the preference is still off when it joins; while it runs it reads
the preference every second and turns it off again if someone turned it back on
(``preload_watcher.py``).

A harness that starts one guard after another on the same Chrome (``ajantik test run``,
the demo) holds the lease itself for the whole session (``held_off``), so each run's guard
only joins it: one settings tab per Chrome and session instead of two per run. The guard
is no weaker for it: it still joins the lease before any client, and switches the
preference itself when no live holder has it off (the harness's switch failed, or the
harness died).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import hashlib
import logging
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from ajantik_cdp.core.guard.preload_lease import (
    Holder,
    Lease,
    join,
    lease_data,
    lease_from_data,
    leave,
    switched_off,
)
from ajantik_cdp.proxy.cdp_connection import CdpConnection, CdpError, ConnectionLost
from ajantik_cdp.proxy.upstream import Upstream, reach_upstream

log = logging.getLogger("ajantik.cdp")

PREF = "net.network_prediction_options"
OFF = 2
SETTINGS_URL = "chrome://settings/performance"
READY_TIMEOUT = 15.0
SET_TRIES = 5
LOCK_TIMEOUT = 60.0  # a holder turning the preference off takes seconds, under load

# Run in the settings page; chrome.settingsPrivate is there once the page has booted.
# (Public: the tests turn the preference on as a person would, with the same calls.)
READY_JS = "!!(globalThis.chrome && chrome.settingsPrivate && chrome.settingsPrivate.getPref)"
GET_JS = (f"new Promise(r => chrome.settingsPrivate.getPref('{PREF}', "
        "p => r(p && typeof p.value === 'number' ? p.value : null)))")
SET_JS = "new Promise(r => chrome.settingsPrivate.setPref('" + PREF + "', {value}, '', r))"

SessionOf = Callable[[str], Awaitable[str | None]]


class PreloadSwitchError(Exception):
    """The preference could not be read or written: speculative loads stay possible."""


async def _evaluate(conn: CdpConnection, session_id: str, expression: str) -> Any:
    got = await conn.send("Runtime.evaluate", {"expression": expression,
                                               "awaitPromise": True,
                                               "returnByValue": True}, session_id, 10.0)
    if "exceptionDetails" in got:
        raise PreloadSwitchError(str(got["exceptionDetails"].get("text", "exception")))
    return (got.get("result") or {}).get("value")


async def _with_settings_page(conn: CdpConnection, session_of: SessionOf,
                              expression: str) -> Any:
    # Not hidden: Chrome 156 drops the DevTools connection that creates a hidden WebUI tab.
    created = await conn.send("Target.createTarget", {"url": SETTINGS_URL})
    target_id = str(created["targetId"])
    try:
        session_id = await session_of(target_id)
        if session_id is None:
            raise PreloadSwitchError("the guard could not attach to the settings tab")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + READY_TIMEOUT
        while not await _evaluate(conn, session_id, READY_JS):
            if loop.time() > deadline:
                raise PreloadSwitchError(f"{SETTINGS_URL} offered no chrome.settingsPrivate")
            await asyncio.sleep(0.1)
        return await _evaluate(conn, session_id, expression)
    finally:
        with contextlib.suppress(CdpError, TimeoutError):
            await conn.send("Target.closeTarget", {"targetId": target_id})


async def turn_off(conn: CdpConnection, session_of: SessionOf) -> int:
    """Set "Preload pages" off; return the value it had, to give back on stop."""
    try:
        # Written again until it reads back: measured in a full test run, one switch in
        # some hundreds read back 0 instead of 2 (a settings page still booting, by every
        # sign), which failed that guard's start.
        before = await _with_settings_page(
            conn, session_of, f"(async () => {{ const v = await {GET_JS}; let now = v; "
                              f"for (let i = 0; i < {SET_TRIES} && now !== {OFF}; i++) {{ "
                              f"if (i) await new Promise(r => setTimeout(r, 300)); "
                              f"await {SET_JS.format(value=OFF)}; now = await {GET_JS}; }} "
                              f"return [v, now]; }})()")
    except (CdpError, TimeoutError, KeyError) as exc:
        raise PreloadSwitchError(str(exc) or "Chrome did not answer in time") from None
    if not isinstance(before, list) or len(before) != 2 or before[1] != OFF:
        raise PreloadSwitchError(f"{PREF} reads {before!r} after setting it to {OFF}")
    return int(before[0]) if isinstance(before[0], int) else OFF


async def restore(conn: CdpConnection, session_of: SessionOf, value: int) -> None:
    if value == OFF:
        return
    try:
        await _with_settings_page(conn, session_of, SET_JS.format(value=value))
    except (CdpError, TimeoutError, KeyError, PreloadSwitchError) as exc:
        log.warning("could not turn Chrome's 'Preload pages' back on (%s); it stays off "
                    "in this profile (chrome://settings/performance)", exc)


def lease_path(browser_ws_url: str) -> Path:
    """One lease per running Chrome: its browser endpoint ends in an id Chrome picks at
    launch, the same whichever host name the guard was given."""
    key = urlsplit(browser_ws_url).path.rsplit("/", 1)[-1] or browser_ws_url
    digest = hashlib.sha256(key.encode()).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / "ajantik-preload" / f"{digest}.json"


def _alive(holders: tuple[Holder, ...]) -> set[int]:
    alive: set[int] = set()
    for holder in holders:
        try:
            os.kill(holder.pid, 0)
        except PermissionError:
            alive.add(holder.pid)
        except OSError:
            continue
        else:
            alive.add(holder.pid)
    return alive


class PreloadLease:
    """This guard's share of the switch on one Chrome."""

    def __init__(self, browser_ws_url: str) -> None:
        self.path = lease_path(browser_ws_url)
        self.me = Holder(os.getpid(), uuid.uuid4().hex)
        self.held = False

    async def hold(self, conn: CdpConnection, session_of: SessionOf) -> None:
        """Join the lease; the first holder turns "Preload pages" off. Raises
        ``PreloadSwitchError`` when it cannot, holding nothing."""
        async with self._locked():
            lease = self._read()
            joined = join(lease, self.me, _alive(lease.holders))
            lease = joined.lease
            if joined.switch_off:
                lease = switched_off(lease, await turn_off(conn, session_of))
            self._write(lease)
            self.held = True

    async def release(self, conn: CdpConnection, session_of: SessionOf) -> None:
        """Leave the lease; the last holder turns the preference back to what it was."""
        if not self.held:
            return
        self.held = False
        try:
            async with self._locked():
                lease = self._read()
                left = leave(lease, self.me, _alive(lease.holders))
                if left.give_back is not None and not conn.closed.is_set():
                    await restore(conn, session_of, left.give_back)
                self._write(left.lease)
        except (PreloadSwitchError, OSError) as exc:
            log.warning("could not give back Chrome's 'Preload pages' (%s); it may stay "
                        "off in this profile (chrome://settings/performance)", exc)

    @contextlib.asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        # Polled, never a blocking flock in a thread: a cancelled guard must not leave a
        # thread holding (or waiting for) the lock.
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path.with_suffix(".lock"), os.O_CREAT | os.O_RDWR, 0o600)
        except OSError as exc:
            raise PreloadSwitchError(f"cannot keep the lease in {self.path.parent}: "
                                     f"{exc.strerror}") from None
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + LOCK_TIMEOUT
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES):
                        raise PreloadSwitchError(f"cannot lock {self.path}: {exc}") from None
                if loop.time() > deadline:
                    raise PreloadSwitchError(f"another guard kept {self.path} locked for "
                                             f"{LOCK_TIMEOUT:g}s")
                await asyncio.sleep(0.05)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _read(self) -> Lease:
        try:
            return lease_from_data(orjson.loads(self.path.read_bytes()))
        except (OSError, orjson.JSONDecodeError):
            return Lease()

    def _write(self, lease: Lease) -> None:
        tmp = self.path.with_suffix(f".{self.me.token}.tmp")
        tmp.write_bytes(orjson.dumps(lease_data(lease)))
        os.replace(tmp, self.path)


@contextlib.asynccontextmanager
async def held_off(http: aiohttp.ClientSession, browser_ws_url: str) -> AsyncIterator[bool]:
    """Hold "Preload pages" off on one Chrome while the block runs, on a DevTools
    connection of its own; yields whether it holds it. One that cannot (Chrome refuses,
    the settings page does not boot) holds nothing and says why in the log: each guard
    then switches the preference itself, as it would without this."""
    try:
        ws = await http.ws_connect(browser_ws_url, max_msg_size=0, compress=0,
                                   autoping=True)
    except (aiohttp.ClientError, OSError) as exc:
        # Not the address: a remote browser's endpoint can carry a credential.
        log.info("preloading: no session hold (%s); each guard switches it",
                 type(exc).__name__)
        yield False
        return
    conn = CdpConnection(ws)

    async def session_of(target_id: str) -> str | None:
        # No guard runs on this connection: attach to the settings tab directly.
        got = await conn.send("Target.attachToTarget", {"targetId": target_id,
                                                        "flatten": True})
        session = got.get("sessionId") if isinstance(got, dict) else None
        return session if isinstance(session, str) else None

    lease = PreloadLease(browser_ws_url)
    try:
        try:
            await lease.hold(conn, session_of)
        except (PreloadSwitchError, CdpError, ConnectionLost, TimeoutError) as exc:
            log.info("preloading: no session hold (%s); each guard switches it", exc)
        yield lease.held
    finally:
        try:
            await lease.release(conn, session_of)
        finally:
            await conn.close()


@contextlib.asynccontextmanager
async def held_off_on(upstreams: Sequence[str]) -> AsyncIterator[int]:
    """``held_off`` on each Chrome a session's guards will use (their ``--upstream``
    addresses); yields on how many it holds. A Chrome that cannot be reached is left to
    its guard, which then says why in one line."""
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, connect=5)))
        found = await asyncio.gather(*(reach_upstream(http, u) for u in upstreams),
                                     return_exceptions=True)
        holds = [held_off(http, u.browser_ws) for u in found if isinstance(u, Upstream)]
        held = await asyncio.gather(*(stack.enter_async_context(h) for h in holds))
        yield sum(held)
