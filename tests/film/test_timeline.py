"""The film's timeline reads as a person's story whatever drives the page: one entry per
thing a person would call an action (navigate, click, type, key, upload, the skill's own
script), the client's plumbing folded into them, for Playwright, Puppeteer and
chrome-devtools-mcp through a real guard (issue 31: one run's timeline had 683 "action"
entries, 612 of them Playwright's own Runtime.callFunctionOn calls)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.player.view import film_view
from ajantik_cdp.proxy.film import FilmSettings
from ajantik_cdp.record.reader import load_record
from tests.conftest import GuardFactory, origin_rule
from tests.guard.test_node_clients import drive
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

FORM = """<body><form id=f onsubmit="event.preventDefault(); fetch('/hit/save', {method: 'POST',
 body: new FormData(this)}).then(r => document.getElementById('out').textContent =
 'saved:' + r.status)">
<label>Name <input id=name name=name></label>
<label>File <input id=file name=file type=file></label>
<button id=save type=submit>Save</button></form><p id=out></p></body>"""

# What a person did, in order: what every client's timeline must read as.
STORY = [r"navigate to http://127\.0\.0\.1:\d+/page/form", r"click at \(\d+, \d+\)",
         "type text", "key Tab", r"upload (1 file|files)",
         r"evaluate the skill's script \(\d+ characters, \d+ lines?\)",
         r"click at \(\d+, \d+\)"]


async def filmed_guard(guard: GuardFactory, site: HitSite, tmp_path: Path) -> Any:
    return await guard({"allow_writes": [origin_rule(site.a)]},
                       film=FilmSettings(tmp_path / "film", FilmPolicy(fps=0)))


def assert_the_story(record_path: Path, site: HitSite, client: str) -> None:
    record = load_record(record_path)
    view = film_view(record, "run")
    assert view is not None
    actions = [e for e in view.entries if e.kind == "action"]
    texts = [e.text for e in actions]
    assert len(texts) == len(STORY), (client, [(e.kind, e.text) for e in view.entries])
    for pattern, text in zip(STORY, texts, strict=True):
        assert re.fullmatch(pattern, text), (client, pattern, text)
    # The plumbing is not gone: the entries say how much of it each stands for.
    folded = sum(int(m.group(1)) for e in actions
                 if (m := re.match(r"after (\d+) calls? of ", e.note)))
    assert folded >= 5, (client, [e.note for e in actions])
    assert any(client in e.note for e in actions), (client, [e.note for e in actions])
    # The write is on the timeline between the actions, as the site saw it.
    assert [h.path for h in site.writes("save")] == ["/hit/save"]
    assert any(e.kind == "write" and "/hit/save" in e.text for e in view.entries)
    # Shapes, never text (the form's POST carries the name: that is the write's body).
    assert not any("Ada" in a.summary or "skill was here" in a.summary
                   for a in record.actions)


async def test_playwright_reads_as_a_persons_actions(pw: Any, guard: GuardFactory,
                                                     site: HitSite, tmp_path: Path) -> None:
    page_url = site.page("form", FORM)
    g = await filmed_guard(guard, site, tmp_path)
    upload = tmp_path / "statement.pdf"
    upload.write_bytes(b"%PDF-1.4 a statement")
    browser = await pw.chromium.connect_over_cdp(g.url)
    try:
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(page_url)
        await page.click("#name")
        await page.fill("#name", "Ada")
        await page.press("#name", "Tab")
        await page.set_input_files("#file", str(upload))
        await page.evaluate("() => { document.title = 'skill was here'; }")
        await page.click("#save")
        await page.wait_for_selector("text=saved:200")
        await context.close()
    finally:
        await browser.close()
    await g.server.shutdown("test", 1000)
    assert_the_story(g.record, site, "Playwright")


@pytest.mark.node
@pytest.mark.parametrize(("kind", "client"), [("puppeteer-form", "Puppeteer"),
                                              ("devtools-mcp-form", "chrome-devtools-mcp")])
async def test_puppeteer_and_chrome_devtools_mcp_read_the_same(
        kind: str, client: str, guard: GuardFactory, site: HitSite, tmp_path: Path) -> None:
    page_url = site.page("form", FORM)
    g = await filmed_guard(guard, site, tmp_path)
    assert await drive(kind, g.url, page_url) == {"shown": "saved:200"}
    await g.server.shutdown("test", 1000)
    assert_the_story(g.record, site, client)
