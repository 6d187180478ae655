"""Fail closed: if the guard loses Chrome, every client connection is closed at once and
`ajantik cdp` exits non-zero. Signals stop it cleanly. Runs the real command."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import aiohttp
import orjson
import pytest
import websockets

from ajantik_cdp.browser.launch import start_chrome
from ajantik_cdp.core.record.record_schema import EndLine, StartLine
from ajantik_cdp.record.reader import load_record
from tests.support.cli import start_guard

pytestmark = [pytest.mark.browser, pytest.mark.process]


async def test_killing_chrome_closes_every_client_and_exits_non_zero(pw, tmp_path: Path
                                                                     ) -> None:
    chrome = start_chrome()  # its own Chromium: this test kills it
    record = tmp_path / "rec.jsonl"
    guard = start_guard("--upstream", chrome.http_url, "--record", str(record))
    try:
        browser = await pw.chromium.connect_over_cdp(guard.url)
        disconnected = asyncio.Event()
        browser.on("disconnected", lambda _b: disconnected.set())
        page = await (await browser.new_context()).new_page()
        assert await page.evaluate("1 + 1") == 2
        async with aiohttp.ClientSession() as http:
            version = orjson.loads(await (await http.get(guard.url + "/json/version")).read())
        raw = await websockets.connect(version["webSocketDebuggerUrl"], max_size=None)

        started = time.monotonic()
        chrome.kill()
        await asyncio.wait_for(disconnected.wait(), 10)
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(raw.recv(), 10)
        code = await asyncio.to_thread(guard.wait, 15)
        elapsed = time.monotonic() - started
        assert code == 3
        assert elapsed < 10
        assert "lost Chrome" in guard.rest_of_stderr()
        loaded = load_record(record)
        assert loaded.torn_line is None
        lines = loaded.lines
        assert isinstance(lines[0], StartLine)
        assert isinstance(lines[-1], EndLine) and lines[-1].reason == "lost Chrome"
    finally:
        if guard.proc.poll() is None:
            guard.proc.kill()
        chrome.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
async def test_signals_close_clients_flush_the_record_and_exit_zero(
        chrome, tmp_path: Path, sig: signal.Signals) -> None:
    record = tmp_path / "rec.jsonl"
    guard = start_guard("--upstream", chrome.http_url, "--record", str(record))
    try:
        async with aiohttp.ClientSession() as http:
            version = orjson.loads(await (await http.get(guard.url + "/json/version")).read())
        raw = await websockets.connect(version["webSocketDebuggerUrl"], max_size=None)
        guard.proc.send_signal(sig)
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(raw.recv(), 10)
        assert await asyncio.to_thread(guard.wait, 15) == 0
        lines = load_record(record).lines
        assert isinstance(lines[-1], EndLine)
        assert lines[-1].reason == f"signal {sig.name}"
    finally:
        if guard.proc.poll() is None:
            guard.proc.kill()
