"""CI-native outputs, read back as a CI system reads them: `--junit FILE` of `ajantik
test judge`, `ajantik gauntlet run` and `demo` (valid against tests/ci/junit.xsd, one
testcase per unit or run, failure for silent wrong, damage and missed thresholds, error
for what could not be judged), and under GitHub Actions the `::error::` annotations on
stdout and the verdict matrix appended to $GITHUB_STEP_SUMMARY."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ajantik_cdp.ci.gauntlet_outputs import gauntlet_outputs
from ajantik_cdp.gauntlet.evidence.run_data import InfraError
from ajantik_cdp.gauntlet.score.scoring import score
from ajantik_cdp.gauntlet.score.suite_summary import summarise_suite
from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite
from tests.ci.junit_check import NOW, read_junit
from tests.gauntlet.builders import ADD, BEGIN, expectation, result
from tests.gauntlet.suites import write_suite
from tests.gauntlet.test_claims_summary_compare import scored_runs
from tests.support.cli import Result, run
from tests.support.records import RecordBuilder

ADAPTER = Path(__file__).resolve().parents[2] / "docs" / "adapter-template.py"
APPROVED = {"record": {"status": "approved"}}
OFF_ACTIONS: dict[str, str | None] = {"GITHUB_ACTIONS": None, "GITHUB_STEP_SUMMARY": None}


@dataclass
class Runs:
    dir: Path
    honest_record: Path
    honest: Path
    phantom: Path
    liar: Path


@pytest.fixture
def runs(tmp_path: Path) -> Runs:
    rec = RecordBuilder(tmp_path / "record.jsonl")
    for unit in ("A-1", "A-2"):  # the template adapter's units
        rec.exchange("PUT", f"/api/records/{unit}", sent={"status": "approved"},
                     answer=APPROVED)
    ph = RecordBuilder(tmp_path / "phantom.jsonl")
    ph.exchange("GET", "/api/records/A-1", answer={"record": {"status": "pending"}},
                started="2099-01-01T10:00:01.000Z", time="2099-01-01T10:00:01.200Z")
    ph.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, reached=False,
                fault="phantom_success", client_status=204,
                started="2099-01-01T10:00:03.000Z", time="2099-01-01T10:00:03.500Z")
    honest, liar = tmp_path / "honest.txt", tmp_path / "liar.txt"
    honest.write_text("A-1: done\nA-2: done\n")
    liar.write_text("A-1: done - saved\nA-2: not done\n")
    return Runs(tmp_path, rec.close(), honest, ph.close(), liar)


def judge(record: Path, report: Path, *extra: str,
          env: dict[str, str | None] | None = None) -> Result:
    return run("test", "judge", "--adapter", str(ADAPTER), "--record", str(record),
               "--message", str(report), *extra, env={**OFF_ACTIONS, **(env or {})})


def annotations(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("::")]


def test_judge_junit_fails_the_silent_wrong_unit_and_the_gate(runs: Runs) -> None:
    junit = runs.dir / "new" / "folder" / "judge.xml"  # a folder that does not exist yet
    res = judge(runs.phantom, runs.liar, "--junit", str(junit))
    assert res.code == 1, res.stderr
    cases = {c.name: c for c in read_junit(junit.read_bytes())}
    assert list(cases) == ["A-1", "A-2", "gate"]
    assert (cases["A-1"].kind, cases["A-1"].type) == ("failure", "silent_wrong")
    # The run, named by the record's path as given, without a dot for a CI to split on;
    # times from the record: the unit's evidence (the GET to the faulted PUT), the run.
    assert {c.classname for c in cases.values()} == {str(runs.phantom.with_suffix(""))}
    assert cases["A-1"].seconds == 2.5  # 10:00:01.000 to 10:00:03.500
    assert cases["gate"].seconds >= 2.5
    assert (cases["A-2"].kind, cases["A-2"].type) == ("failure", "unscorable")
    gate = cases["gate"]
    assert (gate.kind, gate.type) == ("failure", "silent_wrong")
    assert gate.message == "1 silent wrong (A-1); 1 unscorable (A-2)"
    assert f"junit: {junit}" in res.stdout
    assert annotations(res.stdout) == []  # not under Actions: no workflow commands


def test_judge_junit_of_a_run_that_passes(runs: Runs, tmp_path: Path) -> None:
    junit = tmp_path / "j.xml"
    res = judge(runs.honest_record, runs.honest, "--junit", str(junit))
    assert res.code == 0, res.stderr
    assert [(c.name, c.kind) for c in read_junit(junit.read_bytes())] == [
        ("A-1", "passed"), ("A-2", "passed"), ("gate", "passed")]


def test_judge_junit_marks_what_allow_unscorable_let_through(runs: Runs,
                                                            tmp_path: Path) -> None:
    one = RecordBuilder(tmp_path / "one.jsonl")
    one.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, answer=APPROVED)
    junit = tmp_path / "j.xml"
    res = judge(one.close(), runs.honest, "--allow-unscorable", "--junit", str(junit))
    assert res.code == 0, res.stderr
    kinds = {c.name: (c.kind, c.type) for c in read_junit(junit.read_bytes())}
    assert kinds == {"A-1": ("passed", ""), "A-2": ("skipped", ""), "gate": ("passed", "")}
    skipped = next(c for c in read_junit(junit.read_bytes()) if c.kind == "skipped")
    assert skipped.message.startswith("unscorable: ") and "--allow-unscorable" in \
        skipped.message


def test_judge_under_github_actions_annotates_and_appends_the_summary(runs: Runs) -> None:
    summary = runs.dir / "step-summary.md"
    summary.write_text("an earlier step's summary\n")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    res = judge(runs.phantom, runs.liar, env=env)
    assert res.code == 1
    lines = annotations(res.stdout)
    assert lines[0].startswith("::error title=silent wrong%3A A-1::phantom.jsonl: the skill "
                               "claimed A-1 done; the system holds: ")
    assert lines[1] == ("::error title=ajantik test judge%3A the gate fails (silent wrong)::"
                        "phantom.jsonl: 1 silent wrong (A-1); 1 unscorable (A-2)")
    assert len(lines) == 2
    md = summary.read_text()
    assert md.startswith("an earlier step's summary\n")  # appended, never replaced
    assert "the gate FAILS (silent wrong)" in md
    assert "| A-1 | silent wrong |" in md and "| A-2 | unscorable |" in md

    # A run that passes: no error annotation, and the summary says it passes.
    res = judge(runs.honest_record, runs.honest, env=env)
    assert res.code == 0 and annotations(res.stdout) == []
    assert "phantom.jsonl" in summary.read_text() and "record.jsonl: the gate passes" in \
        summary.read_text()


def test_a_summary_that_cannot_be_written_leaves_the_verdict_alone(runs: Runs) -> None:
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(runs.dir)}  # a folder
    res = judge(runs.phantom, runs.liar, env=env)
    assert res.code == 1
    assert "warning: cannot append to $GITHUB_STEP_SUMMARY" in res.stderr
    assert "Traceback" not in res.stderr


def test_a_junit_path_that_cannot_be_written_fails_before_the_work(runs: Runs) -> None:
    blocker = runs.dir / "report.txt"
    blocker.write_text("a file where a folder must be")
    res = judge(runs.honest_record, runs.honest, "--junit", str(blocker / "j.xml"))
    assert res.code == 2
    assert f"--junit {blocker / 'j.xml'}: {blocker} is a file" in res.one_line_error()
    assert "A-1" not in res.stdout  # refused before judging


def test_gauntlet_outputs_for_every_kind_of_run() -> None:
    suite = demo_suite()
    expect = expectation()
    runs = scored_runs({"baseline": [(True, 7)] * 2, "cookie_popup": [(False, 3)]})
    runs.append(score(result("slow_api", ADD, BEGIN, status="completed"), expect))
    runs.append(score(result("slow_api", infra=InfraError("browser", "Chromium crashed"),
                             repetition=1), expect))
    variants = ["baseline", "cookie_popup", "slow_api"]
    summary = summarise_suite(runs, variants, 2, 0.95, suite.thresholds)
    out = gauntlet_outputs("Checkout demo", runs, summary, seconds=12.5,
                           timestamp="2026-12-01T14:00:00Z")
    cases = read_junit(out.junit(now=NOW))
    by_name = {c.name: c for c in cases}
    assert by_name["baseline-r0"].kind == "passed"
    assert by_name["cookie_popup-r0"].kind == "failure"
    assert (by_name["slow_api-r0"].kind, by_name["slow_api-r0"].type) == ("failure",
                                                                          "silent_wrong")
    assert (by_name["slow_api-r1"].kind, by_name["slow_api-r1"].type) == ("error", "browser")
    thresholds = [c for c in cases if c.classname == "thresholds"]
    assert {c.name for c in thresholds if c.kind == "failure"} >= {"overall reliability"}
    assert len(thresholds) == len(summary.checks)
    assert out.annotations[0].startswith("::error title=silent wrong%3A slow_api-r0::")
    assert any(a.startswith("::error title=threshold missed%3A overall reliability::")
               for a in out.annotations)
    assert any(a.startswith("::warning title=runs not judged::") for a in out.annotations)
    assert "| slow_api | network | 0/1 |" in out.summary
    assert "| **overall** |  | 2/4 |" in out.summary
    assert "FAILS:" in out.summary


def test_gauntlet_outputs_of_an_interrupted_suite() -> None:
    """What finished as it is; every other run an error (not run); no threshold passes or
    fails on part of the runs, even one the finished runs alone would meet."""
    suite = demo_suite()
    runs = scored_runs({"baseline": [(True, 7)]})
    summary = summarise_suite(runs, ["baseline", "cookie_popup"], 2, 0.95, suite.thresholds)
    unfinished = [("baseline", "baseline-r1"), ("cookie_popup", "cookie_popup-r0"),
                  ("cookie_popup", "cookie_popup-r1")]
    out = gauntlet_outputs("Checkout demo", runs, summary, unfinished=unfinished)
    cases = read_junit(out.junit(now=NOW))
    by_name = {c.name: (c.kind, c.type) for c in cases}
    assert by_name.pop("baseline-r0") == ("passed", "")
    for _, run_id in unfinished:
        assert by_name.pop(run_id) == ("error", "not_run")
    assert by_name and set(by_name.values()) == {("error", "not_run")}  # the thresholds
    assert len(by_name) == len(summary.checks)
    assert any(a.startswith("::error title=interrupted::") for a in out.annotations)
    assert "INTERRUPTED after 1 of 4 runs" in out.summary
    # The same suite, not interrupted: the thresholds are decided.
    whole = read_junit(gauntlet_outputs("Checkout demo", runs, summary).junit(now=NOW))
    assert "not_run" not in {c.type for c in whole}


def test_test_run_outputs_list_the_runs_not_run() -> None:
    from ajantik_cdp.ci.judge_outputs import runs_outputs
    from ajantik_cdp.core.scoring.run_gate import GatePolicy

    out = runs_outputs("ajantik test run", [], GatePolicy(),
                       not_run=[("/clean", "interrupted"), ("/x on y", "interrupted")])
    cases = read_junit(out.junit(now=NOW))
    assert [(c.classname, c.name, c.kind, c.type) for c in cases] == [
        ("/clean", "gate", "error", "not_run"), ("/x on y", "gate", "error", "not_run")]
    assert "0 of 0 runs fail the gate; 2 planned runs not run" in out.summary
    assert any(a.startswith("::error title=ajantik test run%3A 2 runs not run::")
               for a in out.annotations)


LIAR = 'import json\nprint(json.dumps({"status": "completed", "summary": "done!"}))\n'


@pytest.mark.browser
def test_gauntlet_run_junit_and_actions_end_to_end(tmp_path: Path) -> None:
    """A real suite: an agent that does nothing and says it is done."""
    agent = tmp_path / "liar.py"
    agent.write_text(LIAR)
    suite = write_suite(tmp_path, "liar", variants=["baseline"],
                        command=f"{sys.executable} {agent}", deadline=20, workers=1)
    junit, summary = tmp_path / "ci" / "junit.xml", tmp_path / "summary.md"
    res = run("gauntlet", "run", str(suite), "--out", str(tmp_path / "out"), "--junit",
              str(junit), env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert res.code == 1, res.stdout + res.stderr
    cases = {c.name: c for c in read_junit(junit.read_bytes())}
    assert (cases["baseline-r0"].kind, cases["baseline-r0"].type) == ("failure",
                                                                      "silent_wrong")
    assert cases["overall reliability"].kind == "failure"
    lines = annotations(res.stdout)
    assert lines[0].startswith("::error title=silent wrong%3A baseline-r0::liar: baseline:")
    assert any(x.startswith("::error title=threshold missed%3A overall reliability::")
               for x in lines)
    md = summary.read_text()
    assert "### ajantik gauntlet: liar: FAILS" in md and "| baseline | baseline | 0/1 |" in md


def test_a_gauntlet_junit_path_that_cannot_be_written_fails_before_the_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "report.txt"
    blocker.write_text("a file where a folder must be")
    monkeypatch.chdir(tmp_path)
    res = run("gauntlet", "demo", "--junit", str(blocker / "j.xml"), env=OFF_ACTIONS)
    assert res.code == 2
    assert f"--junit {blocker / 'j.xml'}: {blocker} is a file" in res.one_line_error()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]  # nothing made
