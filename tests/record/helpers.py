"""Shared by the record tests: open a page through a guard, and wait for record lines."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ajantik_cdp.core.record.record_schema import RequestLine
from ajantik_cdp.record.reader import LoadedRecord, parse_record

# A page helper every test page includes: send a write and report the status the page saw
# (or "error" for a network error), never throwing.
SEND_JS = """<script>
async function send(path, init) {
  try { const r = await fetch(path, init); return r.status; } catch (e) { return 'error'; }
}
function post(path, body, headers) {
  return send(path, {method: 'POST', body: body, headers: headers || {}});
}
</script>"""


@asynccontextmanager
async def guarded_page(pw: Any, guard_url: str, url: str,
                       **context_options: Any) -> AsyncIterator[Any]:
    browser = await pw.chromium.connect_over_cdp(guard_url)
    ctx = await browser.new_context(**context_options)
    try:
        page = await ctx.new_page()
        await page.goto(url)
        yield page
    finally:
        await ctx.close()
        await browser.close()


def read_record(path: Path) -> LoadedRecord:
    return parse_record(path, path.read_bytes())


async def wait_for_record(path: Path, predicate: Callable[[LoadedRecord], bool],
                          timeout: float = 10.0) -> LoadedRecord:
    """The record once ``predicate`` holds. The guard writes a request line after the
    answer came back, a moment after the page saw it; this waits, it asserts nothing."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        record = read_record(path)
        if predicate(record) or loop.time() > deadline:
            return record
        await asyncio.sleep(0.05)


def requests_to(record: LoadedRecord, path_part: str) -> list[RequestLine]:
    return [ln for ln in record.requests if path_part in ln.url]
