"""The walkthrough's path, as a test: a denied write fails, an allowed one lands."""

from __future__ import annotations

import pytest

from tests.conftest import GuardFactory, origin_rule
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

PAGE = """<script>
async function post(p) { try { const r = await fetch(p, {method: 'POST', body: 'x'});
  return r.status } catch (e) { return 'error' } }
</script>"""


async def test_denied_write_fails_allowed_write_lands(pw, guard: GuardFactory, site: HitSite,
                                                      chrome) -> None:
    url = site.page("smoke", PAGE)
    # Without the guard the denied write reaches the site.
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(url)
    assert await page.evaluate("post('/hit/denied-submission')") == 200
    assert len(site.writes("/hit/denied-submission")) == 1
    await ctx.close()
    await browser.close()

    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]})
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(url)
    assert await page.evaluate("post('/hit/denied-submission')") == "error"
    assert await page.evaluate("post('/hit/draft')") == 200
    await site.settle(0.3)
    assert len(site.writes("/hit/denied-submission")) == 1  # still only the unguarded one
    assert len(site.writes("/hit/draft")) == 1
    await ctx.close()
    await browser.close()
