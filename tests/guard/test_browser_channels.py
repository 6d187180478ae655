"""Requests Chrome sends for a page outside the Fetch domain (issue 27, class 2).

Background Fetch hands its requests to Chrome's download service, which sends them from
the browser process itself: no Fetch session pauses them (measured on Chromium 156: not
even the browser session's Fetch with the pattern ``*``), and Chrome decides whether the
job may start by its download limiter (automatic downloads), not by the permission
``Browser.setPermission`` sets. The guard removes the service workers of a site whose job
names a denied URL, which ends the job before it sends (core/guard/background_fetch.py).
Background sync is refused by Chrome itself: the guard holds its permission denied.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions
from tests.conftest import GuardFactory
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

_WORKER = """self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));
// Through the guard a worker with no fetch handler waits 30 s for the guard's Network.enable
// and is then left paused (a separate fault, reported); a handler keeps this test about
// Background Fetch.
self.addEventListener('fetch', () => {});"""

# A page that hands a denied write to Background Fetch and says in its title what Chrome
# answered: "started" (Chrome took the job), or the error it refused it with.
BACKGROUND_FETCH = """<title>waiting</title><script>
navigator.serviceWorker.register('/js/bgf-sw.js', {scope: '/'})
  .then(() => navigator.serviceWorker.ready)
  .then((reg) => reg.backgroundFetch.fetch('job-' + Date.now(), [new Request(
      '{B}/denied-bgfetch', {method: 'POST', body: 'secret=1'})], {title: 'job'}))
  .then(() => { document.title = 'started'; },
        (e) => { document.title = 'refused: ' + e.name; });
</script>"""


async def _background_fetch(pw: Any, cdp_url: str, site: HitSite,
                            deny_permission: bool = False, expect: bool = True) -> str:
    """Run the page in a fresh context; the title says whether Chrome took the job."""
    site.scripts["bgf-sw.js"] = _WORKER
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    try:
        ctx = await browser.new_context()
        page = await ctx.new_page()
        if deny_permission:
            cdp = await browser.new_browser_cdp_session()
            contexts = await cdp.send("Target.getBrowserContexts")
            for context_id in contexts["browserContextIds"]:
                await cdp.send("Browser.setPermission", {
                    "permission": {"name": "background-fetch"}, "setting": "denied",
                    "browserContextId": context_id})
        await page.goto(site.page("bgf", BACKGROUND_FETCH))
        await page.wait_for_function("document.title !== 'waiting'", timeout=15_000)
        title: str = await page.title()
        if expect:
            await site.wait_for(lambda: site.writes("/denied-bgfetch"), timeout=5.0)
        else:
            await site.settle(4.0)  # twice the two seconds the download service took
        await ctx.close()
        return title
    finally:
        await browser.close()


async def test_a_background_fetch_to_a_denied_url_lands_without_the_guard_only(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite,
        guard_log: list[str]) -> None:
    """Without the guard the denied write lands, with the background-fetch permission
    denied over CDP too (why the guard cannot use it); through the guard it does not."""
    for how in ("without the guard", "with the permission denied"):
        site.hits.clear()
        title = await _background_fetch(pw, chrome.http_url, site,
                                        deny_permission=how == "with the permission denied")
        assert title == "started", f"{how}: Chrome refused the job ({title})"
        assert site.writes("/denied-bgfetch"), f"{how}: the background fetch never arrived"

    site.hits.clear()
    g = await guard({"deny": [site.b + "/denied"]})
    await _background_fetch(pw, g.url, site, expect=False)
    assert site.writes("/denied-bgfetch") == [], "the background fetch got through"
    assert any("background fetch of" in m and "refused" in m for m in guard_log), guard_log


# A page whose service worker sends a denied write when Chrome fires its sync, and whose
# title says what Chrome answered the registration.
_SYNC_WORKER = _WORKER + """
self.addEventListener('sync', (e) => e.waitUntil(fetch('{B}/denied-sync',
  {method: 'POST', body: 'queued', mode: 'no-cors'}).catch(() => null)));"""
BACKGROUND_SYNC = """<title>waiting</title><script>
navigator.serviceWorker.register('/js/sync-sw.js', {scope: '/'})
  .then(() => navigator.serviceWorker.ready)
  .then((reg) => reg.sync.register('later'))
  .then(() => { document.title = 'registered'; },
        (e) => { document.title = 'refused: ' + e.name; });
</script>"""


async def _background_sync(pw: Any, cdp_url: str, site: HitSite, new_context: bool) -> str:
    site.scripts["sync-sw.js"] = _SYNC_WORKER
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    try:
        ctx = await browser.new_context() if new_context else browser.contexts[0]
        page = await ctx.new_page()
        await page.goto(site.page("sync", BACKGROUND_SYNC))
        await page.wait_for_function("document.title !== 'waiting'", timeout=15_000)
        title: str = await page.title()
        if new_context:
            await ctx.close()
        else:
            await page.close()
        return title
    finally:
        await browser.close()


@pytest.mark.parametrize("new_context", [False, True], ids=["default context", "new context"])
async def test_background_sync_is_refused_by_chrome_through_the_guard(
        new_context: bool, pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    """Without the guard Chrome takes the sync and the worker's denied write lands when it
    fires; through the guard Chrome itself refuses the registration (the permission the
    guard holds denied), so nothing is queued to be sent later, after the guard."""
    title = await _background_sync(pw, chrome.http_url, site, new_context)
    assert title == "registered", title
    assert await site.wait_for(lambda: site.writes("/denied-sync")), "the sync never fired"

    site.hits.clear()
    g = await guard({"deny": [site.b + "/denied"]})
    title = await _background_sync(pw, g.url, site, new_context)
    assert title == "refused: NotAllowedError", title
    await site.settle(1.0)
    assert site.writes("/denied-sync") == []


async def test_a_client_cannot_lift_the_guards_denial(pw: Any, guard: GuardFactory) -> None:
    g = await guard({})
    browser = await pw.chromium.connect_over_cdp(g.url)
    try:
        cdp = await browser.new_browser_cdp_session()
        for method, params in [
                ("Browser.setPermission", {"permission": {"name": "background-sync"},
                                           "setting": "granted"}),
                ("Browser.grantPermissions", {"permissions": ["backgroundSync"]}),
                ("Browser.resetPermissions", {})]:
            with pytest.raises(Exception, match="ajantik cdp refuses"):
                await cdp.send(method, params)
        # Other permissions stay the client's to set.
        await cdp.send("Browser.setPermission", {"permission": {"name": "geolocation"},
                                                  "setting": "granted"})
    finally:
        await browser.close()


async def _recording(pw: Any, cdp_url: str) -> bool:
    """Whether Chrome records Background Fetch, as a new observer is told."""
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    try:
        page = await browser.contexts[0].new_page()
        cdp = await browser.contexts[0].new_cdp_session(page)
        states: list[bool] = []
        cdp.on("BackgroundService.recordingStateChanged",
               lambda e: states.append(bool(e["isRecording"])))
        await cdp.send("BackgroundService.startObserving", {"service": "backgroundFetch"})
        for _ in range(40):
            if states:
                break
            await asyncio.sleep(0.05)
        await page.close()
        assert states, "Chrome did not say whether it records"
        return states[-1]
    finally:
        await browser.close()


async def test_the_guard_stops_chromes_recording_when_it_stops(
        pw: Any, chrome: Any, tmp_path: Any) -> None:
    """Watching Background Fetch needs Chrome to record it (in the profile, for DevTools'
    Background services panel); a guard that stops cleanly must not leave that on in the
    person's Chrome. Measured failing once: giving the preload lease back opens a
    settings tab, the guard installed itself on it and so started recording again."""
    opts = GuardOptions(upstream=chrome.http_url, config=parse_config({}), port=0,
                        record_path=tmp_path / "record.jsonl", install_signal_handlers=False)
    async with running_guard(opts, "test finished") as handle:
        assert await _recording(pw, f"http://127.0.0.1:{handle.server.port}")
    assert not await _recording(pw, chrome.http_url)
