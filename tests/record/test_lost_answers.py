"""A write that reached the system always has its line, whatever its page does next.

Real Chromium, a real server on loopback whose own log is the truth of what arrived. Each
way of losing a line is first shown with the guard's request-stage line and probes turned
off (``KEEP_EVERY_LINE``: the guard as it was), where the server's log and the record
disagree and the record's end line says so; then with them, where every write the server
received has its line, its answer named lost with why, and the record agrees with itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
import pytest_asyncio
from aiohttp import web

from ajantik_cdp.core.guard import interception
from ajantik_cdp.local_http import start_app
from tests.conftest import GuardFactory, RunningGuard
from tests.record.helpers import SEND_JS, read_record, requests_to
from tests.support.waiting import eventually

pytestmark = pytest.mark.browser

PAGES = 4


@dataclass
class SlowSite:
    """Answers each write after ``?wait=`` seconds: time for its page to go away."""

    port: int = 0
    received: list[str] = field(default_factory=list)
    runner: web.AppRunner | None = None

    @property
    def page(self) -> str:
        return f"http://127.0.0.1:{self.port}/page"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/page", self._page)
        app.router.add_post("/save", self._save)
        self.runner, self.port = await start_app(app)

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=f"<html>{SEND_JS}</html>", content_type="text/html")

    async def _save(self, request: web.Request) -> web.Response:
        self.received.append((await request.read()).decode())
        await asyncio.sleep(float(request.query.get("wait", "0")))
        return web.json_response({"ok": True})


@pytest_asyncio.fixture(loop_scope="session")
async def slow() -> AsyncIterator[SlowSite]:
    site = SlowSite()
    await site.start()
    yield site
    assert site.runner is not None
    await site.runner.cleanup()


async def _stopped(g: RunningGuard) -> None:
    await g.server.shutdown("test done", 1000)


async def _close_right_after_posting(pw: object, g: RunningGuard, slow: SlowSite,
                                     tag: str) -> None:
    browser = await pw.chromium.connect_over_cdp(g.url)  # type: ignore[attr-defined]
    ctx = await browser.new_context()
    try:
        for i in range(PAGES):
            page = await ctx.new_page()
            await page.goto(slow.page)
            await page.evaluate(f"post('/save?wait=0.3', '{tag}-{i}'); 0")
            await asyncio.sleep(0.03)
            await page.close()
        # keepalive outlives its page: its answer comes, and is recorded as given.
        page = await ctx.new_page()
        await page.goto(slow.page)
        await page.evaluate(f"fetch('/save?wait=0.3', {{method: 'POST', body: '{tag}-ka', "
                            "keepalive: true}); 0")
        await asyncio.sleep(0.03)
        await page.close()
        assert await eventually(lambda: len([r for r in slow.received
                                             if r.startswith(tag)]) == PAGES + 1)
        await asyncio.sleep(1.5)  # the keepalive answer, the probes
    finally:
        await ctx.close()
        await browser.close()


async def test_a_page_closed_right_after_its_write_still_has_every_line(
        pw: object, guard: GuardFactory, slow: SlowSite,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interception, "KEEP_EVERY_LINE", False)
    before = await guard()
    await _close_right_after_posting(pw, before, slow, "off")
    await _stopped(before)
    record = read_record(before.record)
    assert len([r for r in slow.received if r.startswith("off")]) == PAGES + 1
    # The loss: the server received every write; the record lacks those whose page closed,
    # and its end line (paused, against the lines in the file) says so.
    before_lines = len(requests_to(record, "/save"))
    assert before_lines < PAGES + 1
    assert any("paused" in p and "missing" in p for p in record.problems)

    monkeypatch.setattr(interception, "KEEP_EVERY_LINE", True)
    after = await guard()
    await _close_right_after_posting(pw, after, slow, "on")
    await _stopped(after)
    record = read_record(after.record)
    lines = requests_to(record, "/save")
    assert sorted(ln.request_body.text or "" for ln in lines) == sorted(
        r for r in slow.received if r.startswith("on"))
    assert record.problems == ()
    keepalive = next(ln for ln in lines if ln.request_body.text == "on-ka")
    assert keepalive.answer == "given" and keepalive.system is not None
    assert keepalive.system.status == 200
    # A page closed in time drops its request (most of them, measured); one whose answer
    # came first has it. Either way the line is there and says which.
    closed = [ln for ln in lines if ln is not keepalive]
    lost = [ln for ln in closed if ln.answer == "lost"]
    assert lost and all("Chrome dropped the request" in (ln.why or "") for ln in lost)
    assert all(ln.system is not None and ln.system.status == 200
               for ln in closed if ln.answer == "given")
    assert record.end is not None and record.end.counts["paused"] == PAGES + 1
    assert record.end.counts["lost"] == len(lost)
    print(f"page closed after its write: without, {before_lines} of {PAGES + 1} received "
          f"writes recorded; with, {len(lines)} of {PAGES + 1} ({len(lost)} lost)")


async def _write_then(pw: object, g: RunningGuard, slow: SlowSite, tag: str,
                      then: str) -> None:
    """A write the server holds for 3 s, then the guard stops or the renderer crashes."""
    browser = await pw.chromium.connect_over_cdp(g.url)  # type: ignore[attr-defined]
    ctx = await browser.new_context()
    try:
        page = await ctx.new_page()
        await page.goto(slow.page)
        await page.evaluate(f"post('/save?wait=3', '{tag}'); 0")
        assert await eventually(lambda: tag in slow.received)
        if then == "crash":
            cdp = await ctx.new_cdp_session(page)
            # The page dies under the command: it fails, or never answers.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(cdp.send("Page.crash"), 5)
            await asyncio.sleep(1.0)  # the probe
        await _stopped(g)
    finally:
        # A crashed page's context may never finish closing: bounded, like the rest.
        for closing in (ctx.close(), browser.close()):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(closing, 10)


@pytest.mark.parametrize("then", ["stop", "crash"])
async def test_a_write_in_flight_when_the_guard_stops_or_the_renderer_crashes_has_its_line(
        pw: object, guard: GuardFactory, slow: SlowSite, monkeypatch: pytest.MonkeyPatch,
        then: str) -> None:
    monkeypatch.setattr(interception, "KEEP_EVERY_LINE", False)
    before = await guard()
    await _write_then(pw, before, slow, f"off-{then}", then)
    record = read_record(before.record)
    assert f"off-{then}" in slow.received
    assert requests_to(record, "/save") == []  # received, and no line

    monkeypatch.setattr(interception, "KEEP_EVERY_LINE", True)
    after = await guard()
    await _write_then(pw, after, slow, f"on-{then}", then)
    record = read_record(after.record)
    [line] = requests_to(record, "/save")
    assert line.request_body.text == f"on-{then}" and line.answer == "lost"
    why = "the guard stopped" if then == "stop" else "Chrome dropped the request"
    assert why in (line.why or "")
    assert record.problems == ()
