"""The pages a person reads, in real Chromium at phone (390 px) and desktop (1280 px)
width: the `test judge --html` page and the demo's report never scroll sideways (tables
scroll in their own boxes), carry a legend of the verdicts, damage and the gate, and show
each record line as one closed line that opens on a click or on a link to it. The demo is
filmed here: its report carries a player per run, its frames linked from the run
folders, not embedded."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from ajantik_cdp.cli.main import main
from ajantik_cdp.testrun.report.outputs import write_outputs
from tests.conftest import ChromeProcess
from tests.judge.conftest import TEMPLATE
from tests.support.demo_run import DemoRun
from tests.support.records import RecordBuilder

pytestmark = pytest.mark.browser

WIDTHS = (390, 1280)
# No space, no dash: nothing a browser may break a line at.
UNBROKEN = "z" * 420


def text_of(path: Path) -> str:
    return path.read_text()


def is_file(path: Path) -> bool:
    return path.is_file()


def judge_page(tmp_path: Path) -> Path:
    """A page built to be wide: long unbroken URLs, bodies and claims, a fault, damage."""
    rec = RecordBuilder(tmp_path / "record.jsonl",
                        fault={"kind": "phantom_success", "at": 1, "pattern": "PUT " + UNBROKEN})
    rec.exchange("GET", f"/api/records/A-1?view={UNBROKEN}",
                 answer={"record": {"status": "pending", "note": UNBROKEN}})
    rec.exchange("PUT", f"/api/records/A-1?trace={UNBROKEN}", sent={"status": "approved"},
                 reached=False, fault="phantom_success", client_status=204)
    rec.exchange("PUT", "/api/records/A-2", sent={"status": "approved", "memo": UNBROKEN},
                 answer={"record": {"status": "approved"}})
    report = tmp_path / "report.txt"
    report.write_text(f"A-1: done — {UNBROKEN}\nA-2: done\n")
    page = tmp_path / "verdicts.html"
    with pytest.raises(SystemExit):
        main(["test", "judge", "--adapter", str(TEMPLATE), "--record", str(rec.close()),
              "--message", str(report), "--html", str(page)])
    return page


@pytest_asyncio.fixture(loop_scope="session")
async def viewer(pw: Any, chrome: ChromeProcess) -> AsyncIterator[Any]:
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    yield browser
    await browser.close()


async def open_at(viewer: Any, page_path: Path, width: int) -> tuple[Any, Any]:
    phone = width < 600
    context = await viewer.new_context(viewport={"width": width, "height": 844},
                                       is_mobile=phone, has_touch=phone)
    page = await context.new_page()
    await page.goto(page_path.as_uri())
    return context, page


async def page_width(page: Any) -> tuple[int, int]:
    return await page.evaluate(
        "[document.documentElement.scrollWidth, window.innerWidth]")


async def assert_fits(page: Any, width: int) -> None:
    # Against the width asked for: a phone zooms out of a page too wide for it, and its
    # window.innerWidth then grows with the page.
    scroll, inner = await page_width(page)
    assert scroll <= width and inner == width, \
        f"the page scrolls sideways: {scroll} px (window {inner} px) at {width} px"


async def assert_readable(page: Any, width: int) -> None:
    await assert_fits(page, width)
    legend = page.locator("dl.legend")
    assert await legend.is_visible()
    text = await legend.inner_text()
    for words in ("silent wrong", "reported honestly", "over-cautious", "unscorable",
                  "damage", "gate"):
        assert words in text, words
    lines = page.locator("details.cited")
    assert await lines.count() > 0
    assert await page.evaluate(
        "[...document.querySelectorAll('details.cited')].every(d => !d.open)")
    assert not await lines.first.locator("pre").is_visible()


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_judge_page_on_a_phone_and_a_desktop(viewer: Any, tmp_path: Path,
                                                        width: int) -> None:
    context, page = await open_at(viewer, judge_page(tmp_path), width)
    try:
        await assert_readable(page, width)
        table = page.locator(".scroll").first
        # The verdict table is in a box of its own, which scrolls when it must.
        box = await table.bounding_box()
        assert box is not None and box["width"] <= width
        # A verdict's evidence link opens the record line it points to.
        link = page.locator('a[href="#run-line-3"]').first
        await link.click()
        target = page.locator("#run-line-3")
        assert await target.is_visible()
        assert await target.evaluate("p => p.closest('details').open")
        # A click on a closed line opens it.
        closed = await page.evaluate("[...document.querySelectorAll('details.cited')]"
                                     ".findIndex(d => !d.open)")
        assert closed >= 0
        other = page.locator("details.cited").nth(closed)
        await other.locator("summary").click()
        assert await other.evaluate("d => d.open")
        assert await other.locator("pre").is_visible()
        await assert_fits(page, width)  # still none once lines are open
    finally:
        await context.close()


@pytest.fixture(scope="module")
def demo_report(filmed_demo: DemoRun) -> Path:
    _, report = write_outputs(filmed_demo.outcome, filmed_demo.out, title="demo", intro="",
                              command=["ajantik", "demo"], conclusions=())
    return Path(report)


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_demo_report_on_a_phone_and_a_desktop(viewer: Any, demo_report: Path,
                                                         width: int) -> None:
    context, page = await open_at(viewer, demo_report, width)
    try:
        await assert_readable(page, width)
        # Every unit of the matrix is reachable: R-103's column is in its box, which
        # scrolls, instead of off the page.
        head = page.locator("th", has_text="R-103").first
        assert await head.count() == 1
        await head.scroll_into_view_if_needed()
        assert await head.is_visible()
        await assert_fits(page, width)
        assert "gate passes" in await page.locator("main").inner_text()
    finally:
        await context.close()


async def test_the_filmed_demo_report_has_a_player_per_run(viewer: Any, demo_report: Path
                                                           ) -> None:
    html = text_of(demo_report)
    assert "data:image/jpeg" not in html  # linked from the run folders: the page stays small
    context, page = await open_at(viewer, demo_report, 390)
    try:
        films = page.locator("[data-film]")
        assert await films.count() == 10  # two skills: a clean run and four faults each
        film = films.nth(3)
        await film.scroll_into_view_if_needed()
        screen = film.locator("img.screen")
        src = await screen.get_attribute("src") or ""
        assert src.startswith("runs/") and is_file(demo_report.parent / src)
        await page.wait_for_function(
            "i => i.complete && i.naturalWidth > 0", arg=await screen.element_handle())
        scrub = film.locator("input.scrub")
        last = int(await scrub.get_attribute("max") or "0")
        assert last >= 1  # a frame after each write, at least
        box = await scrub.bounding_box()
        assert box is not None
        await page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
        assert await scrub.input_value() == str(last)
        assert await screen.get_attribute("src") != src
        await assert_fits(page, 390)
        # The run's own verdict page, in its folder, carries the same player.
        run_page = demo_report.parent / src.split("/film/")[0] / "verdicts.html"
        assert 'data-film' in text_of(run_page)
    finally:
        await context.close()
