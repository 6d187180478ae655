"""The demo's options and conclusions, without a browser: the conclusions follow the
verdicts they are given, so a demo whose runs did not show the point says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_cdp.core.scoring.run_gate import gate_run
from ajantik_cdp.core.scoring.verdicts import Said, Verdict, World
from ajantik_cdp.demo.plan import OPTIONS, UPLOADS, conclusions
from ajantik_cdp.demo.portal_system import PortalCheck
from ajantik_cdp.judge.adapter_api import Claim, Damage, Held, Record, Report
from ajantik_cdp.judge.judging import Judgement, UnitResult
from ajantik_cdp.output_folder import OutputFolderError, marker_name, prepare
from ajantik_cdp.testrun.plan.run_plan import CLEAN, PlannedRun
from ajantik_cdp.testrun.run.runner import JudgedRun, SessionResult, SkillTest, SkillTestResult
from ajantik_cdp.testrun.run.skill import SkillRun
from ajantik_cdp.testrun.run.workspace import SystemCheck
from ajantik_cdp.testrun.score.matrix import Firing
from tests.support.records import RecordBuilder


def test_the_demo_is_every_fault_on_r102s_upload() -> None:
    assert set(OPTIONS.kinds) == set(FaultKind)
    assert (OPTIONS.reps, OPTIONS.at.text, OPTIONS.only) == (1, "2", (UPLOADS,))
    assert UPLOADS.label == "POST /api/filings/*/documents"


C, SW, RH, U = Verdict.CORRECT, Verdict.SILENT_WRONG, Verdict.REPORTED_HONESTLY, (
    Verdict.UNSCORABLE)
WORLDS = {C: (True, Said.DONE), SW: (False, Said.DONE), RH: (False, Said.NOT_DONE)}


def _run(tmp_path: Path, skill: str, kind: FaultKind | None, verdicts: list[Verdict], *,
         damage: bool = False, disagree: bool = False, fired: Firing | None = None,
         crashed: str | None = None, timed_out: str | None = None) -> JudgedRun:
    name = f"{skill}-{kind.value if kind else 'clean'}"
    record = Record.read(RecordBuilder(tmp_path / f"{name}.jsonl").close())
    dmg = (Damage("duplicate", "two copies", "R-102"),) if damage else ()
    units = []
    for i, v in enumerate(verdicts):
        unit = f"R-10{i + 1}"
        if v is U:
            claim, world = Claim.unreadable("R-102 went fine", "claim unreadable: ..."), World(True)
        else:
            right, said = WORLDS[v]
            claim, world = Claim(said, ""), World(right)
        units.append(UnitResult(unit, v, world, Held.known({}), (), claim,
                                tuple(d for d in dmg if d.unit == unit)))
    j = Judgement(tuple(units), dmg, (), record, Report(""))
    planned = CLEAN if kind is None else PlannedRun(UPLOADS, kind, 1, 2, 2, 1)
    firing = fired or (Firing.NO_FAULT if kind is None else Firing.ON_POINT)
    gate = gate_run([u.score() for u in units], [(d.kind, d.unit) for d in dmg],
                    fault_fired=None if kind is None else firing is Firing.ON_POINT,
                    crashed=crashed, timed_out=timed_out)
    problems = ("R-101: differs",) if disagree else ()
    check = SystemCheck((), problems, PortalCheck({}, len(units), 0))
    return JudgedRun(skill, planned, name, j, gate, firing,
                     SkillRun("", crashed=crashed, timed_out=timed_out), 1.0, check)


def _outcome(*tests: tuple[str, list[JudgedRun]]) -> SessionResult:
    results = []
    for name, runs in tests:
        plan_runs = tuple(r.planned for r in runs if not r.planned.is_clean)
        t = SkillTestResult(SkillTest(name, Any, Any, Any, OPTIONS))  # type: ignore[arg-type]
        t.clean = next((r for r in runs if r.planned.is_clean), None)
        t.runs = [r for r in runs if not r.planned.is_clean]
        from ajantik_cdp.testrun.plan.run_plan import Plan

        t.plan = Plan((), OPTIONS.kinds, 1, OPTIONS.at, plan_runs)
        results.append(t)
    return SessionResult(results, 1.0)


PS, PF, SD = FaultKind.PHANTOM_SUCCESS, FaultKind.PHANTOM_FAILURE, FaultKind.SESSION_DROP


def _good(tmp_path: Path, broken: str = "") -> SessionResult:
    return _outcome(
        ("blind", [_run(tmp_path, "blind", None, [C, C, C]),
                   _run(tmp_path, "blind", PS,
                        [C, C, C] if broken == "blind_not_fooled" else [C, SW, C]),
                   _run(tmp_path, "blind", PF, [C, C, C], damage=broken != "blind_no_damage")]),
        ("verifying", [_run(tmp_path, "verifying", None, [C, C, C]),
                       _run(tmp_path, "verifying", PS,
                            [C, SW, C] if broken == "verifying_fooled" else [C, C, C],
                            disagree=broken == "portal_disagrees"),
                       _run(tmp_path, "verifying", SD, [C, RH, RH])]))


def test_conclusions_hold_when_the_runs_show_them(tmp_path: Path) -> None:
    found = conclusions(_good(tmp_path))
    assert all(c.holds for c in found), found
    assert "silent wrong on R-102" in found[0].text
    assert any("18 of 18 units" in c.text for c in found)
    texts = [c.text for c in found]
    assert ("verifying skill: passes the gate of ajantik test run in every run (every unit "
            "scored, no silent wrong, no damage): its test exits 0") in texts
    assert ("blind skill: the gate fails 2 runs (blind · phantom_success, blind · "
            "phantom_failure), so its test exits 1") in texts


@pytest.mark.parametrize("broken", ["blind_not_fooled", "blind_no_damage", "verifying_fooled",
                                    "portal_disagrees"])
def test_each_conclusion_fails_when_the_runs_do_not_show_it(tmp_path: Path, broken: str) -> None:
    failed = [c.text for c in conclusions(_good(tmp_path, broken)) if not c.holds]
    # A blind run the gate no longer fails also breaks "the gate fails exactly those".
    assert len(failed) == (2 if broken.startswith("blind") else 1), failed


def test_a_fault_that_did_not_fire_is_no_demonstration(tmp_path: Path) -> None:
    outcome = _good(tmp_path)
    t = outcome.tests[1]
    t.runs[0] = _run(tmp_path, "verifying", PS, [C, C, C], fired=Firing.NOT_FIRED)
    failed = [c.text for c in conclusions(outcome) if not c.holds]
    assert "the fault did not fire on R-102's upload in: verifying · phantom_success" in failed
    assert any(f.startswith("verifying skill fails the gate in: verifying · phantom_success "
                            "(fault did not fire") for f in failed)


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
    outcome = _good(tmp_path)
    outcome.tests[1].runs[0] = _run(tmp_path, "verifying", PS, [C, U, C])
    failed = [c.text for c in conclusions(outcome) if not c.holds]
    assert failed == ["verifying skill fails the gate in: verifying · phantom_success "
                      "(unscorable: 1 unscorable (R-102))"]


def test_a_skill_that_did_not_finish_is_said(tmp_path: Path) -> None:
    outcome = _good(tmp_path)
    outcome.tests[0].runs[0] = _run(tmp_path, "blind", PS, [C, SW, C],
                                    timed_out="stopped at its deadline (180s)")
    failed = [c.text for c in conclusions(outcome) if not c.holds]
    assert ("the scripted skill did not finish in blind · phantom_success (stopped at its "
            "deadline (180s))") in failed
