"""The interception state machine, as conversations: a paused event in, what to do out.

No browser: the events are the params Chrome sends with Fetch.requestPaused (as measured
on Chrome 156: on the browser session, with the target's id as frame id for a main frame),
and the answers to the reads the machine asks for.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.interception import (
    PROBE_FIRST,
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
    Where,
)
from ajantik_cdp.core.guard.targets import TargetBook
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.faults import FaultKind, FaultState, parse_fault
from ajantik_cdp.core.policy.rules import RequestFacts, decide
from tests.core.conversation import (
    BodyRead,
    Conversation,
    FrameFound,
    Like,
    Paused,
    Placeholder,
    request,
    response,
)
from tests.support.examples import examples

APP = "https://app.test"
FORM_PAGE = APP + "/form"
SAVE = APP + "/api/save"
SUBMIT = APP + "/submission"
CONFIG = {"deny": ["/submission"], "allow_writes": [r"^https://app\.test/"]}


def machine(config: dict[str, Any] | None = None, *, fault: str | None = None,
            recording: bool = True) -> Interception:
    book = TargetBook()
    book.attached("PAGE", "page", "S-PAGE", FORM_PAGE)
    return Interception(parse_config(CONFIG if config is None else config),
                        FaultState(parse_fault(fault) if fault else None), book, recording)


def net(params: dict[str, Any]) -> Paused:
    """A pause on the guard's browser session (the net): no session id."""
    return Paused(None, params)


def block_of(url: str, frame_url: str, target_type: str = "page") -> Like:
    return Like(ReportBlock, lambda r: (r.request.url, r.where.frame_url,
                                        r.where.target_type) == (url, frame_url, target_type),
                f"{url} in {frame_url}")


def sent_of(url: str) -> Like:
    """The request's line as it leaves, pending its answer."""
    return Like(ReportSent, lambda r: r.request.url == url, f"{url} sent")


def record_of(url: str, frame_url: str, status: int | None, client: int | None,
              fault: FaultKind | None = None) -> Like:
    def check(r: ReportRequest) -> bool:
        system = r.system.status if r.system else None
        return (r.request.url, r.where.frame_url, system, r.client_status, r.fault) == (
            url, frame_url, status, client, fault)
    return Like(ReportRequest, check, f"{url} {status}->{client}")


# -- allowed requests ------------------------------------------------------------------------

def test_an_allowed_write_without_a_record_is_only_continued() -> None:
    assert (Conversation(machine(recording=False))
            >> net(request("r1", SAVE))
            << Continue(None, "r1", intercept_response=False))


def test_a_read_is_continued_and_never_held_for_its_answer() -> None:
    assert (Conversation(machine())
            >> net(request("r1", APP + "/dashboard", method="GET", kind="Document"))
            << Continue(None, "r1"))


def test_a_recorded_write_is_passed_on_once_its_body_is_read_and_then_reported() -> None:
    m = machine()
    assert (Conversation(m)
            >> net(request("r1", SAVE))
            << Continue(None, "r1", intercept_response=True)
            << sent_of(SAVE)
            >> net(response("r1", SAVE, 200))
            << ReadBody(None, "r1")
            >> BodyRead("r1", b'{"ok": true}')
            << ContinueResponse(None, "r1")
            << record_of(SAVE, FORM_PAGE, 200, 200))
    assert m.in_flight == 0


def test_a_report_carries_the_request_and_the_systems_answer() -> None:
    m = machine()
    m.paused(None, request("r1", SAVE, body="draft=1"), "2026-12-01T10:00:00.000Z")
    assert m.paused(None, response("r1", SAVE, 201), "t") == [ReadBody(None, "r1")]
    out = m.body_read(None, "r1", b"saved")
    report = out[-1]
    assert isinstance(report, ReportRequest)
    assert report.request.body == b"draft=1" and report.request.method == "POST"
    assert report.request.paused_at == "2026-12-01T10:00:00.000Z"
    assert report.system is not None and report.system.body == b"saved"
    assert report.where == Where("PAGE", "page", FORM_PAGE)


def test_a_redirect_answer_has_no_body_to_read() -> None:
    assert (Conversation(machine())
            >> net(request("r1", SAVE))
            << Continue(None, "r1", True)
            << sent_of(SAVE)
            >> net(response("r1", SAVE, 303))
            << ContinueResponse(None, "r1")
            << record_of(SAVE, FORM_PAGE, 303, 303))


def test_a_request_that_fails_on_its_way_is_failed_with_chromes_reason_and_recorded() -> None:
    assert (Conversation(machine())
            >> net(request("r1", SAVE))
            << Continue(None, "r1", True)
            << sent_of(SAVE)
            >> net(response("r1", SAVE, error="ConnectionRefused"))
            << Fail(None, "r1", "ConnectionRefused")
            << Like(ReportRequest, lambda r: r.client_error == "ConnectionRefused"
                    and r.system is not None and r.system.error == "ConnectionRefused"))


def test_an_answer_the_guard_did_not_ask_for_is_passed_on() -> None:
    assert (Conversation(machine())
            >> net(response("stranger", SAVE, 200))
            << ContinueResponse(None, "stranger"))


def test_an_unread_body_is_recorded_as_absent_but_still_passed_on() -> None:
    assert (Conversation(machine())
            >> net(request("r1", SAVE))
            << Continue(None, "r1", True)
            << sent_of(SAVE)
            >> net(response("r1", SAVE, 200))
            << ReadBody(None, "r1")
            >> BodyRead("r1", None)
            << ContinueResponse(None, "r1")
            << Like(ReportRequest, lambda r: r.system is not None and r.system.body is None))


# -- blocks ------------------------------------------------------------------------------------

def test_a_denied_write_from_the_main_frame_is_failed_and_names_the_page() -> None:
    assert (Conversation(machine())
            >> net(request("r1", SUBMIT))
            << Fail(None, "r1", "BlockedByClient")
            << block_of(SUBMIT, FORM_PAGE))


def test_a_denied_form_post_from_a_subframe_waits_for_the_frame_url_before_failing() -> None:
    # A failed navigation commits chrome-error://chromewebdata/ in its frame: the frame's
    # URL is read while the request is still held, so the block names the form's page.
    ticket = Placeholder()
    m = machine()
    assert (Conversation(m)
            >> net(request("r1", SUBMIT, kind="Document", frame="SUB"))
            << FindFrame(ticket, "SUB", (("PAGE", "S-PAGE"),))
            >> FrameFound(ticket, "PAGE", APP + "/inner-form")
            << Fail(None, "r1")
            << block_of(SUBMIT, APP + "/inner-form"))


def test_the_page_url_of_a_block_is_the_one_before_the_request_failed() -> None:
    m = machine()
    out = m.paused(None, request("r1", SUBMIT, kind="Document"), "t")
    # Chrome's error page commits only after the fail: what happened next changes nothing.
    m.targets.discovered("PAGE", "page", "chrome-error://chromewebdata/")
    assert out[0] == Fail(None, "r1")
    assert block_of(SUBMIT, FORM_PAGE).matches(out[1])


def test_a_write_outside_allow_writes_is_failed() -> None:
    assert (Conversation(machine())
            >> net(request("r1", "https://elsewhere.test/api"))
            << Fail(None, "r1")
            << Like(ReportBlock, lambda r: r.decision.reason == "allow_writes"))


def test_a_frame_learnt_once_is_looked_up_in_its_own_page_next_time() -> None:
    m = machine()
    m.targets.attached("OTHER", "page", "S-OTHER", APP + "/other")
    first = m.paused(None, request("r1", SUBMIT, frame="SUB"), "t")
    assert isinstance(first[0], FindFrame)
    assert set(first[0].candidates) == {("PAGE", "S-PAGE"), ("OTHER", "S-OTHER")}
    m.frame_found(first[0].ticket, "OTHER", APP + "/other/sub")
    again = m.paused(None, request("r2", SUBMIT, frame="SUB"), "t")
    assert isinstance(again[0], FindFrame) and again[0].candidates == (("OTHER", "S-OTHER"),)


def test_a_frame_nobody_finds_is_still_blocked() -> None:
    ticket = Placeholder()
    assert (Conversation(machine())
            >> net(request("r1", SUBMIT, frame="NOBODY"))
            << FindFrame(ticket, "NOBODY", (("PAGE", "S-PAGE"),))
            >> FrameFound(ticket, None, None)
            << Fail(None, "r1")
            << block_of(SUBMIT, "", "unknown"))


# -- the net: targets nobody attached, targets going away --------------------------------------

def test_a_tab_nobody_has_attached_to_is_decided_by_the_same_rules() -> None:
    # A tab opened with a URL from Chrome's own port: discovery saw it, no session yet.
    m = machine()
    m.targets.discovered("NEWTAB", "page", SUBMIT)
    assert (Conversation(m)
            >> net(request("r1", SUBMIT, method="GET", kind="Document", frame="NEWTAB",
                           body=None))
            << Fail(None, "r1")
            << Like(ReportBlock, lambda r: r.where.target_id == "NEWTAB"
                    and r.where.target_type == "page"))


def test_a_beacon_sent_after_its_tab_was_destroyed_is_blocked_and_named_after_it() -> None:
    m = machine()
    m.targets.detached("S-PAGE")
    m.targets.destroyed("PAGE")
    assert m.targets.live("PAGE") is None
    assert (Conversation(m)
            >> net(request("r1", SUBMIT, kind="Ping"))
            << Fail(None, "r1")
            << block_of(SUBMIT, FORM_PAGE))


def test_an_allowed_keepalive_write_from_a_closed_tab_is_still_recorded() -> None:
    m = machine()
    m.targets.detached("S-PAGE")
    assert (Conversation(m)
            >> net(request("r1", SAVE))
            << Continue(None, "r1", True)
            << sent_of(SAVE)
            << Probe(None, "r1", PROBE_FIRST)  # its page is gone: is it still held?
            >> net(response("r1", SAVE, 200))
            << ReadBody(None, "r1")
            >> BodyRead("r1", b"")
            << ContinueResponse(None, "r1")
            << record_of(SAVE, FORM_PAGE, 200, 200))


def test_a_request_with_no_frame_is_decided_and_named_unknown() -> None:
    assert (Conversation(machine())
            >> net(request("r1", SUBMIT, frame=None))
            << Fail(None, "r1")
            << block_of(SUBMIT, "", "unknown"))


def test_a_service_worker_request_is_named_after_the_worker() -> None:
    m = machine()
    m.targets.attached("SW", "service_worker", "S-SW", APP + "/sw.js")
    assert (Conversation(m)
            >> net(request("r1", SUBMIT, frame="SW"))
            << Fail(None, "r1")
            << block_of(SUBMIT, APP + "/sw.js", "service_worker"))


def test_a_service_worker_get_of_a_denied_url_is_a_page_load() -> None:
    """``fetch(event.request)`` of a navigation reaches the net as a GET of type XHR from
    the worker: nothing tells it from a read, so every request a site's worker makes to
    a denied URL is failed."""
    m = machine()
    m.targets.attached("SW", "service_worker", "S-SW", APP + "/sw.js")
    assert (Conversation(m)
            >> net(request("r1", SUBMIT, method="GET", kind="XHR", frame="SW", body=None))
            << Fail(None, "r1")
            << block_of(SUBMIT, APP + "/sw.js", "service_worker"))


def test_a_page_get_of_a_denied_url_stays_a_read() -> None:
    assert (Conversation(machine())
            >> net(request("r1", SUBMIT, method="GET", kind="XHR", body=None))
            << Continue(None, "r1"))


def test_an_extension_worker_is_held_to_deny_only() -> None:
    m = machine()
    ext = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
    m.targets.attached("EXT", "service_worker", "S-EXT", ext + "/bg.js")
    own_server = "https://extension-vendor.example/api/sync"
    assert (Conversation(m)
            >> net(request("r1", own_server, frame="EXT"))
            << Continue(None, "r1", True)
            << sent_of(own_server)
            >> net(request("r2", SUBMIT, frame="EXT"))
            << Fail(None, "r2")
            << block_of(SUBMIT, ext + "/bg.js", "service_worker"))


def test_a_page_write_outside_allow_writes_is_still_failed_beside_an_extension() -> None:
    m = machine()
    m.targets.attached("EXT", "service_worker", "S-EXT", "chrome-extension://x/bg.js")
    assert (Conversation(m)
            >> net(request("r1", "https://extension-vendor.example/api/sync"))
            << Fail(None, "r1")
            << Like(ReportBlock, lambda r: r.decision.reason == "allow_writes", "block"))


# -- once per request ---------------------------------------------------------------------------

def test_a_pause_on_a_target_session_is_let_go_for_the_net_to_decide() -> None:
    # Target sessions enable Fetch with no patterns; were Chrome to pause there anyway,
    # the net (outermost) sees the request next and decides it there, once.
    m = machine()
    assert (Conversation(m)
            >> Paused("S-PAGE", request("t1", SUBMIT))
            << Continue("S-PAGE", "t1")
            >> Paused("S-PAGE", response("t1", SUBMIT, 200))
            << ContinueResponse("S-PAGE", "t1")
            >> net(request("n1", SUBMIT))
            << Fail(None, "n1")
            << block_of(SUBMIT, FORM_PAGE))


def test_a_repeated_pause_is_acted_on_once() -> None:
    assert (Conversation(machine())
            >> net(request("r1", SUBMIT))
            << Fail(None, "r1")
            << block_of(SUBMIT, FORM_PAGE)
            >> net(request("r1", SUBMIT)))


def test_a_redirect_hop_under_the_same_id_is_decided_again() -> None:
    hop = request("r1", APP + "/submission/done", method="GET", kind="Document",
                  redirected=True, body=None)
    assert (Conversation(machine())
            >> net(request("r1", APP + "/go", method="GET", kind="Document", body=None))
            << Continue(None, "r1")
            >> net(hop)
            << Fail(None, "r1")
            << Like(ReportBlock))


# -- faults ------------------------------------------------------------------------------------

def test_phantom_success_answers_204_without_sending_and_counts_the_write_once() -> None:
    m = machine(fault="phantom_success:/api/save")
    assert (Conversation(m)
            >> net(request("r1", SAVE))
            << Like(Fulfil, lambda f: f.answer.status == 204 and f.answer.body == b"")
            << record_of(SAVE, FORM_PAGE, None, 204, FaultKind.PHANTOM_SUCCESS)
            >> net(request("r1", SAVE)))
    assert m.faults.matching_writes == 1


def test_a_faulted_write_from_a_subframe_is_answered_only_once_its_frame_is_known() -> None:
    ticket = Placeholder()
    assert (Conversation(machine(fault="transient_error:/api/save"))
            >> net(request("r1", SAVE, frame="SUB"))
            << FindFrame(ticket, "SUB", (("PAGE", "S-PAGE"),))
            >> FrameFound(ticket, "PAGE", APP + "/sub")
            << Like(Fulfil, lambda f: f.answer.status == 503)
            << record_of(SAVE, APP + "/sub", None, 503, FaultKind.TRANSIENT_ERROR))


def test_phantom_failure_sends_the_write_and_tells_the_client_500() -> None:
    assert (Conversation(machine(fault="phantom_failure:/api/save", recording=False))
            >> net(request("r1", SAVE))
            << Continue(None, "r1", True)
            << sent_of(SAVE)
            >> net(response("r1", SAVE, 200))
            << ReadBody(None, "r1")
            >> BodyRead("r1", b"{}")
            << Like(Fulfil, lambda f: f.answer.status == 500)
            << record_of(SAVE, FORM_PAGE, 200, 500, FaultKind.PHANTOM_FAILURE))


def test_a_recorded_write_from_a_subframe_reports_once_both_answer_and_frame_are_in() -> None:
    ticket = Placeholder()
    assert (Conversation(machine())
            >> net(request("r1", SAVE, frame="SUB"))
            << Continue(None, "r1", True)
            << FindFrame(ticket, "SUB", (("PAGE", "S-PAGE"),))
            >> net(response("r1", SAVE, 200))
            << ReadBody(None, "r1")
            >> BodyRead("r1", b"ok")
            << ContinueResponse(None, "r1")
            >> FrameFound(ticket, "PAGE", APP + "/sub")
            << record_of(SAVE, APP + "/sub", 200, 200))


# -- properties -------------------------------------------------------------------------------

URLS = [SAVE, SUBMIT, APP + "/page", "https://elsewhere.test/x"]
METHODS = ["GET", "POST", "PUT"]
KINDS = ["Document", "Fetch", "Ping"]
FRAMES = ["PAGE", "SUB", None, "GONE"]


@examples(60)
@given(st.lists(st.tuples(st.sampled_from(URLS), st.sampled_from(METHODS),
                          st.sampled_from(KINDS), st.sampled_from(FRAMES),
                          st.integers(1, 3)), min_size=1, max_size=12),
       st.randoms(use_true_random=False))
def test_every_request_gets_exactly_one_verdict_and_a_denied_one_is_never_let_through(
        requests: list[tuple[str, str, str, str | None, int]], rnd: Any) -> None:
    m = machine()
    config = m.config
    verdicts: dict[str, list[object]] = {}
    events: list[tuple[str, dict[str, Any]]] = []
    for i, (url, method, kind, frame, repeats) in enumerate(requests):
        events += [(f"r{i}", request(f"r{i}", url, method=method, kind=kind, frame=frame))
                   ] * repeats
    rnd.shuffle(events)
    finds: list[FindFrame] = []

    def take(out: list[object]) -> None:
        for command in out:
            if isinstance(command, Continue | Fail | Fulfil):
                verdicts.setdefault(command.request_id, []).append(command)
            elif isinstance(command, FindFrame):
                finds.append(command)

    for _, params in events:
        take(m.paused(None, params, "t"))
        if finds and rnd.random() < 0.5:
            find = finds.pop(0)
            take(m.frame_found(find.ticket, "PAGE", APP + "/sub"))
    for find in finds:
        take(m.frame_found(find.ticket, "PAGE", APP + "/sub"))
    for i, (url, method, kind, _, _) in enumerate(requests):
        got = verdicts.get(f"r{i}", [])
        assert len(got) == 1, f"r{i}: {got}"
        blocked = decide(config, RequestFacts(method, url, kind)).blocked
        assert isinstance(got[0], Fail) == blocked


def test_a_pause_that_leaves_parts_of_the_body_out_says_so() -> None:
    from ajantik_cdp.core.guard.paused import post_body
    part = {"bytes": "aGVsbG8="}  # "hello"
    # Measured: a file set from disk pauses as an empty entry.
    body, unseen = post_body({"hasPostData": True, "postDataEntries": [part, {}, part]})
    assert body == b"hellohello" and unseen is not None and "1 of 3 parts" in unseen
    assert post_body({"hasPostData": True, "postDataEntries": [part]}) == (b"hello", None)
    body, unseen = post_body({"hasPostData": True})  # a streamed body: none of it
    assert body == b"" and unseen is not None
    assert post_body({"postData": "a=1"}) == (b"a=1", None)
    assert post_body({}) == (None, None)
