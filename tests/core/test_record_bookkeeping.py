"""The record's bookkeeping: every recorded request the guard paused has its line, and
every line's answer is there or named lost, whatever happens to its page.

Conversations first (the ways an answer can be lost, each as the machine sees it), then a
property: random requests with random fates, through the machine, the guard's own report
writer and record writer, read back with the reader. No browser (tests/record/
test_lost_answers.py shows the same through real Chromium and a real server).
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard import interception
from ajantik_cdp.core.guard.interception import (
    PROBE_EVERY,
    PROBE_FIRST,
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
from ajantik_cdp.core.guard.targets import TargetBook
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.faults import FaultState, parse_fault
from ajantik_cdp.core.record.completeness import fold
from ajantik_cdp.core.record.record_schema import (
    AnswerLine,
    BlockLine,
    EndLine,
    RequestLine,
    StartLine,
    SystemAnswer,
)
from ajantik_cdp.core.record.redaction import Redactor
from ajantik_cdp.proxy.reports import Reports
from ajantik_cdp.record.reader import load_record
from ajantik_cdp.record.writer import STOPPED_WHY, RecordWriter
from tests.core.conversation import AT, Conversation, Like, request, response
from tests.core.test_interception import FORM_PAGE, SAVE, SUBMIT, net, sent_of
from tests.support.examples import examples

CONFIG = {"deny": ["/submission"], "allow_writes": [r"^https://app\.test/"]}
GONE = "Invalid InterceptionId."


def machine(fault: str | None = None) -> Interception:
    book = TargetBook()
    book.attached("PAGE", "page", "S-PAGE", FORM_PAGE)
    return Interception(parse_config(CONFIG), FaultState(parse_fault(fault) if fault else None),
                        book, True)


def lost_like(why_part: str, sent: bool = True) -> Like:
    return Like(ReportRequest, lambda r: r.lost is not None and why_part in r.lost
                and r.sent is sent and r.system is None, f"lost ({why_part})")


# -- the ways an answer is lost, one by one ------------------------------------------------

def test_a_page_closed_before_the_answer_is_probed_and_its_answer_recorded_lost() -> None:
    m = machine()
    c = (Conversation(m)
         >> net(request("r1", SAVE))
         << Continue(None, "r1", True)
         << sent_of(SAVE))
    assert c
    m.targets.detached("S-PAGE")
    assert m.target_gone("PAGE") == [Probe(None, "r1", PROBE_FIRST)]
    assert m.target_gone("PAGE") == []  # already being probed
    out = m.probed(None, "r1", gone=True, why=GONE)
    assert len(out) == 1 and lost_like("Invalid InterceptionId").matches(out[0])
    assert m.in_flight == 0
    # A late answer (none comes, measured; should one) is passed on, not recorded twice.
    assert m.paused(None, response("r1", SAVE, 200), AT) == [ContinueResponse(None, "r1")]


def test_a_request_chrome_still_holds_is_probed_until_its_answer_comes() -> None:
    m = machine()
    m.paused(None, request("r1", SAVE), AT)
    m.targets.detached("S-PAGE")
    assert m.target_gone("PAGE") == [Probe(None, "r1", PROBE_FIRST)]
    # keepalive: Chrome still holds it ("Can only get response body on requests captured
    # after headers received"): ask again later.
    assert m.probed(None, "r1", gone=False) == [Probe(None, "r1", PROBE_EVERY)]
    assert m.paused(None, response("r1", SAVE, 201), AT) == [ReadBody(None, "r1")]
    out = m.body_read(None, "r1", b"{}")
    assert out[0] == ContinueResponse(None, "r1")
    report = out[1]
    assert isinstance(report, ReportRequest) and report.sent and report.lost is None
    assert m.probed(None, "r1", gone=True) == []  # answered meanwhile: nothing to lose


def test_a_request_naming_a_target_already_gone_is_probed_at_once() -> None:
    m = machine()
    m.targets.detached("S-PAGE")  # the net sees a request of a page already closed
    out = m.paused(None, request("r1", SAVE), AT)
    assert out[0] == Continue(None, "r1", True)
    assert isinstance(out[1], ReportSent)
    assert out[2] == Probe(None, "r1", PROBE_FIRST)


def test_a_body_that_cannot_be_read_is_recorded_as_unread_with_chromes_reason() -> None:
    m = machine()
    m.paused(None, request("r1", SAVE), AT)
    m.paused(None, response("r1", SAVE, 200), AT)
    out = m.body_read(None, "r1", None, "Fetch.getResponseBody: Invalid InterceptionId.")
    report = out[-1]
    assert isinstance(report, ReportRequest) and report.system is not None
    assert report.system.status == 200 and report.system.body is None
    assert report.note is not None and "Invalid InterceptionId" in report.note


def test_stopping_answers_every_open_request_and_carries_out_held_decisions() -> None:
    m = machine(fault="transient_error:/api/other")
    m.paused(None, request("open", SAVE), AT)  # sent, no answer yet
    m.paused(None, request("body", SAVE), AT)
    m.paused(None, response("body", SAVE, 200), AT)  # answer in, body not read yet
    # A denied write from a frame whose URL is still being looked up: still paused.
    finding = m.paused(None, request("deny", SUBMIT, frame="SUB"), AT)
    assert isinstance(finding[0], FindFrame)
    out = m.stop("the guard stopped")
    assert Fail(None, "deny") in out
    assert any(isinstance(c, ReportBlock) and c.request.request_id == "deny" for c in out)
    assert ContinueResponse(None, "body") in out
    body = next(c for c in out if isinstance(c, ReportRequest)
                and c.request.request_id == "body")
    assert body.lost is None and body.note is not None and "not read" in body.note
    opened = next(c for c in out if isinstance(c, ReportRequest)
                  and c.request.request_id == "open")
    assert lost_like("the guard stopped").matches(opened)
    assert m.in_flight == 0 and m.owed == 2


def test_requests_evicted_from_a_full_table_are_recorded_lost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interception, "INFLIGHT_KEPT", 1)
    m = machine()
    m.paused(None, request("r1", SAVE), AT)
    out = m.paused(None, request("r2", SAVE), AT)
    assert any(isinstance(c, ReportRequest) and c.request.request_id == "r1"
               and c.lost is not None for c in out)


# -- the record as a whole: a property ----------------------------------------------------

# What happens to one request: its answer comes (body read, or not), its page closes and
# Chrome drops it, its page closes and Chrome still holds it (keepalive) then answers, or
# it is still open when the guard stops. Faults and blocks are decided at once.
FATES = ["answered", "unread", "dropped", "held_then_answered", "open_at_stop"]
KINDS = ["write", "fault", "block", "subframe_write"]


@examples(40)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from(FATES)),
                min_size=1, max_size=10),
       st.randoms(use_true_random=False))
def test_every_paused_request_has_its_line_and_the_end_line_agrees(
        plan: list[tuple[str, str]], rnd: Any) -> None:
    m = machine(fault="transient_error:/api/fault")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.jsonl"
        writer = RecordWriter(path)
        writer.start(StartLine("t", "Chrome/156", "1.3", "0" * 64, None))
        reports = Reports(writer, Redactor(parse_config(CONFIG), b"k" * 16))
        probes: list[Probe] = []
        finds: list[FindFrame] = []

        def carry(out: list[Command]) -> None:
            for command in out:
                if isinstance(command, ReportSent):
                    reports.request_sent(command)
                elif isinstance(command, ReportRequest):
                    reports.request_done(command)
                elif isinstance(command, ReportBlock):
                    reports.network_block(command)
                elif isinstance(command, Probe):
                    probes.append(command)
                elif isinstance(command, FindFrame):
                    finds.append(command)

        # The fault fires once: later writes to its URL are plain writes.
        faulted = next((i for i, (kind, _) in enumerate(plan) if kind == "fault"), None)
        plan = [("write" if kind == "fault" and i != faulted else kind, fate)
                for i, (kind, fate) in enumerate(plan)]
        order = list(enumerate(plan))
        for i, (kind, _) in order:
            url = {"block": SUBMIT}.get(kind, "https://app.test/api/fault" if faulted
                                        is not None and i >= faulted else SAVE)
            frame = "SUB" if kind == "subframe_write" else "PAGE"
            carry(m.paused(None, request(f"r{i}", url, frame=frame), AT))
        rnd.shuffle(order)
        page_closed = False
        for i, (kind, fate) in order:
            rid = f"r{i}"
            if finds and rnd.random() < 0.7:
                find = finds.pop(0)
                carry(m.frame_found(find.ticket, "PAGE", FORM_PAGE + "#sub"))
            if kind in ("fault", "block") or fate == "open_at_stop":
                continue
            if fate in ("answered", "unread"):
                carry(m.paused(None, response(rid, SAVE, 200), AT))
                carry(m.body_read(None, rid, b"{}" if fate == "answered" else None, GONE))
            elif not page_closed:
                page_closed = True
                m.targets.detached("S-PAGE")
                carry(m.target_gone("PAGE"))
        for find in finds:  # a lookup always ends (the frame's page is gone: None)
            carry(m.frame_found(find.ticket, None, None))
        # Chrome's answers to the probes: dropped ones are gone, keepalive ones answer.
        fate_of = {f"r{i}": fate for i, (_, fate) in enumerate(plan)}
        for probe in list(probes):
            rid = probe.request_id
            if fate_of[rid] == "dropped":
                carry(m.probed(None, rid, gone=True, why=GONE))
            elif fate_of[rid] == "held_then_answered":
                carry(m.probed(None, rid, gone=False))
                carry(m.paused(None, response(rid, SAVE, 201), AT))
                carry(m.body_read(None, rid, b"{}"))
        carry(m.stop("the guard stopped"))
        writer.paused = m.owed
        writer.close("done")
        record = load_record(path)

    assert record.problems == ()
    assert len(record.requests) == m.owed
    blocks = [ln for ln in record.lines if isinstance(ln, BlockLine)]
    assert len(blocks) == sum(kind == "block" for kind, _ in plan)
    assert len(record.requests) == sum(kind != "block" for kind, _ in plan)
    assert all(ln.answer in ("given", "lost") for ln in record.requests)
    end = record.end
    assert isinstance(end, EndLine)
    assert end.counts["paused"] == len(record.requests)
    assert end.counts["lost"] == len(record.lost)
    # Every request whose answer never came, and only those, is named lost.
    lost_fates = {"dropped", "open_at_stop"}
    expected_lost = sum(kind in ("write", "subframe_write") and fate in lost_fates
                        for kind, fate in plan)
    assert len(record.lost) == expected_lost
    assert all(ln.why for _, ln in record.lost)
    assert STOPPED_WHY not in {ln.why for _, ln in record.lost}  # the guard answered first


def _request_line(seq: int, answer: str) -> RequestLine:
    from ajantik_cdp.core.record.record_schema import Body
    return RequestLine(seq=seq, target_id="T", target_type="page", frame_url="", method="POST",
                       url="https://app.test/api/save", resource_type="Fetch",
                       request_headers={}, request_body=Body(0, ""), system=None, fault=None,
                       client_status=None, answer=answer)  # type: ignore[arg-type]


def test_the_fold_names_each_way_a_record_disagrees_with_itself() -> None:
    start = StartLine("t", "Chrome/156", "1.3", "0" * 64, None)
    given = AnswerLine(seq=1, answer="given", system=SystemAnswer(200), client_status=200)
    whole = [(1, start), (2, _request_line(1, "pending")), (3, given),
             (4, EndLine("done", {"request": 1, "block": 0, "paused": 1, "lost": 0}))]
    assert fold(whole).problems == ()
    assert fold(whole).numbered[1][1].system == SystemAnswer(200)
    # Paused 3, one line: two lines lost on their way to the file.
    short = [*whole[:3], (4, EndLine("done", {"request": 1, "paused": 3, "lost": 0}))]
    assert any("paused 3" in p and "2 missing" in p for p in fold(short).problems)
    # A pending line never answered in a record that ended.
    open_ = [(1, start), (2, _request_line(1, "pending")),
             (3, EndLine("done", {"request": 1, "paused": 1, "lost": 0}))]
    folded = fold(open_)
    assert any("no answer line" in p for p in folded.problems)
    assert folded.lost[0][1].answer == "lost"
    # Killed (no end line): the open line is lost, and that is not a disagreement.
    killed = fold(open_[:2])
    assert killed.problems == () and len(killed.lost) == 1
    # An answer twice, or for nothing.
    twice = [(1, start), (2, _request_line(1, "pending")), (3, given), (4, given)]
    assert any("second time" in p for p in fold(twice).problems)
    assert any("no pending" in p for p in fold([(1, start), (2, given)]).problems)


def test_a_fulfilled_fault_is_one_whole_line_at_once() -> None:
    m = machine(fault="transient_error:/api/save")
    out = m.paused(None, request("r1", SAVE), AT)
    assert isinstance(out[0], Fulfil)
    assert isinstance(out[1], ReportRequest) and not out[1].sent and out[1].lost is None
    assert m.owed == 1


def test_with_the_connection_gone_nothing_held_is_recorded_as_blocked() -> None:
    m = machine(fault="transient_error:/api/save")
    m.paused(None, request("deny", SUBMIT, frame="SUB"), AT)
    m.paused(None, request("fault", SAVE, frame="SUB"), AT)
    out = m.stop("the guard lost Chrome", connected=False)
    assert not any(isinstance(c, ReportBlock | Fail | Fulfil) for c in out)
    [fault] = [c for c in out if isinstance(c, ReportRequest)]
    assert fault.lost == "the guard lost Chrome" and fault.client_status is None


def test_a_lost_answer_and_an_unseen_body_show_as_such_in_the_table_and_the_har(
        tmp_path: Path) -> None:
    from ajantik_cdp.core.record.record_schema import Body
    from ajantik_cdp.record.har import to_har
    from ajantik_cdp.record.table import rows

    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)
    writer.start(StartLine("t", "Chrome/156", "1.3", "0" * 64, None))
    pending = replace(_request_line(writer.next_seq(), "pending"),
                      request_body=Body(length=288, unseen="a file from disk left out"))
    writer.write(pending)
    writer.write(AnswerLine(seq=pending.seq, answer="lost", system=None, client_status=None,
                            why="the page closed"))
    writer.paused = 1
    writer.close("done")
    record = load_record(path)
    assert record.problems == ()
    [row] = rows(record)
    assert row.system == "answer lost" and row.body.startswith("not seen whole")
    [entry] = to_har(record)["log"]["entries"]
    assert entry["request"]["bodySize"] == -1
    assert "not seen by ajantik" in entry["request"]["postData"]["text"]
    assert entry["response"]["_error"] == "answer lost: the page closed"
