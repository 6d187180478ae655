"""`ajantik cdp`: bad --fault flags (in-process), and the real guard process killed with
SIGKILL. The SIGKILL test drives its own Chromium, so killing the guard disturbs no other
test.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from ajantik_cdp.browser.launch import ChromeProcess, start_chrome_async
from ajantik_cdp.core.record.record_schema import RECORD_VERSION, RequestLine, StartLine
from tests.record.helpers import SEND_JS, read_record, requests_to, wait_for_record
from tests.support.cli import run
from tests.support.site import HitSite

AJANTIK = [sys.executable, "-c", "from ajantik_cdp.cli.main import main; main()"]


@pytest.mark.parametrize(("args", "needle"), [
    (["--fault", "explode:/api/"], "unknown fault kind 'explode'"),
    (["--fault", "phantom_success:(unclosed"], "does not compile"),
    (["--fault", "phantom_success"], "KIND:PATTERN"),
    (["--fault", "phantom_success:"], "needs a URL pattern"),
    (["--fault", "phantom_success:/x", "--fault-at", "0"], "--fault-at must be 1 or more"),
    (["--fault-at", "2"], "--fault-at needs --fault"),
])
def test_bad_fault_flags_give_one_line_and_exit_2(args: list[str], needle: str,
                                                  tmp_path: Path) -> None:
    # An upstream nobody listens on: the flags must be refused before any connection.
    result = run("cdp", "--upstream", "http://127.0.0.1:9", "--port", "0",
                 "--record", str(tmp_path / "r.jsonl"), *args)
    assert result.code == 2, result.stderr
    line = result.one_line_error()
    assert line.startswith("ajantik cdp: error: ") and needle in line
    assert not (tmp_path / "r.jsonl").exists()


@pytest_asyncio.fixture(loop_scope="session")
async def own_chrome() -> AsyncIterator[ChromeProcess]:
    chrome = await start_chrome_async()
    yield chrome
    await asyncio.to_thread(chrome.close)


async def _guard_port(proc: asyncio.subprocess.Process) -> tuple[int, list[str]]:
    assert proc.stderr is not None
    seen: list[str] = []
    while True:
        line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
        if not line:
            raise AssertionError("the guard exited before it was ready: " + "".join(seen))
        seen.append(line)
        found = re.search(r"skills connect to http://127\.0\.0\.1:(\d+)", line)
        if found:
            return int(found.group(1)), seen


@pytest.mark.browser
@pytest.mark.process
async def test_sigkilled_guard_leaves_a_valid_record(pw, own_chrome: ChromeProcess,
                                                     site: HitSite, tmp_path: Path) -> None:
    record_path = tmp_path / "killed.jsonl"
    proc = await asyncio.create_subprocess_exec(
        *AJANTIK, "cdp", "--upstream", own_chrome.http_url, "--port", "0",
        "--record", str(record_path), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port, _ = await _guard_port(proc)
        browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        ctx = await browser.new_context()
        page = await ctx.new_page()
        await page.goto(site.page("killed", SEND_JS))
        for n in range(3):
            assert await page.evaluate(f"post('/hit/steady/{n}', '{{\"n\": {n}}}')") == 200
        await wait_for_record(record_path, lambda r: len(requests_to(r, "/hit/steady/")) == 3)
        # A burst of writes in flight, then SIGKILL while the guard records them.
        await page.evaluate("() => { for (let i = 0; i < 60; i++) "
                            "fetch('/hit/burst/' + i, {method: 'POST', body: 'b' + i}); }")
        assert await site.wait_for(lambda: len(site.writes("/hit/burst/")) >= 5)
        proc.kill()
        await proc.wait()
        with contextlib.suppress(Exception):
            await ctx.close()
        with contextlib.suppress(Exception):
            await browser.close()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    raw = record_path.read_bytes()
    record = read_record(record_path)  # raises on any damage but a cut-short last line
    assert isinstance(record.start, StartLine)
    assert record.end is None  # SIGKILL: no chance to write it
    steady = requests_to(record, "/hit/steady/")
    assert [json.loads(ln.request_body.text or "") for ln in steady] == [
        {"n": 0}, {"n": 1}, {"n": 2}]
    # Every write recorded as answered really reached the server: the record never
    # invents one. A line written as its request left, whose answer line the kill cut
    # off, is read as lost, saying so: it may or may not have gone out.
    burst = requests_to(record, "/hit/burst/")
    hit_paths = {h.path for h in site.writes("/hit/burst/")}
    assert all(isinstance(ln, RequestLine) for ln in burst)
    assert {ln.url.removeprefix(site.a) for ln in burst if ln.answer == "given"} <= hit_paths
    assert all("the guard stopped before it wrote one" in (ln.why or "")
               for ln in burst if ln.answer == "lost")
    # And every write the server received has its line, but at most the one whose
    # continue had gone out to Chrome when the kill came, before its line was written.
    assert len(hit_paths - {ln.url.removeprefix(site.a) for ln in burst}) <= 1
    # Every complete line is whole JSON; at most the last one is incomplete.
    complete = raw.split(b"\n")[:-1]
    assert all(json.loads(chunk)["v"] == RECORD_VERSION for chunk in complete)

    shown = run("record", "show", str(record_path))
    assert shown.code == 0, shown.stderr
    assert "no end line" in shown.stderr
    assert "/hit/steady/2" in shown.stdout
    har_path = tmp_path / "killed.har"
    exported = run("record", "har", str(record_path), "-o", str(har_path))
    assert exported.code == 0, exported.stderr
    har = json.loads(har_path.read_text())
    assert len(har["log"]["entries"]) == len(record.requests)
