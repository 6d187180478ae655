"""Audio and paint worklets run through the guard as they do on Chrome: a worklet target
has no Fetch domain, and left paused for it the page's ``addModule()`` never resolved."""

from __future__ import annotations

import pytest

from ajantik_cdp.core.guard.targets import install_plan
from tests.conftest import GuardFactory, origin_rule
from tests.support.site import HitSite

PAGE = """<script>
window.results = {};
const done = (key) => [() => results[key] = 'ok', (e) => results[key] = 'error ' + e];
new AudioContext().audioWorklet.addModule('/js/processor.js').then(...done('audio'));
CSS.paintWorklet.addModule('/js/painter.js').then(...done('paint'));
</script><div style="width: 8px; height: 8px; background: paint(dot)"></div>"""
SCRIPTS = {
    # A static import inside the worklet's module: fetched for the worklet, on the owner
    # document's loaders.
    "processor.js": "import '/js/helper.js';\n"
                    "registerProcessor('p', class extends AudioWorkletProcessor {\n"
                    "  process() { return true } })",
    "helper.js": "export const unit = 1;",
    "painter.js": "registerPaint('dot', class { paint(c) { c.fillRect(0, 0, 4, 4) } })",
}


async def _results(pw, cdp_url: str, page_url: str) -> dict[str, str]:
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(page_url)
    await page.wait_for_function("Object.keys(results).length == 2", timeout=10_000)
    results: dict[str, str] = await page.evaluate("results")
    await ctx.close()
    await browser.close()
    return results


@pytest.mark.browser
async def test_audio_and_paint_worklets_run_through_the_guard(
        pw, chrome, guard: GuardFactory, site: HitSite) -> None:
    site.scripts.update(SCRIPTS)
    url = site.page("worklets", PAGE)
    assert await _results(pw, chrome.http_url, url) == {"audio": "ok", "paint": "ok"}

    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]})
    assert await _results(pw, g.url, url) == {"audio": "ok", "paint": "ok"}


def test_a_worklet_is_released_without_the_net_and_other_worklet_kinds_are_not() -> None:
    plan = install_plan("worklet")
    assert not plan.join_net and not plan.auto_attach and not plan.exempt
    # Shared storage and auction worklets can reach the network on their own: they keep
    # the default (join the net, or stay paused if they refuse it).
    for kind in ("shared_storage_worklet", "auction_worklet"):
        assert install_plan(kind).join_net
