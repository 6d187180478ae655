"""Speculative loading (issue 10, class 3): a speculation-rules prefetch or prerender of a
denied URL is fetched by the browser where no Fetch session sees it, and a later
navigation commits the fetched page with no request left to decide. Each attack first
lands without the guard (the site's hit log shows the speculative GET), then is stopped
with it: nothing is fetched ahead, the navigation goes to the network and the net fails it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from ajantik_cdp.core.errors import EXIT_CHROME
from ajantik_cdp.core.record.record_schema import BlockLine
from ajantik_cdp.proxy import preload_watcher
from ajantik_cdp.proxy.preloading import GET_JS, READY_JS, SET_JS, PreloadSwitchError
from tests.conftest import GuardFactory
from tests.support.direct_cdp import direct
from tests.support.fresh_chrome import module_chrome
from tests.support.site import HitSite

pytestmark = pytest.mark.browser


chrome = module_chrome()  # a profile no guard has touched (see fresh_chrome.py)


def _rules_page(site: HitSite, kind: str, *paths: str) -> str:
    rules = json.dumps({kind: [{"source": "list", "urls": list(paths)}]})
    # Inserted by script as well as inline: rules a script adds are the ones that no
    # rewriting of the page's HTML could take out.
    return site.page(f"spec-{kind}", f"""<title>spec</title>
        <script type="speculationrules">{rules}</script>
        <script>const s = document.createElement('script'); s.type = 'speculationrules';
        s.textContent = JSON.stringify({{prefetch: [{{source: 'list',
          urls: ['/denied-by-script']}}]}}); document.head.append(s);</script>""")


async def _open(pw: Any, cdp_url: str, url: str) -> tuple[Any, Any, Any]:
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(url)
    return browser, ctx, page


async def _text_after_script_navigation(page: Any, path: str) -> str:
    # A renderer-initiated navigation: the kind that commits from a prefetch (a
    # browser-initiated Page.navigate always goes to the network).
    try:
        async with page.expect_navigation(timeout=10_000):
            await page.evaluate(f"location.href = {path!r}")
    except Exception:  # a blocked load may end as an error page or not at all
        pass
    # A blocked load commits Chrome's error page a moment later: read once it settled.
    for _ in range(20):
        try:
            await page.wait_for_load_state()
            text: str = await page.evaluate("document.body ? document.body.innerText : ''")
            return text
        except Exception:  # the context went away under the read
            await asyncio.sleep(0.25)
    raise AssertionError("the page never settled after the navigation")


@pytest.mark.parametrize("kind", ["prefetch", "prerender"])
async def test_a_speculative_load_of_a_denied_page_lands_without_the_guard_and_not_with_it(
        kind: str, pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    url = _rules_page(site, kind, "/denied-spec", "/allowed-spec")

    browser, ctx, page = await _open(pw, chrome.http_url, url)
    assert await site.wait_for(lambda: site.gets("/denied-spec")), \
        f"the {kind} did not fetch the denied page even without the guard"
    assert await site.wait_for(lambda: site.gets("/denied-by-script"))
    fetched = len(site.gets("/denied-spec"))
    shown = await _text_after_script_navigation(page, "/denied-spec")
    assert "denied page loaded" in shown
    # Shown from the speculative fetch: no second request reached the site.
    assert len(site.gets("/denied-spec")) == fetched
    await ctx.close()
    await browser.close()

    site.hits.clear()
    g = await guard({"deny": ["denied"]})
    browser, ctx, page = await _open(pw, g.url, url)
    await site.settle(2.0)
    assert site.gets("/denied-spec") == [], f"{kind} fetched a denied page through the guard"
    assert site.gets("/denied-by-script") == []
    shown = await _text_after_script_navigation(page, "/denied-spec")
    assert "denied page loaded" not in shown
    assert site.gets("/denied-spec") == [], "the navigation reached the denied page"
    assert await g.wait_for_line(
        lambda b: isinstance(b, BlockLine) and "/denied-spec" in (b.url or ""))
    # Allowed pages still load (from the network, not ahead of time).
    await page.goto(url)
    assert "denied" not in await _text_after_script_navigation(page, "/allowed-spec")
    assert site.gets("/allowed-spec")
    await ctx.close()
    await browser.close()


async def test_the_preference_comes_back_when_the_guard_stops(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    url = _rules_page(site, "prefetch", "/allowed-after")
    g = await guard({"deny": ["denied"]})
    await g.server.shutdown("test stops the guard", 1001)

    browser, ctx, _ = await _open(pw, chrome.http_url, url)
    assert await site.wait_for(lambda: site.gets("/allowed-after")), \
        "speculative loading stayed off after the guard stopped"
    await ctx.close()
    await browser.close()


async def test_link_rel_prefetch_is_decided_by_the_net(
        pw: Any, guard: GuardFactory, site: HitSite) -> None:
    """<link rel=prefetch> is not governed by the preference: it stays on, and a denied
    one is a plain GET read (allowed), as the rules say for reads."""
    url = site.page("link-prefetch", '<link rel="prefetch" href="/allowed-link">')
    g = await guard({"deny": ["denied"]})
    browser, ctx, _ = await _open(pw, g.url, url)
    assert await site.wait_for(lambda: site.gets("/allowed-link")), \
        "an allowed <link rel=prefetch> no longer works through the guard"
    await ctx.close()
    await browser.close()


async def test_two_guards_on_one_chrome_keep_it_off_until_the_last_stops(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    """Measured before the lease: the first guard to stop turned preloading back on under
    the second (whose pages prefetched again), and the second then left it off for good."""
    first = await guard({"deny": ["denied"]})
    second = await guard({"deny": ["denied"]})
    await first.server.shutdown("test stops the first guard", 1001)

    url = _rules_page(site, "prefetch", "/denied-two")
    browser, ctx, _ = await _open(pw, second.url, url)
    await site.settle(2.0)
    assert site.gets("/denied-two") == [], "preloading came back on under a running guard"
    await ctx.close()
    await browser.close()

    await second.server.shutdown("test stops the second guard", 1001)
    url = _rules_page(site, "prefetch", "/allowed-two")
    browser, ctx, _ = await _open(pw, chrome.http_url, url)
    assert await site.wait_for(lambda: site.gets("/allowed-two")), \
        "speculative loading stayed off after the last guard stopped"
    await ctx.close()
    await browser.close()


async def _settings_tab(cdp: Any) -> tuple[str, str]:
    target = (await cdp.send("Target.createTarget",
                             {"url": "chrome://settings/performance"}))["targetId"]
    sid = (await cdp.send("Target.attachToTarget", {"targetId": target,
                                                    "flatten": True}))["sessionId"]
    for _ in range(100):
        got = await cdp.send("Runtime.evaluate", {"expression": READY_JS,
                                                  "returnByValue": True}, sid)
        if got["result"].get("value"):
            return target, sid
        await asyncio.sleep(0.1)
    raise AssertionError("the settings page never offered chrome.settingsPrivate")


async def _pref(cdp: Any, sid: str, value: int | None = None) -> Any:
    expression = GET_JS if value is None else SET_JS.format(value=value)
    got = await cdp.send("Runtime.evaluate", {"expression": expression,
                                              "awaitPromise": True,
                                              "returnByValue": True}, sid)
    return got["result"].get("value")


async def _prefetched(pw: Any, cdp_url: str, site: HitSite, path: str) -> bool:
    url = _rules_page(site, "prefetch", path)
    browser, ctx, _ = await _open(pw, cdp_url, url)
    await site.settle(2.0)
    await ctx.close()
    await browser.close()
    return bool(site.gets(path))


async def test_preloading_turned_back_on_under_the_guard_is_noticed_and_turned_off(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite,
        guard_log: list[str]) -> None:
    """Issue 27, class 3: a person in chrome://settings, or a program on Chrome's own port,
    turns "Preload pages" back on while the guard holds it off."""
    g = await guard({"deny": ["denied"]})
    watcher = g.server.guardian.preload_watch
    async with direct(chrome.http_url) as cdp:
        target, sid = await _settings_tab(cdp)
        # With the watch off (the guard before issue 27): it stays on, and a denied page
        # is prefetched through the guard.
        await watcher.stop()
        await _pref(cdp, sid, 0)
        assert await _pref(cdp, sid) == 0
        assert await _prefetched(pw, g.url, site, "/denied-watch-off"), \
            "preloading turned back on did not prefetch the denied page (the test is void)"
        assert await _pref(cdp, sid) == 0

        # With the watch on: noticed within seconds and turned off again.
        watcher.start()
        loop = asyncio.get_running_loop()
        began = loop.time()
        for _ in range(150):  # polled: Chrome tells no one of the change
            if await _pref(cdp, sid) == 2:
                break
            await asyncio.sleep(0.1)
        took = loop.time() - began
        assert await _pref(cdp, sid) == 2, "the guard never turned preloading off again"
        assert watcher.switched_again == 1
        await cdp.send("Target.closeTarget", {"targetId": target})
    assert not await _prefetched(pw, g.url, site, "/denied-watch-on")
    assert any("turned back on while the guard held it off" in m for m in guard_log)
    print(f"preloading turned back on: off again after {took:.1f} s with the watch; "
          "the denied prefetch landed 1/1 with the watch off, 0/1 with it on")


async def test_a_guard_that_cannot_turn_it_off_again_stops(
        chrome: Any, guard: GuardFactory, guard_log: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail closed: preloading found on and not switchable (the settings page does not
    boot, Chrome refuses) ends the guard, as losing Chrome does."""
    g = await guard({"deny": ["denied"]})

    async def cannot(*_: Any) -> int:
        raise PreloadSwitchError("the test's settings page did not boot")

    monkeypatch.setattr(preload_watcher, "turn_off", cannot)
    async with direct(chrome.http_url) as cdp:
        target, sid = await _settings_tab(cdp)
        await _pref(cdp, sid, 0)
        await asyncio.wait_for(g.server.guardian.closed.wait(), 15)
        await _pref(cdp, sid, 2)  # the next module's Chrome is fresh; leave this one off
        await cdp.send("Target.closeTarget", {"targetId": target})
    assert any("the guard stops" in m for m in guard_log)
    assert await g.server.run_until_stopped() == EXIT_CHROME
