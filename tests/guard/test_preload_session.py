"""A harness that runs guard after guard on one Chrome holds "Preload pages" off for the
whole session (``held_off_on``, used by `ajantik test run` and the demo): it is off
between the guards too, no guard opens chrome://settings for it, it comes back when the
session ends, and a guard whose harness could not switch it switches it itself."""

from __future__ import annotations

from typing import Any

import pytest

from ajantik_cdp.proxy import preloading
from ajantik_cdp.proxy.preloading import PreloadSwitchError, held_off_on
from tests.conftest import GuardFactory
from tests.guard.test_speculative import _open, _rules_page
from tests.support.fresh_chrome import module_chrome
from tests.support.site import HitSite

pytestmark = pytest.mark.browser
chrome = module_chrome()  # a profile no guard has touched (see fresh_chrome.py)


async def _prefetched(pw: Any, cdp_url: str, site: HitSite, path: str) -> bool:
    """Whether a page's speculation rules fetch ``path`` ahead (a page opened at
    ``cdp_url``: Chrome itself, or a guard)."""
    browser, ctx, _ = await _open(pw, cdp_url, _rules_page(site, "prefetch", path))
    try:
        if await site.wait_for(lambda: site.gets(path), timeout=5.0):
            return True
        await site.settle(1.0)
        return bool(site.gets(path))
    finally:
        await ctx.close()
        await browser.close()


class SwitchCount:
    def __init__(self, fail_first: bool = False) -> None:
        self.calls, self.fail_first = 0, fail_first
        self.real = preloading.turn_off

    async def __call__(self, conn: Any, session_of: Any) -> int:
        self.calls += 1
        if self.fail_first and self.calls == 1:
            raise PreloadSwitchError("the test's settings page did not boot")
        return await self.real(conn, session_of)


async def test_held_for_a_session_off_between_guards_and_back_at_the_end(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Without any hold, Chrome fetches ahead: the attack lands.
    assert await _prefetched(pw, chrome.http_url, site, "/before-session")
    switches = SwitchCount()
    monkeypatch.setattr(preloading, "turn_off", switches)
    async with held_off_on([chrome.http_url]) as held:
        assert held == 1 and switches.calls == 1
        assert not await _prefetched(pw, chrome.http_url, site, "/denied-between"), \
            "preloading was on in the session with no guard running"
        g = await guard({"deny": ["denied"]})
        assert switches.calls == 1, "the guard opened chrome://settings in a held session"
        assert not await _prefetched(pw, g.url, site, "/denied-in-guard")
        await g.server.shutdown("test stops the guard", 1001)
        assert not await _prefetched(pw, chrome.http_url, site, "/denied-after-guard"), \
            "the guard gave the preference back under the session's hold"
    assert await _prefetched(pw, chrome.http_url, site, "/after-session"), \
        "speculative loading stayed off after the session ended"


async def test_a_guard_switches_it_itself_when_the_session_could_not(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite,
        monkeypatch: pytest.MonkeyPatch) -> None:
    switches = SwitchCount(fail_first=True)
    monkeypatch.setattr(preloading, "turn_off", switches)
    async with held_off_on([chrome.http_url]) as held:
        assert held == 0
        g = await guard({"deny": ["denied"]})
        assert switches.calls == 2, "the guard trusted a hold that does not exist"
        assert not await _prefetched(pw, g.url, site, "/denied-no-hold")
        await g.server.shutdown("test stops the guard", 1001)
    assert await _prefetched(pw, chrome.http_url, site, "/after-no-hold")


async def test_an_unreachable_chrome_is_left_to_its_guard() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with held_off_on([f"http://127.0.0.1:{port}"]) as held:
        assert held == 0
