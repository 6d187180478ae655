"""How a worker's WebSocket check reaches the record (no browser: the guard's handler fed
the console events Chrome sends)."""

from __future__ import annotations

import asyncio
from typing import Any

from ajantik_cdp.core.guard.targets import Target
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.socket_rules import socket_plan
from ajantik_cdp.proxy.websocket_guard import CONSOLE_MARK, WebSocketGuard


class _Reports:
    def __init__(self) -> None:
        self.blocks: list[tuple[str, str]] = []

    def socket_block(self, target: Target, url: str, reason: str, rule: str) -> None:
        self.blocks.append((target.target_id, url))


def _report(n: Any, url: str, context: int = 1, kind: str = "debug") -> dict[str, Any]:
    return {"type": kind, "executionContextId": context,
            "args": [{"type": "string", "value": CONSOLE_MARK}, {"value": n},
                     {"type": "string", "value": url}]}


def _guard() -> tuple[WebSocketGuard, _Reports]:
    reports = _Reports()
    plan = socket_plan(parse_config({"deny": ["denied"]}))
    return WebSocketGuard(plan, reports), reports  # type: ignore[arg-type]


def test_a_worker_report_is_one_block_line_however_often_chrome_repeats_it() -> None:
    guard, reports = _guard()
    worker = Target("W1", "service_worker", "http://h/sw.js", session_id="S1")
    for _ in range(3):  # measured: Chrome sent one message three times
        assert guard.on_console(worker, _report(1, "ws://h/dEnIeD/x"))
    assert guard.on_console(worker, _report(2, "ws://h/dEnIeD/x"))  # a second refusal
    assert guard.on_console(worker, _report(1, "ws://h/dEnIeD/x", context=2))  # new instance
    assert reports.blocks == [("W1", "ws://h/dEnIeD/x")] * 3


def test_reports_that_are_not_a_workers_refusal_write_nothing() -> None:
    guard, reports = _guard()
    worker = Target("W1", "worker", "http://h/w.js", session_id="S1")
    page = Target("P1", "page", "http://h/", session_id="S2")
    # A page's own console cannot forge a line: documents report over a binding.
    assert not guard.on_console(page, _report(1, "ws://h/denied"))
    assert not guard.on_console(worker, _report(1, "ws://h/denied", kind="log"))
    assert not guard.on_console(worker, {"type": "debug", "args": [{"value": "hello"}]})
    # A forged report of an allowed URL is recognised but writes no block line.
    assert guard.on_console(worker, _report(1, "ws://h/allowed"))
    # Odd values from a worker's own script do not break the handler.
    assert guard.on_console(worker, _report({"x": 1}, "/denied-relative"))
    assert reports.blocks == [("W1", "ws://h/denied-relative")]


def test_the_workers_check_fails_its_install_unless_it_ran_to_the_end() -> None:
    from ajantik_cdp.proxy.websocket_guard import _checked

    async def run(answer: dict[str, Any]) -> BaseException | None:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        out = _checked(fut, "guarded")
        fut.set_result(answer)
        try:
            await out
        except RuntimeError as exc:
            return exc
        return None

    assert asyncio.run(run({"result": {"type": "string", "value": "guarded"}})) is None
    thrown = {"result": {"type": "object"},
              "exceptionDetails": {"text": "Uncaught", "exception": {
                  "description": "ReferenceError: URLPattern is not defined"}}}
    assert "URLPattern" in str(asyncio.run(run(thrown)))
