"""The guard's outgoing reports: the record's start, blocks and recorded requests, on stderr
and in the record.

Everything here is told what happened (by the interception state machine, the client gate
or a page script) and only formats and writes it; nothing here asks Chrome anything.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ajantik_cdp import __version__
from ajantik_cdp.core.guard.client_actions import ClientActions
from ajantik_cdp.core.guard.dialog_presses import RefusedDialog
from ajantik_cdp.core.guard.input_presses import PressDenial
from ajantik_cdp.core.guard.interception import ReportBlock, ReportRequest, ReportSent, Where
from ajantik_cdp.core.guard.paused import PausedRequest
from ajantik_cdp.core.guard.targets import Target
from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.faults import FaultKind, FaultSpec
from ajantik_cdp.core.policy.rules import Decision, RequestFacts
from ajantik_cdp.core.record.record_schema import (
    RECORD_VERSION,
    ActionLine,
    Answer,
    AnswerLine,
    BlockLine,
    Body,
    EscapedLine,
    RequestLine,
    StartLine,
    SystemAnswer,
)
from ajantik_cdp.core.record.redaction import Redactor
from ajantik_cdp.proxy.film import FilmSettings
from ajantik_cdp.proxy.upstream import Upstream
from ajantik_cdp.record.writer import RecordWriter

log = logging.getLogger("ajantik.cdp")


def start_record(path: Path, upstream: Upstream, config: GuardConfig,
                 fault: FaultSpec | None, film: FilmSettings | None) -> RecordWriter:
    """A new record at ``path`` with its start line: the one place a record begins, for
    the guard and for the camera that films with no guard (version 3, filmed or not)."""
    writer = RecordWriter(path, RECORD_VERSION, filmed=film is not None)
    writer.start(StartLine(
        guard_version=__version__,
        browser=upstream.browser,
        protocol_version=str(upstream.version.get("Protocol-Version", "")),
        config_sha256=config.sha256,
        fault=fault.as_data() if fault else None,
        film=None if film is None else film.start_data(path),
    ))
    return writer


class Reports:
    def __init__(self, writer: RecordWriter | None, redactor: Redactor) -> None:
        self.writer = writer
        self.redactor = redactor
        self.actions = False  # client actions on the timeline: on when the guard films
        self.client_actions = ClientActions()
        self.escaped = 0  # things denied that got through (escaped lines): exit non-zero
        # The seq of each request line written pending its answer, by Chrome's request id.
        self._pending: dict[tuple[str | None, str], int] = {}

    def _seq(self) -> int:
        return self.writer.next_seq() if self.writer else 0

    def network_block(self, report: ReportBlock) -> None:
        req, where, decision = report.request, report.where, report.decision
        url = self.redactor.url(req.url)
        log.warning("BLOCKED %s %s (%s) in %s %s", req.method, url, decision.describe(),
                    where.target_type, where.target_id[:8])
        if self.writer:
            self.writer.write(BlockLine(
                seq=self._seq(), source="network", reason=decision.reason or "deny",
                rule=decision.rule.label if decision.rule else None,
                target_id=where.target_id, target_type=where.target_type,
                frame_url=self.redactor.url(where.frame_url), method=req.method, url=url,
                resource_type=req.resource_type,
            ))

    def socket_block(self, target: Target, url: str, reason: str, rule: str) -> None:
        """A WebSocket Chrome's emulation rule refused (its refusal seen), or the page's
        own check refused before the constructor reached Chrome."""
        shown = self.redactor.url(url)
        log.warning("BLOCKED WebSocket %s (%s) in %s %s", shown, rule, target.target_type,
                    target.target_id[:8])
        if self.writer:
            self.writer.write(BlockLine(
                seq=self._seq(), source="network", reason=reason, rule=rule,
                target_id=target.target_id, target_type=target.target_type,
                frame_url=self.redactor.url(target.url), method="GET", url=shown,
                resource_type="WebSocket",
            ))

    def dialog_block(self, refused: RefusedDialog, target: Target | None) -> None:
        """A client's accept of a dialog deny_clicks denies, refused by the gate."""
        dialog = refused.dialog
        log.warning("BLOCKED %s on %r (%s) in %s", refused.event, dialog.message[:500],
                    refused.rule, self.redactor.url(dialog.url))
        if self.writer:
            self.writer.write(BlockLine(
                seq=self._seq(), source="click", reason="deny_clicks", rule=refused.rule,
                target_id=refused.target_id,
                target_type=target.target_type if target is not None else "page",
                frame_url=self.redactor.url(dialog.url), label=dialog.message[:500],
                event=refused.event,
            ))

    def press_block(self, denial: PressDenial, target_id: str, target: Target | None) -> None:
        """A client's press at a point on a control Chrome's tree names as denied,
        answered as done and never sent to Chrome."""
        url = target.url if target is not None else ""
        verb = {"mousePressed": "click", "touchStart": "touch"}.get(denial.event, denial.event)
        log.warning("BLOCKED %s on %r (%s) in %s: a client's %s, judged before Chrome saw it",
                    verb, denial.name[:500], denial.rule, self.redactor.url(url), denial.event)
        if self.writer:
            self.writer.write(BlockLine(
                seq=self._seq(), source="click", reason="deny_clicks", rule=denial.rule,
                target_id=target_id,
                target_type=target.target_type if target is not None else "page",
                frame_url=self.redactor.url(url), label=denial.name[:500],
                event=denial.event,
            ))

    def socket_escaped(self, target: Target, url: str, reason: str, rule: str, stage: str,
                       closed: str) -> None:
        """A WebSocket the rules refuse whose handshake Chrome sent anyway: it got
        through, and is never written as a block."""
        self.escaped += 1
        shown = self.redactor.url(url)
        log.error("GOT THROUGH: WebSocket %s (%s) in %s %s: the rules refuse it, but Chrome "
                  "sent its handshake (%s); %s", shown, rule, target.target_type,
                  target.target_id[:8], stage, closed)
        if self.writer:
            self.writer.write(EscapedLine(
                seq=self._seq(), source="websocket", reason=reason, rule=rule,
                target_id=target.target_id, target_type=target.target_type,
                frame_url=self.redactor.url(target.url), url=shown, stage=stage,
                closed=closed,
            ))

    def client_block(self, session_id: str | None, target_id: str | None, facts: RequestFacts,
                     decision: Decision) -> None:
        url = self.redactor.url(facts.url)
        log.warning("BLOCKED a client's rewrite of a paused request into %s %s (%s)",
                    facts.method, url, decision.describe())
        if self.writer:
            self.writer.write(BlockLine(
                seq=self._seq(), source="client", reason=decision.reason or "deny",
                rule=decision.rule.label if decision.rule else None, target_id=target_id,
                target_type=None, frame_url=None, method=facts.method, url=url,
                resource_type=facts.resource_type,
            ))

    def click_block(self, target: Target, *, rule: str, label: str, frame_url: str,
                    event: str) -> None:
        log.warning("BLOCKED %s on %r (%s) in %s", event, label, rule,
                    self.redactor.url(frame_url))
        if self.writer:
            self.writer.write(BlockLine(
                seq=self._seq(), source="click", reason="deny_clicks", rule=rule,
                target_id=target.target_id, target_type=target.target_type,
                frame_url=self.redactor.url(frame_url), label=label, event=event,
            ))

    def request_sent(self, report: ReportSent) -> None:
        """A recorded request as it leaves: its line now, pending its answer."""
        if not self.writer:
            return
        req = report.request
        seq = self._seq()
        self._pending[(req.session_id, req.request_id)] = seq
        self.writer.write(self._request_line(seq, report.request, report.where, report.fault,
                                             None, None, None, answer="pending"))

    def request_done(self, report: ReportRequest) -> None:
        req, fault = report.request, report.fault
        client_status = report.client_status
        if fault is not None:
            log.warning("FAULT %s on %s %s: the client was answered %s", fault.value,
                        req.method, self.redactor.url(req.url),
                        client_status if client_status is not None else report.client_error)
        if report.lost is not None:
            log.warning("LOST the answer to %s %s: %s", req.method,
                        self.redactor.url(req.url), report.lost)
        if not self.writer:
            return
        answer = self._answer(req.url, report)
        seq = self._pending.pop((req.session_id, req.request_id), None) if report.sent \
            else None
        if seq is not None:
            self.writer.write(AnswerLine(
                seq=seq, answer="lost" if report.lost is not None else "given", system=answer,
                client_status=client_status, client_error=report.client_error,
                why=report.lost or report.note))
            return
        self.writer.write(self._request_line(
            self._seq(), req, report.where, fault, answer, client_status, report.client_error,
            answer="lost" if report.lost is not None else "given",
            why=report.lost or report.note))

    def _answer(self, url: str, report: ReportRequest) -> SystemAnswer | None:
        system = report.system
        if system is None:
            return None
        red = self.redactor
        return SystemAnswer(
            status=system.status,
            headers=red.headers(system.headers),
            body=None if system.body is None else red.body(
                url, _content_type(system.headers), system.body),
            error=system.error,
        )

    def _request_line(self, seq: int, req: PausedRequest, where: Where,
                      fault: FaultKind | None, system: SystemAnswer | None,
                      client_status: int | None, client_error: str | None, *,
                      answer: Answer, why: str | None = None) -> RequestLine:
        red = self.redactor
        return RequestLine(
            seq=seq, target_id=where.target_id, target_type=where.target_type,
            frame_url=red.url(where.frame_url), method=req.method, url=red.url(req.url),
            resource_type=req.resource_type, request_headers=red.headers(req.headers),
            request_body=_sent_body(red, req),
            system=system, fault=fault.value if fault else None, client_status=client_status,
            client_error=client_error, started=req.paused_at, answer=answer, why=why,
        )

    def client_command(self, command: Mapping[str, Any] | None,
                       target_id: str | None) -> None:
        """A client's command on its way to Chrome, as the gate parsed it: an action line
        if it acts on a page."""
        if not self.actions or self.writer is None or command is None:
            return
        method, params = command.get("method"), command.get("params") or {}
        if not isinstance(method, str) or not isinstance(params, dict):
            return
        summary = self.client_actions.command(target_id, method, params, self.redactor.url)
        if summary is not None:
            self.writer.write(ActionLine(target_id=target_id, method=method, summary=summary))


def _sent_body(red: Redactor, req: PausedRequest) -> Body:
    """The body as sent, or, when Chrome's pause left parts out, none of it: what the
    guard did not see is never written as if it were the body (see ``paused.post_body``)."""
    if req.body_unseen is not None:
        return Body(length=len(req.body or b""), unseen=req.body_unseen)
    return red.body(req.url, _content_type(req.headers), req.body or b"")


def _content_type(headers: Mapping[str, str]) -> str | None:
    return next((v for k, v in headers.items() if k.lower() == "content-type"), None)
