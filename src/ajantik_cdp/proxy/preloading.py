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
without restoring leaves preloading off, the safe side.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ajantik_cdp.proxy.cdp_connection import CdpConnection, CdpError

log = logging.getLogger("ajantik.cdp")

PREF = "net.network_prediction_options"
OFF = 2
SETTINGS_URL = "chrome://settings/performance"
READY_TIMEOUT = 15.0

# Run in the settings page; chrome.settingsPrivate is there once the page has booted.
_READY = "!!(globalThis.chrome && chrome.settingsPrivate && chrome.settingsPrivate.getPref)"
_GET = (f"new Promise(r => chrome.settingsPrivate.getPref('{PREF}', "
        "p => r(p && typeof p.value === 'number' ? p.value : null)))")
_SET = "new Promise(r => chrome.settingsPrivate.setPref('" + PREF + "', {value}, '', r))"

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
        while not await _evaluate(conn, session_id, _READY):
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
        before = await _with_settings_page(
            conn, session_of, f"(async () => {{ const v = await {_GET}; "
                              f"await {_SET.format(value=OFF)}; "
                              f"return [v, await {_GET}]; }})()")
    except (CdpError, TimeoutError, KeyError) as exc:
        raise PreloadSwitchError(str(exc) or "Chrome did not answer in time") from None
    if not isinstance(before, list) or len(before) != 2 or before[1] != OFF:
        raise PreloadSwitchError(f"{PREF} reads {before!r} after setting it to {OFF}")
    return int(before[0]) if isinstance(before[0], int) else OFF


async def restore(conn: CdpConnection, session_of: SessionOf, value: int) -> None:
    if value == OFF:
        return
    try:
        await _with_settings_page(conn, session_of, _SET.format(value=value))
    except (CdpError, TimeoutError, KeyError, PreloadSwitchError) as exc:
        log.warning("could not turn Chrome's 'Preload pages' back on (%s); it stays off "
                    "in this profile (chrome://settings/performance)", exc)
