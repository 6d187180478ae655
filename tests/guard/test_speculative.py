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

from ajantik_cdp.core.record.record_schema import BlockLine
from tests.conftest import GuardFactory
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
