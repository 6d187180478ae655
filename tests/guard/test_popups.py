"""The guard must not break sites: popups that open in a new process load through it.

Measured before the fix (Chrome 156, with deny_clicks set so page scripts are installed):
a popup opened with noopener or a form with target=_blank stayed on an empty URL, the
guard logged "could not guard page", and every command of a client attached to it
waited out the hold timeout. The same flows run without the guard first, so a flow that
does not open a popup at all cannot pass here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from ajantik_cdp.core.record.record_schema import BlockLine
from tests.conftest import GuardFactory
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

CONFIG = {"deny": ["denied"], "deny_clicks": ["^Proceed to submission$"]}

PAGES = {
    "opener": """
        <form id="get" action="/page/landed-get" target="_blank"><button>get</button></form>
        <form id="post" method="post" action="/page/landed-post" target="_blank">
          <input name="x" value="1"><button>post</button></form>
        <a id="link" href="/page/landed-link" target="_blank">link</a>
        <form id="denied" method="post" action="/denied-popup-post" target="_blank">
          <button>denied</button></form>""",
    "landed-get": "<title>landed</title>",
    "landed-post": "<title>landed</title>",
    "landed-link": "<title>landed</title>",
    "landed-noopener": "<title>landed</title>",
    "form": """<form method="post" action="/denied-form-post"><button id="go">go</button>
        </form>""",
}

# How each popup is opened from the opener page.
OPENERS = {
    "form-get-blank": ("#get button", "/page/landed-get"),
    "form-post-blank": ("#post button", "/page/landed-post"),
    "link-blank": ("#link", "/page/landed-link"),
    "window-open-noopener": (None, "/page/landed-noopener"),
}
# Generous: the failure this catches is a popup that never loads (a 30 s hold).
LOAD_TIMEOUT_MS = 15_000


async def _open_popup(pw: Any, cdp_url: str, site: HitSite, how: str) -> tuple[str, str]:
    """(popup URL once loaded, its title read by a later client command)."""
    selector, path = OPENERS[how]
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    ctx = await browser.new_context()
    try:
        page = await ctx.new_page()
        await page.goto(site.a + "/page/opener")
        async with ctx.expect_page(timeout=LOAD_TIMEOUT_MS) as popup_info:
            if selector is None:
                await page.evaluate(f"window.open('{site.a}{path}', '_blank', 'noopener')")
            else:
                await page.click(selector)
        popup = await popup_info.value
        # A GET form adds its (empty) query: ".../landed-get?".
        await popup.wait_for_url(lambda u: path in u, timeout=LOAD_TIMEOUT_MS)
        title = await asyncio.wait_for(popup.title(), LOAD_TIMEOUT_MS / 1000)
        return popup.url, title
    finally:
        with contextlib.suppress(Exception):
            await ctx.close()
        with contextlib.suppress(Exception):
            await browser.close()


@pytest.mark.parametrize("how", list(OPENERS))
async def test_a_popup_that_navigates_itself_loads_through_the_guard(
        how: str, pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    site.pages.update(PAGES)
    _, path = OPENERS[how]
    url, title = await _open_popup(pw, chrome.http_url, site, how)
    assert path in url and title == "landed"

    g = await guard(CONFIG)
    site.hits.clear()
    url, title = await _open_popup(pw, g.url, site, how)
    assert path in url, url
    assert title == "landed"
    assert any(path in h.path for h in site.hits)


async def test_a_popup_to_a_denied_url_is_blocked_and_the_opener_stays_usable(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    site.pages.update(PAGES)

    async def submit(cdp_url: str, played_out: Callable[[], object]) -> str:
        """``played_out``: the post's hit, or the guard's block of it, waited for before
        the popup is let go."""
        browser = await pw.chromium.connect_over_cdp(cdp_url)
        ctx = await browser.new_context()
        try:
            page = await ctx.new_page()
            await page.goto(site.a + "/page/opener")
            async with ctx.expect_page(timeout=LOAD_TIMEOUT_MS):
                await page.click("#denied button")
            await site.wait_for(played_out)
            return str(await asyncio.wait_for(page.title(), 10))
        finally:
            with contextlib.suppress(Exception):
                await ctx.close()
            with contextlib.suppress(Exception):
                await browser.close()

    await submit(chrome.http_url, lambda: site.writes("/denied-popup-post"))
    assert await site.wait_for(lambda: site.writes("/denied-popup-post"))
    site.hits.clear()
    g = await guard(CONFIG)

    def blocked(line: object) -> bool:
        return isinstance(line, BlockLine) and "/denied-popup-post" in (line.url or "")

    await submit(g.url, lambda: any(map(blocked, g.lines())))
    await site.settle(0.5)  # the one wait for what must not arrive, after the block
    assert site.writes("/denied-popup-post") == []
    assert await g.wait_for_line(blocked)


async def test_a_blocked_form_post_names_the_page_it_was_sent_from(
        pw: Any, guard: GuardFactory, site: HitSite) -> None:
    """The frame URL is read when the request is made, not after Chrome has shown its
    error page for the failed navigation."""
    site.pages.update(PAGES)
    g = await guard(CONFIG)
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.a + "/page/form")
    with contextlib.suppress(Exception):
        await page.click("#go", timeout=3000)
    await site.settle(0.5)
    await ctx.close()
    await browser.close()
    assert site.writes("/denied-form-post") == []
    assert await g.wait_for_line(lambda b: isinstance(b, BlockLine) and
                                 "/denied-form-post" in (b.url or ""))
    [line] = [b for b in g.lines() if isinstance(b, BlockLine)
              and "/denied-form-post" in (b.url or "")]
    assert line.frame_url == site.a + "/page/form"
