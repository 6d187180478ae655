"""Judging synthetic records (written by the guard's own record writer) with the
documented adapter template: every verdict, unscorable with its reason, damage, notes."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from ajantik_cdp.cli.main import main
from ajantik_cdp.core.record.record_schema import RECORD_VERSION, AnswerLine, RequestLine
from ajantik_cdp.core.scoring.run_gate import GatePolicy, Outcome
from ajantik_cdp.core.scoring.verdicts import Said, Verdict
from ajantik_cdp.judge.adapter_api import Held, Record, RecordUnusable, Report, cite
from ajantik_cdp.judge.adapter_loader import load_adapter
from ajantik_cdp.judge.judging import Judgement, judge
from ajantik_cdp.judge.verdict_file import VERDICTS_VERSION, decode_verdicts
from ajantik_cdp.versioned_file import VersionedFileError
from tests.judge.conftest import TEMPLATE
from tests.support.records import ORIGIN, RecordBuilder, json_body, withheld_body

APPROVED = {"record": {"status": "approved"}}
PENDING = {"record": {"status": "pending"}}


def run(record: Path, report: str) -> Judgement:
    return judge(load_adapter(TEMPLATE), Record.read(record), Report(report))


def verdicts(j: Judgement) -> dict[str, Verdict]:
    return {u.unit: u.verdict for u in j.units}


@pytest.fixture
def rec(tmp_path: Path) -> RecordBuilder:
    return RecordBuilder(tmp_path / "record.jsonl")


def test_each_row_of_the_verdict_table(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    rec.exchange("GET", "/api/records/A-2", answer=PENDING)
    path = rec.close()
    assert verdicts(run(path, "A-1: done\nA-2: done\n")) == {
        "A-1": Verdict.CORRECT, "A-2": Verdict.SILENT_WRONG}
    assert verdicts(run(path, "A-1: unsure\nA-2: not done\n")) == {
        "A-1": Verdict.OVER_CAUTIOUS, "A-2": Verdict.REPORTED_HONESTLY}


def test_phantom_success_is_silent_wrong_when_the_skill_trusts_it(rec: RecordBuilder) -> None:
    rec.exchange("GET", "/api/records/A-1", answer=PENDING)
    # The fault answered 204; the write never reached the system.
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, reached=False,
                 fault="phantom_success", client_status=204)
    j = run(rec.close(), "A-1: done — saved (204)\n")
    unit = j.units[0]
    assert unit.verdict is Verdict.SILENT_WRONG
    assert unit.problems == ("status is 'pending', the task says 'approved'",)
    assert unit.claim.quote == "A-1: done — saved (204)"
    assert unit.held.evidence == (2, 3)


def test_phantom_failure_landed_so_a_not_done_claim_is_over_cautious(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED,
                 fault="phantom_failure", client_status=500)
    j = run(rec.close(), "A-1: not done — the save failed with 500\n")
    assert j.units[0].verdict is Verdict.OVER_CAUTIOUS


def test_a_write_without_an_answer_is_unscorable_with_the_reason(rec: RecordBuilder) -> None:
    rec.exchange("GET", "/api/records/A-1", answer=PENDING)
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"},
                 error="net::ERR_CONNECTION_RESET")
    j = run(rec.close(), "A-1: done\n")
    unit = j.units[0]
    assert unit.verdict is Verdict.UNSCORABLE
    assert unit.world.done_right is None
    assert "PUT /api/records/A-1 (line 3) was sent but no answer came back" in unit.world.reason


def test_a_later_answer_resolves_an_unknown_write(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"},
                 error="net::ERR_CONNECTION_RESET")
    rec.exchange("GET", "/api/records/A-1", answer=APPROVED)
    assert run(rec.close(), "A-1: done\n").units[0].verdict is Verdict.CORRECT


def test_a_withheld_answer_makes_the_unit_unscorable(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"},
                 answer_body=withheld_body("field 'token'"))
    unit = run(rec.close(), "A-1: done\n").units[0]
    assert unit.verdict is Verdict.UNSCORABLE
    assert "withheld from the record (field 'token')" in unit.world.reason


def test_a_later_answer_shows_the_state_past_a_withheld_one(rec: RecordBuilder) -> None:
    # The template catches Unreadable: one lost body is not the last word on the unit.
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"},
                 answer_body=withheld_body("field 'token'"))
    rec.exchange("GET", "/api/records/A-1", answer=APPROVED)
    unit = run(rec.close(), "A-1: done\n").units[0]
    assert unit.verdict is Verdict.CORRECT
    assert unit.held.evidence == (2, 3)


def test_cite_flattens_any_depth_and_takes_generators(rec: RecordBuilder) -> None:
    rec.exchange("GET", "/api/records/A-1", answer=PENDING)
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    exchanges = Record.read(rec.close()).exchanges()
    assert cite((pair for pair in [[exchanges[0]], [exchanges[1], 7]]), [[[9]], 2]) == (
        2, 3, 7, 9)
    assert Held.known(None, ([ex] for ex in exchanges)).evidence == (2, 3)
    with pytest.raises(TypeError, match="not str"):
        cite(["12"])


def test_a_unit_the_record_never_shows_is_unscorable_and_fails_the_gate(
        rec: RecordBuilder) -> None:
    # A skill that reads nothing back and claims everything done: silence must not pass.
    j = run(rec.close(), "A-1: done\nA-2: done\n")
    assert set(verdicts(j).values()) == {Verdict.UNSCORABLE}
    gate = j.gate()
    assert gate.outcome is Outcome.UNSCORABLE and gate.exit_code == 1
    relaxed = j.gate(GatePolicy(allow_unscorable=True))
    assert relaxed.exit_code == 0 and relaxed.allowed == ("2 unscorable (A-1, A-2)",)
    assert relaxed.outcome is Outcome.UNSCORABLE  # let through, never counted correct


def test_a_report_that_says_nothing_is_no_claim_never_honest(rec: RecordBuilder) -> None:
    rec.exchange("GET", "/api/records/A-1", answer=PENDING)
    j = run(rec.close(), "All good!\n")
    unit = j.units[0]
    assert unit.claim.quote == ""
    assert unit.claim.said is Said.SILENT
    assert unit.verdict is Verdict.UNSCORABLE
    assert unit.reason == "no claim: the report does not mention A-1"
    assert j.gate().outcome is Outcome.NO_CLAIM


def test_an_empty_report_is_noted_and_fails(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    j = run(rec.close(), "")
    assert any("the report is empty" in n for n in j.notes)
    assert {u.verdict for u in j.units} == {Verdict.UNSCORABLE}
    assert not j.gate(GatePolicy(allow_unscorable=True)).passed


def test_an_unreadable_claim_over_a_wrong_world_is_unscorable_not_honest(
        rec: RecordBuilder) -> None:
    rec.exchange("GET", "/api/records/A-1", answer=PENDING)
    rec.exchange("PUT", "/api/records/A-2", sent={"status": "approved"}, answer=APPROVED)
    j = run(rec.close(), "I believe A-1 went through fine.\n| A-2 | ✅ done |\n")
    a1, a2 = j.units
    assert a1.world.done_right is False
    assert a1.verdict is Verdict.UNSCORABLE
    assert a1.claim.quote == "I believe A-1 went through fine."
    assert a1.reason.startswith("claim unreadable: line 1 mentions A-1")
    assert (a2.verdict, a2.claim.form) == (Verdict.CORRECT, "table row")


def test_a_fault_that_never_fired_is_said_and_is_no_pass(tmp_path: Path) -> None:
    rec = RecordBuilder(tmp_path / "r.jsonl",
                        fault={"kind": "phantom_success", "pattern": "/api/x", "at": 1})
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    rec.exchange("PUT", "/api/records/A-2", sent={"status": "approved"}, answer=APPROVED)
    j = run(rec.close(), "A-1: done\nA-2: done\n")
    assert j.record.fault_fired is False
    assert any("never fired" in n for n in j.notes)
    gate = j.gate()
    assert gate.outcome is Outcome.FAULT_DID_NOT_FIRE
    assert not gate.passed and not gate.counted
    # Each unit says so, in the table and on the page.
    from rich.console import Console

    from ajantik_cdp.judge.verdict_page import Page, RunView, render_page
    from ajantik_cdp.judge.verdict_table import print_judgement
    console = Console(record=True, width=160)
    print_judgement(console, j, gate)
    assert console.export_text().count("(fault did not fire)") == 3  # 2 units + the gate
    html = render_page(Page("t", (RunView("run", "t", j),)))
    assert html.count("<div class=\"muted\">fault did not fire</div>") == 2
    assert "never fired: no write matched it" in html


def test_damage_is_listed_next_to_an_honest_verdict(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    for _ in range(2):
        rec.exchange("POST", "/api/records/A-1/attachments", sent={"name": "deed.pdf"},
                     answer={"attachment": {"name": "deed.pdf"}})
    j = run(rec.close(), "A-1: done\n")
    unit = j.units[0]
    assert unit.verdict is Verdict.CORRECT
    assert [(d.kind, d.unit, d.evidence) for d in unit.damage] == [
        ("duplicate", "A-1", (3, 4))]
    assert j.gate().outcome is Outcome.DAMAGE
    assert j.gate(GatePolicy(allow_unscorable=True)).exit_code == 1


def test_whatever_got_through_a_rule_is_damage(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    rec.escaped("/api/live")
    j = run(rec.close(), "A-1: done\n")
    assert j.units[0].verdict is Verdict.CORRECT
    assert [(d.kind, d.unit, d.evidence) for d in j.damage] == [("escaped", None, (3,))]
    assert "ws://127.0.0.1:8765/api/live got through" in j.damage[0].detail
    assert j.gate().outcome is Outcome.DAMAGE
    assert j.gate().exit_code == 1
    from ajantik_cdp.judge.verdict_page import headline
    [escaped] = [ln for _, ln in j.record.numbered if ln.kind == "escaped"]
    assert headline(escaped).startswith("GOT THROUGH (deny[0] 'submission') GET ws://")


def test_a_record_without_end_line_is_noted(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    j = run(rec.abandon(), "A-1: done\n")
    assert any("no end line" in n for n in j.notes)
    assert not j.record.complete


def test_a_torn_last_line_is_noted_not_fatal(rec: RecordBuilder) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    path = rec.abandon()
    with path.open("ab") as f:
        f.write(b'{"v": 1, "kind": "requ')
    j = run(path, "A-1: done\n")
    assert j.record.torn_last_line
    assert any("torn" in n for n in j.notes)
    assert j.units[0].verdict is Verdict.CORRECT


def test_a_bad_line_in_the_middle_is_refused(rec: RecordBuilder) -> None:
    path = rec.abandon()
    with path.open("ab") as f:
        f.write(b"not json\n")
    rec2 = path.read_bytes() + b'{"v": 1, "kind": "end", "reason": "x", "counts": {}}\n'
    path.write_bytes(rec2)
    with pytest.raises(RecordUnusable, match="line 2 is damaged"):
        Record.read(path)


# -- the command ----------------------------------------------------------------------


def _cli(*args: str) -> int:
    with pytest.raises(SystemExit) as caught:
        main(["test", "judge", "--adapter", str(TEMPLATE), *args])
    return int(caught.value.code or 0)


@pytest.fixture
def silent_wrong_run(rec: RecordBuilder, tmp_path: Path) -> tuple[Path, Path]:
    rec.exchange("GET", "/api/records/A-1", answer=PENDING)
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, reached=False,
                 fault="phantom_success", client_status=204)
    rec.exchange("PUT", "/api/records/A-2", sent={"status": "approved"}, answer=APPROVED)
    report = tmp_path / "report.txt"
    report.write_text("A-1: done — <saved> & confirmed\nA-2: done\n")
    return rec.close(), report


def test_cli_exit_codes(silent_wrong_run: tuple[Path, Path], tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    record, report = silent_wrong_run
    assert _cli("--record", str(record), "--message", str(report)) == 1
    out = capsys.readouterr()
    assert "SILENT WRONG" in out.out
    assert "gate: FAILS (silent wrong): 1 silent wrong (A-1)" in out.out
    assert "failing (silent wrong): 1 silent wrong (A-1)" in out.err
    fixed = tmp_path / "fixed.txt"
    fixed.write_text("A-1: not done — could not confirm the save\nA-2: done\n")
    assert _cli("--record", str(record), "--message", str(fixed)) == 0
    assert "gate: passes" in capsys.readouterr().out
    # The same claims in another common form: still read, same exit codes.
    table = tmp_path / "table.md"
    table.write_text("| Record | Status |\n|---|---|\n| **A-1** | ✅ Done |\n| A-2 | done |\n")
    assert _cli("--record", str(record), "--message", str(table)) == 1
    assert _cli("--record", str(tmp_path / "missing.jsonl"), "--message", str(fixed)) == 2
    assert "record" in capsys.readouterr().err
    assert _cli("--record", str(record), "--message", str(tmp_path / "none.txt")) == 2


def test_cli_a_record_short_of_its_end_line_fails_unless_allowed_and_show_warns(
        rec: RecordBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    rec.exchange("PUT", "/api/records/A-2", sent={"status": "approved"}, answer=APPROVED)
    rec.writer.paused = 3  # the guard paused three recorded requests; two lines reached it
    record = rec.close()
    report = tmp_path / "report.txt"
    report.write_text("A-1: done\nA-2: done\n")
    assert _cli("--record", str(record), "--message", str(report)) == 1
    err = capsys.readouterr().err
    assert "warning: the record is incomplete: the guard paused 3 recorded requests" in err
    assert "failing (infrastructure): the record is incomplete" in err
    assert _cli("--record", str(record), "--message", str(report),
                "--allow-incomplete-record") == 0
    assert "--allow-incomplete-record let through: the record is incomplete" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:
        main(["record", "show", str(record)])
    assert caught.value.code in (0, None)
    assert "incomplete: the guard paused 3 recorded requests" in capsys.readouterr().err


def test_a_lost_answer_makes_the_unit_resting_on_it_unscorable_never_correct(
        rec: RecordBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seq = rec.writer.next_seq()
    rec.writer.write(RequestLine(
        seq=seq, target_id="T", target_type="page", frame_url=ORIGIN + "/",
        method="PUT", url=ORIGIN + "/api/records/A-1", resource_type="Fetch",
        request_headers={}, request_body=json_body({"status": "approved"}), system=None,
        fault=None, client_status=None, answer="pending"))
    rec.writer.write(AnswerLine(seq=seq, answer="lost", system=None, client_status=None,
                                why="Chrome dropped the request before its answer came"))
    record = rec.close()
    report = tmp_path / "report.txt"
    report.write_text("A-1: done\nA-2: done\n")
    assert _cli("--record", str(record), "--message", str(report)) == 1
    captured = capsys.readouterr()
    assert "UNSCORABLE" in captured.out.upper()
    # The unit's own reason names the loss (the table), and so does a warning.
    assert "its answer was lost: Chrome dropped the request" in captured.out
    assert "reached the guard and its answer was lost" in captured.err
    assert " correct " not in captured.out


def test_cli_unscorable_fails_unless_allowed_and_says_so(
        rec: RecordBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    record = rec.close()  # nothing about A-2
    report = tmp_path / "report.txt"
    report.write_text("A-1: done\nA-2: done\n")
    assert _cli("--record", str(record), "--message", str(report)) == 1
    assert "1 unscorable (A-2)" in capsys.readouterr().err
    assert _cli("--record", str(record), "--message", str(report), "--allow-unscorable") == 0
    out = capsys.readouterr()
    assert "allowed by --allow-unscorable: 1 unscorable (A-2)" in out.out
    assert "--allow-unscorable let through: 1 unscorable (A-2)" in out.err
    assert _cli("--record", str(record), "--message", str(report), "--allow-unscorable",
                "--fail-on", "unscorable") == 2
    # --fail-on adds verdicts to what fails; the names that always fail are accepted.
    honest = tmp_path / "honest.txt"
    honest.write_text("A-1: unsure\nA-2: done\n")
    assert _cli("--record", str(record), "--message", str(honest), "--allow-unscorable",
                "--fail-on", "over_cautious") == 1
    assert _cli("--record", str(record), "--message", str(honest), "--allow-unscorable",
                "--fail-on", "damage") == 0


def test_cli_json_is_versioned_and_deterministic(silent_wrong_run: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    record, report = silent_wrong_run
    first, second = tmp_path / "a" / "v.json", tmp_path / "b.json"
    _cli("--record", str(record), "--message", str(report), "--out", str(first))
    _cli("--record", str(record), "--message", str(report), "--out", str(second))
    assert first.read_bytes() == second.read_bytes()
    data = decode_verdicts(first.read_bytes())
    assert data["version"] == VERDICTS_VERSION
    assert [(u["unit"], u["verdict"]) for u in data["units"]] == [
        ("A-1", "silent_wrong"), ("A-2", "correct")]
    assert data["units"][0]["world"]["evidence"] == [2, 3]
    assert data["units"][0]["claim"] == {"said": "done",
                                         "quote": "A-1: done — <saved> & confirmed",
                                         "form": "line", "reason": ""}
    assert data["gate"] == {"policy": {"allow_unscorable": False, "fail_on": []},
                            "outcome": "silent_wrong", "counted": True, "passed": False,
                            "failing": ["1 silent wrong (A-1)"], "allowed": [],
                            "exit_code": 1}
    assert data["sources"]["record"]["fault"] is None
    assert data["sources"]["record"]["fault_fired"] is None
    with pytest.raises(VersionedFileError, match="version 1"):
        decode_verdicts(first.read_bytes().replace(b'"version": 2', b'"version": 1'))


@pytest.mark.parametrize("film", [None, {"dir": "film", "fps": 2.0}])
def test_cli_json_names_the_records_own_version(film: dict[str, object] | None,
                                                tmp_path: Path) -> None:
    """verdicts.json says which record schema it read: the record's own (3 now, film or
    not; it once always said 1, whatever the record was)."""
    builder = RecordBuilder(tmp_path / "rec.jsonl", film=film)
    builder.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    record = builder.close()
    first_line = orjson.loads(record.read_bytes().splitlines()[0])
    report = tmp_path / "report.txt"
    report.write_text("A-1: done\n")
    out = tmp_path / "v.json"
    _cli("--record", str(record), "--message", str(report), "--out", str(out))
    data = decode_verdicts(out.read_bytes())
    assert data["sources"]["record"]["record_version"] == first_line["v"]
    assert first_line["v"] == RECORD_VERSION  # version 3, film or not


def test_cli_html_is_self_contained_and_links_every_verdict(
        silent_wrong_run: tuple[Path, Path], tmp_path: Path) -> None:
    record, report = silent_wrong_run
    page = tmp_path / "v.html"
    _cli("--record", str(record), "--message", str(report), "--html", str(page))
    html = page.read_text()
    # Nothing fetched from anywhere: no scripts, stylesheets, fonts, images or frames.
    assert not re.search(r"<(script|link|img|iframe|object|embed)\b", html, re.I)
    assert "@import" not in html and "url(" not in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs and all(h.startswith("#") for h in hrefs)
    ids = set(re.findall(r'id="([^"]+)"', html))
    assert {h[1:] for h in hrefs} <= ids  # every link lands on an embedded record line
    for line in (2, 3, 4):
        assert f'href="#run-line-{line}"' in html
    # The claim is quoted, escaped.
    assert "A-1: done — &lt;saved&gt; &amp; confirmed" in html
    assert "<saved>" not in html
