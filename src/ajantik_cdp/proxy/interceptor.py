"""Carrying out, on one paused request, what the pure core decided.

Chrome pauses every non-static request on the guard's session. At the request stage the
core's ``plan_request`` says fail, fulfill (a fault) or continue, with or without
interception of the answer; at the response stage the system's answer is read for the
record and passed on, or replaced by the fault's status.
"""

from __future__ import annotations

import base64
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ajantik_cdp.core.faults import REASON_PHRASE, FaultKind
from ajantik_cdp.core.interception import (
    RequestPlan,
    Step,
    client_status_after_response,
    fault_headers,
    plan_request,
)
from ajantik_cdp.proxy.cdp_connection import CdpError
from ajantik_cdp.proxy.events import PausedRequest

if TYPE_CHECKING:
    from ajantik_cdp.proxy.guardian import Guardian, Target

_DEDUP_LIMIT = 20_000


@dataclass
class _Inflight:
    """A request continued with response interception: what the record line needs."""

    paused: PausedRequest
    plan: RequestPlan


def _fabricated(request_id: str, status: int, request_headers: dict[str, str]
                ) -> dict[str, Any]:
    """Fetch.fulfillRequest for an answer a fault makes up: the status, its reason phrase
    as the body (none for 204), and headers that let a cross-origin caller read it."""
    phrase = REASON_PHRASE.get(status, "")
    body = "" if status == 204 else phrase
    return {
        "requestId": request_id,
        "responseCode": status,
        "responsePhrase": phrase,
        "responseHeaders": fault_headers(request_headers, status),
        "body": base64.b64encode(body.encode()).decode(),
    }


class Interceptor:
    def __init__(self, guardian: Guardian) -> None:
        self.guardian = guardian
        self._inflight: dict[tuple[str, str], _Inflight] = {}
        self._seen_paused: OrderedDict[tuple[str, str, bool], None] = OrderedDict()

    def _first_time(self, key: tuple[str, str, bool]) -> bool:
        """Chrome can emit Fetch.requestPaused twice for one request; act once."""
        if key in self._seen_paused:
            return False
        self._seen_paused[key] = None
        if len(self._seen_paused) > _DEDUP_LIMIT:
            self._seen_paused.popitem(last=False)
        return True

    def on_paused(self, session_id: str, params: dict[str, Any]) -> None:
        g = self.guardian
        target = g.by_session.get(session_id)
        request_id = params.get("requestId", "")
        at_response = (
            params.get("responseStatusCode") is not None
            or params.get("responseErrorReason") is not None
        )
        if not self._first_time((session_id, request_id, at_response)):
            return
        if target is None:
            # A session the guardian no longer tracks: never let its request through.
            g.send(session_id, "Fetch.failRequest",
                   {"requestId": request_id, "errorReason": "BlockedByClient"})
            return
        paused = PausedRequest.from_params(target.target_id, target.target_type, target.url,
                                           params)
        if at_response:
            g.spawn(self._on_response(target, paused, params))
            return
        plan = plan_request(g.config, g.faults, paused.facts,
                            recording=g.events.writer is not None)
        if plan.step is Step.FAIL:
            g.send(session_id, "Fetch.failRequest",
                   {"requestId": request_id, "errorReason": "BlockedByClient"})
            g.spawn(g.events.network_block(g, target, paused, plan.decision))
        elif plan.step is Step.FULFILL:
            assert plan.status is not None
            g.send(session_id, "Fetch.fulfillRequest",
                   _fabricated(request_id, plan.status, paused.headers))
            g.spawn(g.events.request_done(
                g, target, paused, plan.fault, system=None, client_status=plan.status))
        else:
            params_out: dict[str, Any] = {"requestId": request_id}
            if plan.intercept_response:
                params_out["interceptResponse"] = True
                self._inflight[(session_id, request_id)] = _Inflight(paused, plan)
            g.send(session_id, "Fetch.continueRequest", params_out)

    async def _on_response(self, target: Target, paused: PausedRequest,
                           params: dict[str, Any]) -> None:
        g = self.guardian
        assert g.conn is not None
        sid = target.session_id
        request_id = paused.request_id
        inflight = self._inflight.pop((sid, request_id), None)
        error = params.get("responseErrorReason")
        if inflight is None:
            if error:
                g.send(sid, "Fetch.failRequest", {"requestId": request_id, "errorReason": error})
            else:
                g.send(sid, "Fetch.continueResponse", {"requestId": request_id})
            return
        fault = inflight.plan.fault
        if error:
            g.send(sid, "Fetch.failRequest", {"requestId": request_id, "errorReason": error})
            await g.events.request_done(
                g, target, inflight.paused, fault,
                system=g.events.system_error(error), client_status=None,
                client_error=error)
            return
        status = int(params["responseStatusCode"])
        headers = params.get("responseHeaders") or []
        body: bytes | None = None
        if not 300 <= status < 400:
            try:
                got = await g.conn.send("Fetch.getResponseBody", {"requestId": request_id}, sid)
                raw = got.get("body", "")
                body = base64.b64decode(raw) if got.get("base64Encoded") else raw.encode()
            except CdpError:
                body = None
        client_status = client_status_after_response(fault, status)
        if fault is FaultKind.PHANTOM_FAILURE:
            g.send(sid, "Fetch.fulfillRequest",
                   _fabricated(request_id, client_status, inflight.paused.headers))
        else:
            g.send(sid, "Fetch.continueResponse", {"requestId": request_id})
        await g.events.request_done(
            g, target, inflight.paused, fault,
            system=g.events.system_answer(status, headers, body),
            client_status=client_status)

