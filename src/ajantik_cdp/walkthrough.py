"""A self-contained tour of the guard: a local page, a headless Chromium, the guard in front,
and a skill that saves a draft (allowed) and then tries to submit (denied).

What it reports comes from the page server's own hit log, not from the guard or the skill.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from ajantik_cdp.browser.launch import start_chrome_async
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.record.record_schema import BlockLine, RequestLine
from ajantik_cdp.local_http import start_app
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions
from ajantik_cdp.record.reader import load_record

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Registry filing R-101</title></head>
<body>
<h1>Filing R-101</h1>
<button id="save">Save draft</button>
<button id="submit">Submit filing</button>
<p id="status" role="status">idle</p>
<script>
async function post(path, body) {
  const status = document.getElementById("status");
  try {
    const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                 body: JSON.stringify(body)});
    status.textContent = path + " answered " + r.status;
  } catch (e) {
    status.textContent = path + " failed: " + e.message;
  }
}
document.getElementById("save").onclick =
  () => post("/api/draft", {record: "R-101", name: "Ada Lovelace"});
document.getElementById("submit").onclick = () => post("/api/submission", {record: "R-101"});
</script>
</body></html>
"""


@dataclass
class Site:
    hits: list[tuple[str, str]] = field(default_factory=list)
    port: int = 0
    runner: web.AppRunner | None = None

    async def start(self) -> None:
        async def page(_: web.Request) -> web.Response:
            return web.Response(text=PAGE, content_type="text/html")

        async def api(request: web.Request) -> web.Response:
            self.hits.append((request.method, request.path))
            return web.json_response({"ok": True})

        app = web.Application()
        app.router.add_get("/", page)
        app.router.add_post("/api/{name}", api)
        self.runner, self.port = await start_app(app)

    async def stop(self) -> None:
        if self.runner:
            await self.runner.cleanup()


async def run_walkthrough(out_dir: Path, say: Callable[[str], None]) -> bool:
    from playwright.async_api import async_playwright

    record = out_dir / "ajantik-cdp.jsonl"
    site = Site()
    await site.start()
    origin = f"http://127.0.0.1:{site.port}"
    config_data = {"deny": ["/api/submission"], "allow_writes": [f"^{re.escape(origin)}/"],
                   "record": ["/api/"]}
    say(f"1. A local registry page is serving at {origin}/ and logs every write it receives.")
    chrome = await start_chrome_async()
    say(f"2. Headless Chromium is running; its debugging port is {chrome.port} (the skill "
        "is never told it).")
    options = GuardOptions(upstream=chrome.http_url, config=parse_config(config_data), port=0,
                           record_path=record, install_signal_handlers=False)
    ok = False
    try:
        async with running_guard(options, "walkthrough finished") as guard:
            say(f"3. The guard is in front with {config_data}.")
            say(f"   The skill connects to CDP_URL={guard.url}, as it would to Chrome.")
            async with async_playwright() as pw:
                browser = await pw.chromium.connect_over_cdp(guard.url)
                context = await browser.new_context()
                page = await context.new_page()
                await page.goto(origin + "/")
                status = page.get_by_role("status")
                await page.get_by_role("button", name="Save draft").click()
                await page.wait_for_function("document.getElementById('status').textContent "
                                             "!== 'idle'")
                saved = await status.text_content()
                await page.get_by_role("button", name="Submit filing").click()
                await page.wait_for_function("document.getElementById('status').textContent"
                                             ".startsWith('/api/submission')")
                submitted = await status.text_content()
                await context.close()
                await browser.close()
            draft_hits = site.hits.count(("POST", "/api/draft"))
            submit_hits = site.hits.count(("POST", "/api/submission"))
            say(f"4. The skill pressed 'Save draft'. The page says: {saved!r}.")
            say(f"   The site's own log has {draft_hits} POST /api/draft: the allowed write "
                "landed.")
            say(f"5. The skill pressed 'Submit filing'. The page says: {submitted!r}.")
            say(f"   The site's own log has {submit_hits} POST /api/submission: the denied write "
                "never left Chrome (net::ERR_BLOCKED_BY_CLIENT).")
            ok = draft_hits == 1 and submit_hits == 0 and "failed" in (submitted or "")
    finally:
        chrome.close()
        await site.stop()
    parsed = load_record(record).lines
    blocks = [ln for ln in parsed if isinstance(ln, BlockLine)]
    writes = [ln for ln in parsed if isinstance(ln, RequestLine)]
    say(f"6. The record {record} holds {counted(len(writes), 'recorded write')} and "
        f"{counted(len(blocks), 'block')}; see it with `ajantik record show`.")
    say("Result: " + ("the guard stopped the submission and let the draft through."
                      if ok else "UNEXPECTED: the walkthrough did not behave as described."))
    return ok


def main_sync(out_dir: Path, say: Callable[[str], None]) -> bool:
    return asyncio.run(run_walkthrough(out_dir, say))
