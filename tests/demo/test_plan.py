"""The demo's plan and conclusions, without a browser: the conclusions follow the
verdicts they are given, so a demo whose runs did not show the point says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from ajantik_cdp.core.verdicts import Said, Verdict, World
from ajantik_cdp.demo.plan import FAULT_PATTERN, DemoRun, RunOutcome, conclusions, plan
from ajantik_cdp.judge.adapter_api import Claim, Damage, Held, Record, Report
from ajantik_cdp.judge.judging import Judgement, UnitResult
from ajantik_cdp.output_folder import OutputFolderError, marker_name, prepare
from tests.support.records import RecordBuilder


def test_plan_is_both_skills_clean_and_under_every_fault() -> None:
    specs = plan()
    assert len(specs) == 10
    assert {s.fault for s in specs} == {None, "phantom_success", "transient_error",
                                        "phantom_failure", "session_drop"}
    assert DemoRun("blind", "phantom_success").fault_text == f"phantom_success:{FAULT_PATTERN}"
    assert DemoRun("blind", None).fault_text is None
    assert len({s.slug for s in specs}) == 10


def _outcome(tmp_path: Path, skill: str, fault: str | None, verdicts: list[Verdict],
             damage: bool = False, disagree: bool = False) -> RunOutcome:
    rec = RecordBuilder(tmp_path / f"{skill}-{fault}.jsonl")
    record = Record.read(rec.close())
    worlds = {Verdict.CORRECT: (True, Said.DONE), Verdict.SILENT_WRONG: (False, Said.DONE),
              Verdict.REPORTED_HONESTLY: (False, Said.NOT_DONE)}
    units = []
    dmg = (Damage("duplicate", "two copies", "R-102"),) if damage else ()
    for i, v in enumerate(verdicts):
        right, said = worlds[v]
        unit = f"R-10{i + 1}"
        units.append(UnitResult(unit, v, World(right), Held.known({}), (), Claim(said, ""),
                                tuple(d for d in dmg if d.unit == unit)))
    j = Judgement(tuple(units), dmg, (), record, Report(""))
    return RunOutcome(DemoRun(skill, fault), j, 1.0, ("R-101: differs",) if disagree else (),
                      compared_units=len(units))


C, SW, RH = Verdict.CORRECT, Verdict.SILENT_WRONG, Verdict.REPORTED_HONESTLY


def test_conclusions_hold_when_the_runs_show_them(tmp_path: Path) -> None:
    outcomes = [
        _outcome(tmp_path, "blind", "phantom_success", [C, SW, C]),
        _outcome(tmp_path, "blind", "phantom_failure", [C, C, C], damage=True),
        _outcome(tmp_path, "verifying", "phantom_success", [C, C, C]),
        _outcome(tmp_path, "verifying", "session_drop", [C, RH, RH]),
    ]
    found = conclusions(outcomes)
    assert all(c.holds for c in found), found
    assert "silent wrong on R-102" in found[0].text
    assert any("12 of 12 units" in c.text for c in found)
    gate = next(c.text for c in found if "the gate" in c.text)
    assert gate == ("verifying skill: passes the gate in every run (every unit scored, no "
                    "silent wrong, no damage); the gate fails 2 blind run(s): blind · "
                    "phantom_success, blind · phantom_failure")


@pytest.mark.parametrize("broken", ["blind_not_fooled", "blind_no_damage", "verifying_fooled",
                                    "portal_disagrees"])
def test_each_conclusion_fails_when_the_runs_do_not_show_it(tmp_path: Path, broken: str) -> None:
    outcomes = [
        _outcome(tmp_path, "blind", "phantom_success",
                 [C, C, C] if broken == "blind_not_fooled" else [C, SW, C]),
        _outcome(tmp_path, "blind", "phantom_failure", [C, C, C],
                 damage=broken != "blind_no_damage"),
        _outcome(tmp_path, "verifying", "phantom_success",
                 [C, SW, C] if broken == "verifying_fooled" else [C, C, C],
                 disagree=broken == "portal_disagrees"),
    ]
    failed = [c.text for c in conclusions(outcomes) if not c.holds]
    assert len(failed) == 1, failed


def test_out_dir_is_never_one_the_demo_did_not_make(tmp_path: Path) -> None:
    mine = tmp_path / "demo"
    prepare(mine, "demo")
    (mine / "blind-clean").mkdir()
    prepare(mine, "demo")  # an earlier demo's folder is replaced
    assert sorted(p.name for p in mine.iterdir()) == [marker_name("demo")]
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("keep me")
    with pytest.raises(OutputFolderError, match="did not write") as refused:
        prepare(theirs, "demo")
    assert refused.value.exit_code == 2
    assert (theirs / "notes.txt").read_text() == "keep me"


def test_demo_without_a_browser_is_one_line_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from ajantik_cdp.cli.main import main

    monkeypatch.setenv("AJANTIK_CHROME", str(tmp_path / "no-chrome"))
    with pytest.raises(SystemExit) as caught:
        main(["demo", "--out", str(tmp_path / "out")])
    assert caught.value.code == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ajantik demo: error: AJANTIK_CHROME=")
    assert not (tmp_path / "out").exists()


def test_workers_is_the_flag_and_the_old_jobs_still_works_with_a_note(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from ajantik_cdp.cli.main import main

    with pytest.raises(SystemExit) as caught:
        main(["demo", "--help"])
    shown = capsys.readouterr().out
    assert caught.value.code == 0 and "--workers" in shown and "--jobs" not in shown
    monkeypatch.setenv("AJANTIK_CHROME", str(tmp_path / "no-chrome"))
    with pytest.raises(SystemExit) as caught:
        main(["demo", "--jobs", "1", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert caught.value.code == 3 and err[0] == "ajantik demo: note: --jobs is now --workers"
    assert err[1].startswith("ajantik demo: error: AJANTIK_CHROME=")


def test_a_verifying_run_with_an_unscorable_unit_fails_the_gate_conclusion(
        tmp_path: Path) -> None:
    good = _outcome(tmp_path, "verifying", "phantom_success", [C, C, C])
    units = list(good.judgement.units)
    units[1] = UnitResult("R-102", Verdict.UNSCORABLE, World(True), Held.known({}), (),
                          Claim.unreadable("R-102 went fine", "claim unreadable: ..."), ())
    j = Judgement(tuple(units), (), (), good.judgement.record, Report("R-102 went fine"))
    outcome = RunOutcome(good.spec, j, 1.0)
    assert outcome.gate().outcome.value == "unscorable"
    failed = [c.text for c in conclusions([outcome]) if not c.holds]
    assert failed == ["verifying skill fails the gate in: verifying · phantom_success "
                      "(unscorable: 1 unscorable (R-102))"]


def test_a_timed_out_run_is_told_from_a_crash(tmp_path: Path) -> None:
    base = _outcome(tmp_path, "blind", None, [C, C, C])
    hung = RunOutcome(base.spec, base.judgement, 1.0, skill_error="the run took longer than 120s")
    died = RunOutcome(base.spec, base.judgement, 1.0, skill_error="RuntimeError: boom")
    assert hung.gate().outcome.value == "timed_out"
    assert died.gate().outcome.value == "agent_crashed"
