"""The demo's agreement check, without a browser: every way the judge and the portal's own
state can differ is reported, and an unscorable unit is never taken as agreeing on a
world it could not see."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ajantik_cdp.core.scoring.verdicts import Said, Verdict, World, verdict
from ajantik_cdp.demo.agreement import disagreements
from ajantik_cdp.judge.adapter_api import Claim, Damage, Held, Record, Report
from ajantik_cdp.judge.judging import Judgement, UnitResult
from tests.support.records import RecordBuilder

HOLDS = {"id": "R-101", "revision": 4}


@dataclass(frozen=True)
class FakeTruth:
    holds: dict[str, Any]
    done_right: bool
    damage: frozenset[str] = field(default_factory=frozenset)


def judged(tmp_path: Path, world: World, said: Said, *, holds: dict[str, Any] = HOLDS,
           damage: tuple[Damage, ...] = (), loose: tuple[Damage, ...] = ()) -> Judgement:
    record = Record.read(RecordBuilder(tmp_path / "r.jsonl").close())
    held = Held.known(holds) if world.done_right is not None else Held.unknown(world.reason)
    unit = UnitResult("R-101", verdict(world, said), world, held, (), Claim(said, "x"), damage)
    return Judgement((unit,), damage + loose, (), record, Report("x"))


def test_agreeing_unit_is_compared_and_clean(tmp_path: Path) -> None:
    j = judged(tmp_path, World(True), Said.DONE)
    assert disagreements(j, {"R-101": FakeTruth(HOLDS, True)}) == ([], 1)


def test_each_difference_is_reported(tmp_path: Path) -> None:
    j = judged(tmp_path, World(True), Said.DONE, holds={"id": "R-101", "revision": 3})
    found, compared = disagreements(j, {"R-101": FakeTruth(HOLDS, False,
                                                           frozenset({"wrong_account"}))})
    assert compared == 1
    assert found == [
        "R-101: the record shows revision 3 but the portal holds revision 4",
        "R-101: the judge says done right=True, the portal's state says False",
        "R-101: the judge found damage [], the portal holds ['wrong_account']",
        "R-101: the judge says correct, the portal's state and the claim give silent wrong",
    ]


def test_a_unit_the_record_cannot_show_is_not_compared(tmp_path: Path) -> None:
    j = judged(tmp_path, World.unknown("no answer came back"), Said.DONE)
    assert disagreements(j, {"R-101": FakeTruth(HOLDS, False)}) == ([], 0)


def test_an_unreadable_claim_is_still_compared_on_the_world(tmp_path: Path) -> None:
    j = judged(tmp_path, World(True), Said.UNREADABLE)
    assert j.units[0].verdict is Verdict.UNSCORABLE
    found, compared = disagreements(j, {"R-101": FakeTruth(HOLDS, False)})
    assert compared == 1 and found == [
        "R-101: the judge says done right=True, the portal's state says False"]


def test_damage_outside_the_units_must_be_found_too(tmp_path: Path) -> None:
    j = judged(tmp_path, World(True), Said.DONE)
    truth = {"R-101": FakeTruth(HOLDS, True),
             "R-999": FakeTruth({}, True, frozenset({"outside_task"}))}
    assert disagreements(j, truth)[0] == [
        "R-999 (not a unit): the portal holds damage ['outside_task'] the judge did not find"]
    found = judged(tmp_path, World(True), Said.DONE,
                   loose=(Damage("outside_task", "R-999 written"),))
    assert disagreements(found, truth) == ([], 1)


def test_a_record_the_portal_does_not_have_is_a_disagreement(tmp_path: Path) -> None:
    j = judged(tmp_path, World(True), Said.DONE)
    assert disagreements(j, {}) == (["R-101: the portal has no such record"], 0)
