"""The one place that carries out what the interception state machine decided.

``core/guard/interception.py`` says, for each paused request, continue, fail, fulfil, read the
answer's body, find a frame's URL, or report; this module sends those commands on the
guard's connection, feeds the answers of its reads back, and hands reports to
``reports.py``. It decides nothing.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Callable, Coroutine
from typing import Any

from ajantik_cdp.core.guard.interception import (
    Command,
    Continue,
    ContinueResponse,
    Fail,
    FindFrame,
    Fulfil,
    Interception,
    Probe,
    ReadBody,
    ReportBlock,
    ReportRequest,
    ReportSent,
)
from ajantik_cdp.core.record.record_schema import now_iso
from ajantik_cdp.proxy.cdp_connection import CdpConnection, CdpError, ConnectionLost
from ajantik_cdp.proxy.reports import Reports

Spawn = Callable[[Coroutine[Any, Any, None]], None]
READ_TIMEOUT = 5.0
# Chrome's words for a request it no longer holds (measured on Chrome 156: after the page
# that sent it closed, and after the request was let go).
NOT_HELD = "Invalid InterceptionId"
Report = ReportBlock | ReportSent | ReportRequest


class Interceptor:
    def __init__(self, machine: Interception, conn: CdpConnection, reports: Reports,
                 spawn: Spawn) -> None:
        self.machine = machine
        self.conn = conn
        self.reports = reports
        self.spawn = spawn

    def on_paused(self, session_id: str | None, params: dict[str, Any]) -> None:
        self.carry_out(self.machine.paused(session_id, params, now_iso()))

    def target_gone(self, target_id: str) -> None:
        self.carry_out(self.machine.target_gone(target_id))

    def stop(self, why: str) -> None:
        """Before the connection closes: what the guard still holds is carried out and
        reported now (not on the next turn of the loop: the record closes soon after),
        and the record is told how many lines the guard owed."""
        self.carry_out(self.machine.stop(why, connected=not self.conn.closed.is_set()),
                       at_once=True)
        if self.reports.writer is not None:
            self.reports.writer.paused = self.machine.owed

    def carry_out(self, commands: list[Command], at_once: bool = False) -> None:
        reports: list[Report] = []
        for command in commands:
            if isinstance(command, Continue):
                params: dict[str, Any] = {"requestId": command.request_id}
                if command.intercept_response:
                    params["interceptResponse"] = True
                self._post("Fetch.continueRequest", params, command.session_id)
            elif isinstance(command, Fail):
                self._post("Fetch.failRequest", {"requestId": command.request_id,
                                                 "errorReason": command.reason},
                           command.session_id)
            elif isinstance(command, Fulfil):
                answer = command.answer
                self._post("Fetch.fulfillRequest", {
                    "requestId": command.request_id,
                    "responseCode": answer.status,
                    "responsePhrase": answer.phrase,
                    "responseHeaders": [{"name": n, "value": v} for n, v in answer.headers],
                    "body": base64.b64encode(answer.body).decode(),
                }, command.session_id)
            elif isinstance(command, ContinueResponse):
                self._post("Fetch.continueResponse", {"requestId": command.request_id},
                           command.session_id)
            elif isinstance(command, ReadBody):
                self.spawn(self._read_body(command))
            elif isinstance(command, FindFrame):
                self.spawn(self._find_frame(command))
            elif isinstance(command, Probe):
                self.spawn(self._probe(command))
            elif isinstance(command, ReportBlock | ReportSent | ReportRequest):
                reports.append(command)
        if reports and at_once:
            self._report(reports)
        elif reports:
            # Redacting and writing a line takes a while: only once what Chrome waits for
            # has gone out (the writer task was queued first).
            asyncio.get_running_loop().call_soon(self._report, reports)

    def _report(self, reports: list[Report]) -> None:
        for report in reports:
            if isinstance(report, ReportBlock):
                self.reports.network_block(report)
            elif isinstance(report, ReportSent):
                self.reports.request_sent(report)
            else:
                self.reports.request_done(report)

    def _post(self, method: str, params: dict[str, Any], session_id: str | None) -> None:
        self.conn.post(method, params, session_id)

    async def _read_body(self, command: ReadBody) -> None:
        body: bytes | None = None
        why = None
        try:
            got = await self.conn.send("Fetch.getResponseBody",
                                       {"requestId": command.request_id}, command.session_id)
            raw = got.get("body", "")
            body = base64.b64decode(raw) if got.get("base64Encoded") else raw.encode()
        except (CdpError, binascii.Error) as exc:
            why = str(exc)
        except TimeoutError:
            why = "Chrome did not answer Fetch.getResponseBody in time"
        except ConnectionLost:
            why = "the guard lost its connection to Chrome"
        self.carry_out(self.machine.body_read(command.session_id, command.request_id, body,
                                              why))

    async def _probe(self, command: Probe) -> None:
        await asyncio.sleep(command.delay)
        try:
            await self.conn.send("Fetch.getResponseBody", {"requestId": command.request_id},
                                 command.session_id, READ_TIMEOUT)
            gone, why = False, ""
        except CdpError as exc:
            # Any other refusal ("Can only get response body on requests captured after
            # headers received") means Chrome still holds it: its answer is to come.
            gone, why = NOT_HELD in str(exc), str(exc)
        except (ConnectionLost, TimeoutError):
            return  # the guard is stopping (or Chrome is gone): stop() answers it
        self.carry_out(self.machine.probed(command.session_id, command.request_id, gone,
                                           why))

    async def _find_frame(self, command: FindFrame) -> None:
        found: tuple[str | None, str | None] = (None, None)
        trees = await asyncio.gather(
            *(self._frame_url(session_id, command.frame_id)
              for _, session_id in command.candidates),
            return_exceptions=True)
        for (target_id, _), url in zip(command.candidates, trees, strict=True):
            if isinstance(url, str):
                found = (target_id, url)
                break
        self.carry_out(self.machine.frame_found(command.ticket, *found))

    async def _frame_url(self, session_id: str, frame_id: str) -> str | None:
        try:
            tree = await self.conn.send("Page.getFrameTree", None, session_id, READ_TIMEOUT)
        except (CdpError, ConnectionLost, TimeoutError):
            return None
        stack = [tree.get("frameTree", {})]
        while stack:
            node = stack.pop()
            frame = node.get("frame", {})
            if frame.get("id") == frame_id:
                return str(frame.get("url", ""))
            stack.extend(node.get("childFrames", []))
        return None
