"""Starting a guard in-process: parts come up in an order that leaves nothing to undo when
the user's setup is wrong, and a failed start leaves nothing running."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest

from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.record.record_schema import EndLine
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions, GuardStartError
from ajantik_cdp.record.reader import load_record

pytestmark = pytest.mark.browser


async def test_a_guard_that_cannot_listen_leaves_the_earlier_record_alone(
        chrome, tmp_path: Path) -> None:
    record = tmp_path / "ajantik-cdp.jsonl"
    record.write_text('{"v": 1, "kind": "start"}\n')
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        options = GuardOptions(upstream=chrome.http_url, config=parse_config({}), port=port,
                               record_path=record, install_signal_handlers=False)
        with pytest.raises(GuardStartError, match=f"port {port} on 127.0.0.1 is in use"):
            async with running_guard(options):
                pytest.fail("the guard started on a port in use")
    # The record of the run before is where it was, as it was; nothing new beside it.
    assert record.read_text() == '{"v": 1, "kind": "start"}\n'
    assert sorted(os.listdir(tmp_path)) == ["ajantik-cdp.jsonl"]


async def test_a_stopped_guard_frees_its_port_and_ends_its_record(chrome,
                                                                  tmp_path: Path) -> None:
    record = tmp_path / "r.jsonl"
    options = GuardOptions(upstream=chrome.http_url, config=parse_config({}), port=0,
                           record_path=record, install_signal_handlers=False)
    async with running_guard(options, "test finished") as guard:
        port = guard.port
        assert guard.record_path == record
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.close()
        await writer.wait_closed()
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", port)
    last = load_record(record).lines[-1]
    assert isinstance(last, EndLine) and last.reason == "test finished"
