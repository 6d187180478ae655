"""Frames appear whatever drives the page (Puppeteer, a raw DevTools script), and the
player page works in real Chromium: the scrubber and the timeline move the picture, and
at 390 px the page never scrolls sideways."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest

from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.player.page import render_film_page
from ajantik_cdp.player.view import film_view
from ajantik_cdp.proxy.film import FilmSettings
from ajantik_cdp.record.reader import load_record
from tests.conftest import GuardFactory, origin_rule
from tests.guard.attacks import install
from tests.guard.test_node_clients import drive
from tests.support.direct_cdp import direct
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

TICKING = """<body><h1 id=h>0</h1><script>
let n = 0; setInterval(() => { document.getElementById('h').textContent = ++n }, 100);
</script></body>"""


def writes_have_stills(record_path: Path) -> int:
    record = load_record(record_path)
    writes = [r for r in record.requests if r.method == "POST"]
    assert writes
    for w in writes:
        assert any(f.after_seq == w.seq for f in record.frames), w
    return len(writes)


@pytest.mark.node
async def test_puppeteer_page_is_filmed(guard: GuardFactory, site: HitSite,
                                        tmp_path: Path) -> None:
    install(site)
    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]},
                    film=FilmSettings(tmp_path / "film"))
    assert await drive("puppeteer", g.url, site.a + "/page/blank") == \
        {"denied": "error", "allowed": 200}
    await g.server.shutdown("test", 1000)
    record = load_record(g.record)
    assert record.frames and all((tmp_path / "film" / f.file).is_file()
                                 for f in record.frames)
    assert writes_have_stills(g.record) == 1
    assert any(f.after_seq == b.seq for b in record.blocks for f in record.frames)
    assert any(a.method == "Runtime.callFunctionOn" or a.method == "Runtime.evaluate"
               for a in record.actions)


@pytest.mark.parametrize("flatten", [True, False], ids=["flat", "non-flat"])
async def test_raw_cdp_client_page_is_filmed(guard: GuardFactory, site: HitSite,
                                             tmp_path: Path, flatten: bool) -> None:
    """A raw client on a flat session, and an old-style one that wraps each command for
    the page in Target.sendMessageToTarget: frames, a still after the write, the
    navigation and the evaluate on the timeline under the page, no evaluated source."""
    g = await guard({}, film=FilmSettings(tmp_path / "film", FilmPolicy(fps=5)))
    url = site.page("ticking", TICKING)
    async with direct(g.url) as cdp:
        target = (await cdp.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        session = (await cdp.send("Target.attachToTarget",
                                  {"targetId": target, "flatten": flatten}))["sessionId"]
        ids = iter(range(1, 100))

        async def on_page(method: str, params: dict[str, object]) -> None:
            if flatten:
                await cdp.send(method, params, session)
                return
            await cdp.send("Target.sendMessageToTarget", {"sessionId": session, "message":
                           orjson.dumps({"id": next(ids), "method": method,
                                         "params": params}).decode()})

        await on_page("Page.navigate", {"url": url})
        await asyncio.sleep(1.5)
        await on_page("Runtime.evaluate", {
            "expression": "fetch('/hit/raw', {method: 'POST', body: 'secret-source-x'})"
                          ".then(r => r.status)", "awaitPromise": True})
        await site.wait_for(lambda: site.writes("/hit/raw"))
        await asyncio.sleep(1.0)
        await cdp.send("Target.closeTarget", {"targetId": target})
    await g.server.shutdown("test", 1000)
    record = load_record(g.record)
    mine = [f for f in record.frames if f.target_id == target]
    assert len([f for f in mine if f.cause == "screencast"]) >= 3
    assert writes_have_stills(g.record) == 1
    actions = [a for a in record.actions if a.target_id == target]
    assert [a.summary for a in actions][:1] == [f"navigate to {url}"]
    assert any(a.method == "Runtime.evaluate" for a in actions)
    assert "secret-source-x" not in "".join(a.summary for a in record.actions)
    assert len(site.writes("/hit/raw")) == 1


async def test_player_scrubber_timeline_and_phone_width(pw, chrome, guard: GuardFactory,
                                                        site: HitSite,
                                                        tmp_path: Path) -> None:
    g = await guard({"deny": ["denied"]}, film=FilmSettings(tmp_path / "film",
                                                            FilmPolicy(fps=4)))
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.page("ticking", TICKING))
    await page.wait_for_timeout(1500)
    await page.evaluate("fetch('/hit/denied-x', {method: 'POST'}).catch(() => 0)")
    await page.wait_for_timeout(800)
    await page.evaluate("fetch('/hit/long/" + "a" * 300 + "', {method: 'POST'})")
    await page.wait_for_timeout(800)
    await ctx.close()
    await browser.close()
    await g.server.shutdown("test", 1000)

    view = film_view(load_record(g.record), "run")
    assert view is not None and len(view.frames) >= 3
    html_path = tmp_path / "film.html"
    html_path.write_text(render_film_page("Film", view))
    assert "http://" not in html_path.read_text().split("<main>")[0]  # no fetched assets

    viewer = await pw.chromium.connect_over_cdp(chrome.http_url)
    try:
        for width in (390, 1280):
            vctx = await viewer.new_context(viewport={"width": width, "height": 800})
            vpage = await vctx.new_page()
            await vpage.goto(html_path.as_uri())
            scroll = await vpage.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, (width, scroll)
            screen = vpage.locator("img.screen")
            first = await screen.get_attribute("src")
            scrub = vpage.locator("input.scrub")
            box = await scrub.bounding_box()
            assert box is not None
            await vpage.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
            last = len(view.frames) - 1
            assert await scrub.input_value() == str(last)
            assert await screen.get_attribute("src") != first
            # A record line jumps to its frame.
            block = vpage.locator("li[data-frame]", has_text="BLOCKED").first
            target = int(await block.get_attribute("data-frame") or "-1")
            await block.locator("summary").click()
            assert await scrub.input_value() == str(target)
            want = await vpage.locator(".strip img").nth(target).get_attribute("src")
            assert await screen.get_attribute("src") == want
            assert await block.locator("pre").is_visible()  # expanded on click
            await vctx.close()
    finally:
        await viewer.close()

