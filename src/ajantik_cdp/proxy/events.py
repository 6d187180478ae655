"""Blocks and recorded requests, as the guard reports them: stderr and the record."""

from __future__ import annotations

import base64
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ajantik_cdp.core.faults import FaultKind
from ajantik_cdp.core.record_schema import BlockLine, RequestLine, SystemAnswer, now_iso
from ajantik_cdp.core.redaction import Redactor
from ajantik_cdp.core.rules import Decision, RequestFacts
from ajantik_cdp.record.writer import RecordWriter

if TYPE_CHECKING:
    from ajantik_cdp.proxy.guardian import Guardian, Target

log = logging.getLogger("ajantik.cdp")


@dataclass(frozen=True)
class PausedRequest:
    request_id: str
    target_id: str
    target_type: str
    target_url: str
    frame_id: str | None
    method: str
    url: str
    resource_type: str
    headers: dict[str, str]
    body: bytes | None
    is_redirect: bool
    paused_at: str

    @property
    def facts(self) -> RequestFacts:
        return RequestFacts(self.method, self.url, self.resource_type, self.is_redirect)

    @classmethod
    def from_params(cls, target_id: str, target_type: str, target_url: str,
                    params: Mapping[str, Any]) -> PausedRequest:
        req = params.get("request") or {}
        return cls(
            request_id=str(params.get("requestId", "")),
            target_id=target_id,
            target_type=target_type,
            target_url=target_url,
            frame_id=params.get("frameId"),
            method=str(req.get("method", "GET")),
            url=str(req.get("url", "")) + str(req.get("urlFragment", "")),
            resource_type=str(params.get("resourceType", "Other")),
            headers={str(k): str(v) for k, v in (req.get("headers") or {}).items()},
            body=_post_body(req),
            is_redirect=params.get("redirectedRequestId") is not None,
            paused_at=now_iso(),
        )


def _post_body(req: Mapping[str, Any]) -> bytes | None:
    entries = req.get("postDataEntries")
    if isinstance(entries, list) and entries:
        return b"".join(base64.b64decode(e.get("bytes", "")) for e in entries)
    data = req.get("postData")
    if isinstance(data, str):
        return data.encode()
    return None


class GuardEvents:
    def __init__(self, writer: RecordWriter | None, redactor: Redactor) -> None:
        self.writer = writer
        self.redactor = redactor

    def _seq(self) -> int:
        return self.writer.next_seq() if self.writer else 0

    async def network_block(self, guardian: Guardian, target: Target, paused: PausedRequest,
                            decision: Decision) -> None:
        frame_url = await guardian.frame_url(target, paused.frame_id)
        url = self.redactor.url(paused.url)
        log.warning("BLOCKED %s %s (%s) in %s %s", paused.method, url, decision.describe(),
                    target.target_type, target.target_id[:8])
        if self.writer:
            self.writer.write(BlockLine(
                seq=self._seq(), source="network", reason=decision.reason or "deny",
                rule=decision.rule.label if decision.rule else None,
                target_id=target.target_id, target_type=target.target_type,
                frame_url=self.redactor.url(frame_url), method=paused.method, url=url,
                resource_type=paused.resource_type,
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
        log.warning("BLOCKED %s on %r (deny_clicks %s) in %s", event, label, rule,
                    self.redactor.url(frame_url))
        if self.writer:
            self.writer.write(BlockLine(
                seq=self._seq(), source="click", reason="deny_clicks", rule=rule,
                target_id=target.target_id, target_type=target.target_type,
                frame_url=self.redactor.url(frame_url), label=label, event=event,
            ))

    def system_answer(self, status: int, headers: list[dict[str, str]],
                      body: bytes | None) -> _PendingAnswer:
        return _PendingAnswer(status, {h["name"]: h["value"] for h in headers}, body, None)

    def system_error(self, error: str) -> _PendingAnswer:
        return _PendingAnswer(None, {}, None, error)

    async def request_done(self, guardian: Guardian, target: Target, paused: PausedRequest,
                           fault: FaultKind | None, *, system: _PendingAnswer | None,
                           client_status: int | None, client_error: str | None = None) -> None:
        if fault is not None:
            log.warning("FAULT %s on %s %s: the client was answered %s", fault.value,
                        paused.method, self.redactor.url(paused.url),
                        client_status if client_status is not None else client_error)
        if not self.writer:
            return
        frame_url = await guardian.frame_url(target, paused.frame_id)
        red = self.redactor
        answer = None
        if system is not None:
            answer = SystemAnswer(
                status=system.status,
                headers=red.headers(system.headers),
                body=None if system.body is None else red.body(
                    paused.url, _content_type(system.headers), system.body),
                error=system.error,
            )
        self.writer.write(RequestLine(
            seq=self._seq(), target_id=target.target_id, target_type=target.target_type,
            frame_url=red.url(frame_url), method=paused.method, url=red.url(paused.url),
            resource_type=paused.resource_type, request_headers=red.headers(paused.headers),
            request_body=red.body(paused.url, _content_type(paused.headers), paused.body or b""),
            system=answer, fault=fault.value if fault else None, client_status=client_status,
            client_error=client_error, started=paused.paused_at,
        ))


@dataclass(frozen=True)
class _PendingAnswer:
    status: int | None
    headers: dict[str, str]
    body: bytes | None
    error: str | None


def _content_type(headers: Mapping[str, str]) -> str | None:
    return next((v for k, v in headers.items() if k.lower() == "content-type"), None)
