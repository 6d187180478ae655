"""The guard films what happened on its own session: frames for a page driven by
Playwright, a still within 500 ms after every write, block and fault line, the client's
actions without their text, and no frame of a ``redact`` URL."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ajantik_cdp.core.guard.film import STILLS_ONLY, FilmPolicy
from ajantik_cdp.core.record.record_schema import ActionLine, BlockLine, RequestLine
from ajantik_cdp.proxy.film import FilmSettings
from ajantik_cdp.record.reader import load_record
from tests.conftest import GuardFactory, origin_rule
from tests.film.pixels import dominant_colours
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

PAGE = """<body style="margin:0"><h1 id=h>Ready</h1><input id=name>
<input id=secret type=text>
<button id=go onclick="document.getElementById('h').textContent = 'Clicked ' + Date.now()">
Go</button>
<script>
async function post(p) { try { const r = await fetch(p, {method: 'POST', body: 'x'});
  return r.status } catch (e) { return 'error' } }
let n = 0; setInterval(() => { document.getElementById('h').textContent = 'tick ' + (++n) },
  50);
</script></body>"""


def when(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def is_jpeg(path: Path) -> bool:
    data = path.read_bytes()
    return data[:3] == b"\xff\xd8\xff" and data[-2:] == b"\xff\xd9"


async def write_block_and_fault(page: Any) -> None:
    """The three lines a still must follow: a write, a blocked write, a faulted one."""
    assert await page.evaluate("post('/hit/draft')") == 200
    assert await page.evaluate("post('/hit/denied-submission')") == "error"
    assert await page.evaluate("post('/hit/faulted')") == 500


async def test_playwright_page_is_filmed_with_a_still_after_each_write(
        pw, guard: GuardFactory, site: HitSite, tmp_path: Path) -> None:
    film = tmp_path / "film"
    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]},
                    fault="phantom_failure:/hit/faulted",
                    film=FilmSettings(film, FilmPolicy(fps=4)))
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.page("film", PAGE))
    await page.fill("#name", "Ada")
    await page.type("#secret", "hunter2-typed")
    await page.click("#go")
    await write_block_and_fault(page)
    await page.wait_for_timeout(1500)
    await ctx.close()
    await browser.close()
    await g.server.shutdown("test", 1000)

    record = load_record(g.record)
    assert record.version == 3  # version 3, film or not
    frames = record.frames
    screencast = [f for f in frames if f.cause == "screencast"]
    assert len(screencast) >= 3, frames
    for f in frames:
        assert is_jpeg(film / f.file), f
    # At most 4 a second per page, though the page changes 20 times a second. (The book
    # spaces frames on the guard's clock as they arrive; the record keeps Chrome's paint
    # times, which arrive bunched, so the rate is checked over the whole film.)
    for page_id in {f.target_id for f in screencast}:
        times = sorted(when(f.time) for f in screencast if f.target_id == page_id)
        span = (times[-1] - times[0]).total_seconds()
        assert len(times) <= 4 * span + 2, (len(times), span)

    moments = [ln for ln in record.lines if isinstance(ln, BlockLine)
               or (isinstance(ln, RequestLine) and ln.method == "POST")]
    assert len(moments) == 3
    for line in moments:
        stills = [f for f in frames if f.after_seq == line.seq]
        assert len(stills) == 1, (line.seq, [(f.cause, f.after_seq, f.time) for f in frames])
        delay = (when(stills[0].time) - when(line.time)).total_seconds()
        assert 0 <= delay <= 0.5, (line.seq, delay)

    actions = record.actions
    summaries = [a.summary for a in actions]
    assert any(s.startswith("navigate to http://127.0.0.1") for s in summaries), summaries
    assert any(s.startswith("click at") for s in summaries), summaries
    assert any(s.startswith("type text") for s in summaries), summaries
    raw = g.record.read_text()
    assert "hunter2" not in raw and "Ada" not in raw
    assert all(isinstance(a, ActionLine) for a in actions)
    assert record.end is not None and record.end.counts["frame"] == len(frames)



async def test_stills_only_a_picture_right_after_each_write_block_and_fault(
        pw, guard: GuardFactory, site: HitSite, tmp_path: Path) -> None:
    """The default of `test run` and `demo`: no screencast, a capture asked for right
    after each write, block and fault line, and none of a page at a ``redact`` URL."""
    film = tmp_path / "film"
    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)],
                     "redact": ["/page/login"]},
                    fault="phantom_failure:/hit/faulted",
                    film=FilmSettings(film, FilmPolicy(fps=STILLS_ONLY)))
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.page("film", PAGE))
    await write_block_and_fault(page)
    # A burst: each line still gets a picture taken after it.
    assert await page.evaluate("Promise.all([post('/hit/b1'), post('/hit/b2'), "
                               "post('/hit/b3')])") == [200, 200, 200]
    # Pictures from up to 1.5 s before a redacted page's commit are dropped too
    # (core/guard/film.py, HEARD_AT_COMMIT): leave the film page's stills out of that.
    await page.wait_for_timeout(1800)
    await page.goto(site.page("login", PAGE))
    assert await page.evaluate("post('/hit/from-login')") == 200
    await page.wait_for_timeout(500)
    await ctx.close()
    await browser.close()
    await g.server.shutdown("test", 1000)

    record = load_record(g.record)
    frames = record.frames
    assert frames and all(f.cause == "still" for f in frames), frames
    assert all(is_jpeg(film / f.file) for f in frames)
    assert not any("/page/login" in f.url for f in frames), frames
    moments = [ln for ln in record.lines if isinstance(ln, BlockLine)
               or (isinstance(ln, RequestLine) and ln.method == "POST")]
    assert len(moments) == 7
    for line in moments:
        stills = [f for f in frames if f.after_seq == line.seq]
        if isinstance(line, RequestLine) and line.url.endswith("/hit/from-login"):
            assert stills == [], "a still of the redacted login page was kept"
            continue
        assert len(stills) == 1, (line.seq, [(f.after_seq, f.time) for f in frames])
        delay = (when(stills[0].time) - when(line.time)).total_seconds()
        assert 0 <= delay <= 0.5, (line.seq, delay)
    assert record.end is not None and record.end.counts["frame"] == len(frames)


async def test_no_frame_of_a_redact_url(pw, chrome, guard: GuardFactory, site: HitSite,
                                        tmp_path: Path) -> None:
    film = tmp_path / "film"
    login = site.page("login", "<body style='background:#f00'><h1>Sign in</h1>"
                      "<script>setInterval(() => document.body.append('.'), 40)</script>")
    home = site.page("home", "<body style='background:#0f0'><h1>Home</h1>"
                     "<script>setInterval(() => document.body.append('.'), 40)</script>")
    g = await guard({"redact": ["/page/login"]}, film=FilmSettings(film, FilmPolicy(fps=10)))
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    for _ in range(3):
        await page.goto(home)
        await page.wait_for_timeout(400)
        await page.goto(login)
        await page.wait_for_timeout(400)
    await page.goto(home)
    await page.wait_for_timeout(400)
    await ctx.close()
    await browser.close()
    await g.server.shutdown("test", 1000)
    frames = load_record(g.record).frames
    assert any("/page/home" in f.url for f in frames)
    assert not any("/page/login" in f.url for f in frames)
    # The truth is in the pixels: no kept JPEG is mostly red.
    colours = await dominant_colours(pw, chrome.http_url, [film / f.file for f in frames])
    assert "red" not in colours, colours
    assert "green" in colours


async def test_a_write_from_a_popup_is_pictured_by_the_popup(
        pw, guard: GuardFactory, site: HitSite, tmp_path: Path) -> None:
    popup_url = site.page("popup", "<body><h1>Popup</h1><script>"
                          "fetch('/hit/from-popup', {method: 'POST', body: 'x'})</script>")
    g = await guard({}, film=FilmSettings(tmp_path / "film"))
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.page("opener", "<h1>Opener</h1>"))
    async with page.expect_popup() as popup_info:
        await page.evaluate(f"window.open({popup_url!r})")
    popup = await popup_info.value
    await popup.wait_for_load_state()
    assert await g.wait_for_line(lambda ln: isinstance(ln, RequestLine)
                                 and "/hit/from-popup" in ln.url)
    await page.wait_for_timeout(2000)  # a loaded machine paints a new tab late
    await ctx.close()
    await browser.close()
    await g.server.shutdown("test", 1000)
    record = load_record(g.record)
    write = next(r for r in record.requests if "/hit/from-popup" in r.url)
    stills = [f for f in record.frames if f.after_seq == write.seq]
    assert [f.target_id for f in stills] == [write.target_id]
    assert len(site.writes("/hit/from-popup")) == 1
