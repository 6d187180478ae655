"""The interception state machine: what the guard does with each request Chrome pauses.

Sans-I/O, in the manner of mitmproxy's layers: events go in (a paused request or
response, the answer to a read the machine asked for), commands come out (continue, fail,
fulfil, read the answer's body, find a frame's URL, report). The asyncio layer
(``proxy/interceptor.py``) sends the commands and feeds the answers back; it decides
nothing. The tests drive the machine as a conversation, with no browser.

One net, one decision. The guard enables Fetch on its *browser* session only: measured on
Chrome 156, that session pauses the requests of every target in every browser context,
including those of a tab nobody has attached to yet (opened with a URL from Chrome's own
port) and those sent while a tab closes (``keepalive``, ``sendBeacon``, ``fetchLater``,
some after ``Target.targetDestroyed``). It is also the outermost interceptor: a request a
client intercepts on its own session (``page.route``, a rewrite with
``Fetch.continueRequest``) reaches the guard only after the client let it go, in its final
form. So the net's pause is the one that decides. The guard's per-target sessions enable
Fetch with no patterns (which brings documents older than the guard under the net) and so
pause nothing; a pause that arrives on one anyway is let go untouched, because the net sees
the request next (measured: a request paused on a target session reaches the browser
session only after it is let go there). Chrome can emit the same pause twice on one
session; the repeat is dropped (``seen``). Per-target sessions remain for what needs a
target: page scripts, deny_clicks, and reading a frame's URL.

Which target and frame a request came from is read from the pause's ``frameId``: a page's
main frame, an out-of-process iframe and a shared or service worker have the target's id
as frame id, and a dedicated worker's requests carry its owner frame's. A frame inside a
page's process is looked up in that page's frame tree (``FindFrame``). When the request
is to be failed or answered by a fault, the lookup happens *before*: a failed navigation
commits Chrome's error page, and reading afterwards would name ``chrome-error://``.

Every recorded request has its line, whatever the page does next. Its line is reported
when it leaves (``ReportSent``: method, URL, body as sent), and completed by the answer
(``ReportRequest`` with ``sent``). Measured on Chrome 156: a page closed ~30 ms after a
``fetch`` POST cancels the request in Chrome while the system still receives it, and no
response stage ever comes (10 of 10 received, none answered). So when a page closes or
crashes, or a request names a target that is already gone, its requests still awaiting
their answer are probed (``Probe``: ``Fetch.getResponseBody``): Chrome answers "Invalid
InterceptionId" once it has dropped the request, and the answer is then recorded as lost,
with why; a request Chrome still holds (``keepalive``) is probed again until it answers.
A guard that stops answers what is still open as lost too (``stop``). ``owed`` counts the
requests that owe a request line, for the record's end line.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ajantik_cdp.core.guard.paused import (
    PausedRequest,
    PausedResponse,
    is_response_stage,
    read_request,
    read_response,
)
from ajantik_cdp.core.guard.request_plan import (
    MadeUpAnswer,
    RequestPlan,
    Step,
    client_status_after_response,
    made_up_answer,
    plan_request,
)
from ajantik_cdp.core.guard.targets import DOCUMENT_TYPES, Target, TargetBook
from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.faults import FaultKind, FaultState
from ajantik_cdp.core.policy.rules import Decision, Source

BLOCKED = "BlockedByClient"
# Pauses remembered to drop Chrome's repeats, requests awaiting their answer, frames whose
# page is known: bounded, because Chrome never says when a request was abandoned.
SEEN_KEPT = 20_000
INFLIGHT_KEPT = 20_000
FRAMES_KEPT = 4_096
UNKNOWN_TYPE = "unknown"
# Probing a request whose page is gone: soon after, then at this interval while Chrome
# still holds it (a keepalive request outlives its page).
PROBE_FIRST = 0.2
PROBE_EVERY = 1.0
# Off only in tests, to show what is lost without the request-stage line and the probes.
KEEP_EVERY_LINE = True
DROPPED = ("Chrome dropped the request before its answer came (its page closed or "
           "crashed: {})")
EVICTED = (f"more than {INFLIGHT_KEPT} recorded requests awaited their answers at once; "
           "the guard stopped waiting for the oldest")


# -- commands -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Continue:
    session_id: str | None
    request_id: str
    intercept_response: bool = False


@dataclass(frozen=True)
class Fail:
    session_id: str | None
    request_id: str
    reason: str = BLOCKED


@dataclass(frozen=True)
class Fulfil:
    session_id: str | None
    request_id: str
    answer: MadeUpAnswer


@dataclass(frozen=True)
class ContinueResponse:
    session_id: str | None
    request_id: str


@dataclass(frozen=True)
class ReadBody:
    """Fetch.getResponseBody; answer with ``body_read``."""

    session_id: str | None
    request_id: str


@dataclass(frozen=True)
class Probe:
    """After ``delay`` seconds, ask Chrome whether it still holds the request
    (``Fetch.getResponseBody``); answer with ``probed``."""

    session_id: str | None
    request_id: str
    delay: float


@dataclass(frozen=True)
class FindFrame:
    """Look ``frame_id`` up in the frame trees of these (target id, session id) pairs;
    answer with ``frame_found`` (the target holding it and the frame's URL, or None)."""

    ticket: int
    frame_id: str
    candidates: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Where:
    """Where a request came from, for the record: its target and its frame's URL."""

    target_id: str
    target_type: str
    frame_url: str


@dataclass(frozen=True)
class SystemReply:
    """What the system answered (or how the request failed on its way)."""

    status: int | None
    headers: dict[str, str]
    body: bytes | None
    error: str | None


@dataclass(frozen=True)
class ReportBlock:
    request: PausedRequest
    where: Where
    decision: Decision


@dataclass(frozen=True)
class ReportSent:
    """A recorded request on its way to the system: its line, pending its answer."""

    request: PausedRequest
    where: Where
    fault: FaultKind | None


@dataclass(frozen=True)
class ReportRequest:
    request: PausedRequest
    where: Where
    fault: FaultKind | None
    system: SystemReply | None
    client_status: int | None
    client_error: str | None = None
    sent: bool = False  # its ReportSent went out: this completes that line
    lost: str | None = None  # the answer never came, and why
    note: str | None = None  # what of the answer could not be read, and why


Command = (Continue | Fail | Fulfil | ContinueResponse | ReadBody | FindFrame | Probe
           | ReportBlock | ReportSent | ReportRequest)


def source_of(target: Target | None) -> Source:
    """Who made a request, from the target its pause names (its ``frameId`` is a worker's
    or an out-of-process frame's target id; a frame inside a page is not a target and so
    counts as that page's)."""
    if target is None:
        return Source.PAGE
    if target.url.startswith("chrome-extension://"):
        return Source.EXTENSION
    if target.target_type == "service_worker":
        return Source.SERVICE_WORKER
    return Source.PAGE


# -- the machine --------------------------------------------------------------------------

@dataclass
class _Flight:
    """One request between its first pause and its report."""

    request: PausedRequest
    plan: RequestPlan
    where: Where | None = None
    # Sent once ``where`` is known (a block or a fault's answer waits for the frame URL).
    on_where: list[Command] = field(default_factory=list)
    response: PausedResponse | None = None
    system: SystemReply | None = None
    client_status: int | None = None
    client_error: str | None = None
    answered: bool = False
    sent: bool = False  # its ReportSent went out
    probing: bool = False
    lost: str | None = None
    note: str | None = None


class Interception:
    def __init__(self, config: GuardConfig, faults: FaultState, targets: TargetBook,
                 recording: bool) -> None:
        self.config = config
        self.faults = faults
        self.targets = targets
        self.recording = recording
        self._seen: OrderedDict[tuple[str | None, str, bool, str], None] = OrderedDict()
        self._inflight: OrderedDict[tuple[str | None, str], _Flight] = OrderedDict()
        self._finding: dict[int, _Flight] = {}
        self._frame_owner: OrderedDict[str, str] = OrderedDict()
        self._tickets = 0
        self.owed = 0  # requests paused that owe a request line (the end line's "paused")

    @property
    def in_flight(self) -> int:
        """Requests continued and awaiting their answer (for tests and diagnostics)."""
        return len(self._inflight)

    def target_gone(self, target_id: str) -> list[Command]:
        """A target closed or crashed: probe each of its requests still awaiting their
        answer, and any whose target is no longer live."""
        if not KEEP_EVERY_LINE:
            return []
        out: list[Command] = []
        for flight in self._inflight.values():
            where = flight.where
            if flight.answered or flight.probing or where is None:
                continue
            if where.target_id == target_id or self._orphaned(where):
                out += self._probe(flight, PROBE_FIRST)
        return out

    def probed(self, session_id: str | None, request_id: str, gone: bool,
               why: str = "") -> list[Command]:
        """The answer to a ``Probe``: ``gone`` when Chrome no longer holds the request."""
        flight = self._inflight.get((session_id, request_id))
        if flight is None or flight.answered:
            return []
        if not gone:
            return [Probe(session_id, request_id, PROBE_EVERY)]
        return self._lose(flight, DROPPED.format(why or "it no longer knows the request"))

    def stop(self, why: str, connected: bool = True) -> list[Command]:
        """The guard is stopping: every request it holds gets its line now. A block or a
        fault still waiting for its frame's URL is carried out first while its connection
        is open (``connected``), and an answer still waiting for its body goes on without
        it. With the connection gone nothing can be carried out: Chrome lets a request
        paused by a closed connection go, so none is recorded as blocked, and a fault's
        request is recorded with its answer lost."""
        out: list[Command] = []
        for flight in list(self._finding.values()):
            req = flight.request
            flight.where = Where(req.frame_id or "", UNKNOWN_TYPE, "")
            if not connected and flight.plan.step is not Step.CONTINUE:
                self._inflight.pop((req.session_id, req.request_id), None)
                if flight.plan.step is Step.FULFILL and KEEP_EVERY_LINE:
                    flight.client_status = None
                    out += self._lose(flight, why)
                continue
            out += flight.on_where
            flight.on_where = []
            if flight.plan.step is Step.CONTINUE and not flight.answered and KEEP_EVERY_LINE:
                flight.answered, flight.lost = True, why
            out += self._report_if_done(flight)
        self._finding.clear()
        for flight in list(self._inflight.values()):
            if flight.answered or not KEEP_EVERY_LINE:
                continue
            if flight.response is not None:
                flight.note = f"its body was not read: {why}"
                out += self._answer(flight, flight.response, None)
            else:
                out += self._lose(flight, why)
        return out

    def _lose(self, flight: _Flight, why: str) -> list[Command]:
        flight.answered, flight.lost = True, why
        flight.system = None
        flight.client_status = None
        return self._report_if_done(flight)

    def _probe(self, flight: _Flight, delay: float) -> list[Command]:
        flight.probing = True
        req = flight.request
        return [Probe(req.session_id, req.request_id, delay)]

    def _orphaned(self, where: Where) -> bool:
        """Its target is unknown or gone: no page event will tell of its end."""
        return where.target_type == UNKNOWN_TYPE or self.targets.live(where.target_id) is None

    # -- events in ------------------------------------------------------------------------

    def paused(self, session_id: str | None, params: Mapping[str, Any],
               at: str) -> list[Command]:
        """A ``Fetch.requestPaused`` event; ``at`` is the time it arrived (ISO)."""
        at_response = is_response_stage(params)
        request_id = str(params.get("requestId", ""))
        if session_id is not None:
            # The guard's target sessions pause nothing (Fetch with no patterns). Should a
            # Chrome pause there anyway, letting the request go is safe: the net is the
            # outermost interceptor and sees it next, where it is decided.
            return [ContinueResponse(session_id, request_id) if at_response
                    else Continue(session_id, request_id)]
        url = str((params.get("request") or {}).get("url", ""))
        if not self._first_sighting((session_id, request_id, at_response, url)):
            return []
        if at_response:
            return self._on_response(read_response(session_id, params))
        return self._on_request(read_request(session_id, params, at))

    def frame_found(self, ticket: int, target_id: str | None,
                    frame_url: str | None) -> list[Command]:
        flight = self._finding.pop(ticket, None)
        if flight is None:
            return []
        req = flight.request
        target = self.targets.get(target_id) if target_id else None
        if target is not None and req.frame_id is not None:
            self._frame_owner[req.frame_id] = target.target_id
            while len(self._frame_owner) > FRAMES_KEPT:
                self._frame_owner.popitem(last=False)
        if target is None:
            flight.where = Where(req.frame_id or "", UNKNOWN_TYPE, frame_url or "")
        else:
            flight.where = Where(target.target_id, target.target_type,
                                 frame_url if frame_url is not None else target.url)
        out, flight.on_where = flight.on_where, []
        return out + self._report_if_done(flight)

    def body_read(self, session_id: str | None, request_id: str,
                  body: bytes | None, why: str | None = None) -> list[Command]:
        """``body`` None: it could not be read, and ``why`` (Chrome's words)."""
        flight = self._inflight.get((session_id, request_id))
        if flight is None or flight.response is None:
            # Evicted meanwhile (the table is bounded): the answer must still go on.
            return [ContinueResponse(session_id, request_id)]
        if flight.answered:
            return []
        if body is None:
            flight.note = f"its body could not be read: {why or 'Chrome gave none'}"
        return self._answer(flight, flight.response, body)

    # -- request stage --------------------------------------------------------------------

    def _first_sighting(self, key: tuple[str | None, str, bool, str]) -> bool:
        if key in self._seen:
            return False
        self._seen[key] = None
        if len(self._seen) > SEEN_KEPT:
            self._seen.popitem(last=False)
        return True

    def _on_request(self, req: PausedRequest) -> list[Command]:
        source = source_of(self.targets.get(req.frame_id) if req.frame_id else None)
        plan = plan_request(self.config, self.faults, req.facts(source),
                            recording=self.recording)
        flight = _Flight(req, plan)
        sid, rid = req.session_id, req.request_id
        if plan.step is Step.CONTINUE:
            out: list[Command] = [Continue(sid, rid, plan.intercept_response)]
            if not plan.intercept_response:
                return out  # nothing to report: no need to know where it came from
            self.owed += 1
            self._inflight[(sid, rid)] = flight
            while len(self._inflight) > INFLIGHT_KEPT:
                _, oldest = self._inflight.popitem(last=False)
                if not oldest.answered and KEEP_EVERY_LINE:
                    if oldest.where is None:
                        oldest.where = Where(oldest.request.frame_id or "", UNKNOWN_TYPE, "")
                    out += self._lose(oldest, EVICTED)
            # The answer takes a network round trip; the frame's URL is read meanwhile.
            find = self._locate(flight)
            return out + (find or self._report_if_done(flight))
        if plan.step is Step.FAIL:
            flight.on_where = [Fail(sid, rid)]
        else:
            assert plan.status is not None
            self.owed += 1
            answer = made_up_answer(plan.status, req.headers)
            flight.client_status = plan.status
            flight.answered = True
            flight.on_where = [Fulfil(sid, rid, answer)]
        find = self._locate(flight)
        if find:
            return find  # the request stays paused until the frame's URL is known
        out, flight.on_where = flight.on_where, []
        return out + self._report_if_done(flight)

    def _locate(self, flight: _Flight) -> list[Command]:
        """Set ``flight.where`` now if the target says it, or return the FindFrame."""
        req = flight.request
        frame = req.frame_id
        target = self.targets.get(frame) if frame is not None else None
        candidates: tuple[tuple[str, str], ...]
        if target is not None:
            if frame is None or frame == target.target_id or \
                    target.target_type not in DOCUMENT_TYPES:
                flight.where = Where(target.target_id, target.target_type, target.url)
                return []
            candidates = ((target.target_id, target.session_id),) if target.session_id \
                else ()
        elif frame is not None:
            owner = self.targets.live(self._frame_owner.get(frame, ""))
            if owner is not None and owner.session_id is not None:
                candidates = ((owner.target_id, owner.session_id),)
            else:
                candidates = self.targets.document_sessions()
        else:
            candidates = ()
        if not candidates or frame is None:
            flight.where = Where(frame or "", UNKNOWN_TYPE, "")
            return []
        self._tickets += 1
        self._finding[self._tickets] = flight
        return [FindFrame(self._tickets, frame, candidates)]

    # -- response stage -------------------------------------------------------------------

    def _on_response(self, resp: PausedResponse) -> list[Command]:
        flight = self._inflight.get((resp.session_id, resp.request_id))
        sid, rid = resp.session_id, resp.request_id
        if flight is None or flight.answered:
            # Not one the guard asked to see: pass it on as it is.
            return [Fail(sid, rid, resp.error) if resp.error else ContinueResponse(sid, rid)]
        if resp.error:
            flight.answered = True
            flight.system = SystemReply(None, {}, None, resp.error)
            flight.client_error = resp.error
            return [Fail(sid, rid, resp.error), *self._report_if_done(flight)]
        flight.response = resp
        if resp.status is not None and 300 <= resp.status < 400:
            return self._answer(flight, resp, None)  # a redirect has no body to read
        # The answer goes on only once its body is read: measured on Chrome 156, a continue
        # posted right behind the read often wins ("Can only get response body on requests
        # captured after headers received"), and the record would lose the body.
        return [ReadBody(sid, rid)]

    def _answer(self, flight: _Flight, resp: PausedResponse,
                body: bytes | None) -> list[Command]:
        sid, rid = resp.session_id, resp.request_id
        status = resp.status if resp.status is not None else 0
        fault = flight.plan.fault
        flight.answered = True
        flight.system = SystemReply(resp.status, resp.headers, body, None)
        flight.client_status = client_status_after_response(fault, status)
        out: list[Command]
        if fault is FaultKind.PHANTOM_FAILURE:
            out = [Fulfil(sid, rid, made_up_answer(flight.client_status,
                                                   flight.request.headers))]
        else:
            out = [ContinueResponse(sid, rid)]
        return out + self._report_if_done(flight)

    # -- reports --------------------------------------------------------------------------

    def _report_if_done(self, flight: _Flight) -> list[Command]:
        """The report due now: a block, the request's line as it leaves (and a probe if
        nothing will tell of its page's end), or its outcome."""
        if flight.where is None:
            return []
        req = flight.request
        if flight.plan.step is Step.FAIL:
            return [ReportBlock(req, flight.where, flight.plan.decision)]
        if not flight.answered:
            if flight.sent or not KEEP_EVERY_LINE:
                return []
            flight.sent = True
            out: list[Command] = [ReportSent(req, flight.where, flight.plan.fault)]
            if self._orphaned(flight.where):
                out += self._probe(flight, PROBE_FIRST)
            return out
        self._inflight.pop((req.session_id, req.request_id), None)
        return [ReportRequest(req, flight.where, flight.plan.fault, flight.system,
                              flight.client_status, flight.client_error, sent=flight.sent,
                              lost=flight.lost, note=flight.note)]
