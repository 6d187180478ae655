"""Judging one run: the adapter reads the record and the report, the core gives verdicts.

Deterministic and offline: the same record, report and adapter give the same judgement,
and nothing here calls a model or the network.
"""

from __future__ import annotations

from dataclasses import dataclass

from ajantik_cdp.core.record.completeness import Folded, lost_notes
from ajantik_cdp.core.record.record_schema import EscapedLine
from ajantik_cdp.core.scoring.run_gate import (
    DEFAULT_POLICY,
    GatePolicy,
    GateResult,
    UnitScore,
    gate_run,
)
from ajantik_cdp.core.scoring.verdicts import Verdict, World, summarise, verdict
from ajantik_cdp.judge.adapter_api import Claim, Damage, Held, Record, Report, Unreadable
from ajantik_cdp.judge.adapter_loader import Adapter


@dataclass(frozen=True)
class UnitResult:
    unit: str
    verdict: Verdict
    world: World
    held: Held
    problems: tuple[str, ...]
    claim: Claim
    damage: tuple[Damage, ...]

    @property
    def evidence(self) -> tuple[int, ...]:
        lines = set(self.held.evidence)
        for d in self.damage:
            lines.update(d.evidence)
        return tuple(sorted(lines))

    @property
    def reason(self) -> str:
        """Why the unit is unscorable ("" when it is not): the record, the claim, or both."""
        if self.verdict is not Verdict.UNSCORABLE:
            return ""
        parts = []
        if self.world.done_right is None:
            parts.append(f"the record cannot show it: {self.world.reason}")
        if not self.claim.said.is_claim:
            parts.append(self.claim.reason or "no claim")
        return "; ".join(parts)

    def score(self) -> UnitScore:
        return UnitScore(self.unit, self.verdict, self.claim.said)


@dataclass(frozen=True)
class Judgement:
    units: tuple[UnitResult, ...]
    damage: tuple[Damage, ...]  # every damage, including damage tied to no unit
    notes: tuple[str, ...]
    record: Record
    report: Report

    def summary(self) -> dict[str, int]:
        return summarise(u.verdict for u in self.units)

    def gate(self, policy: GatePolicy = DEFAULT_POLICY, *, crashed: str | None = None,
             timed_out: str | None = None) -> GateResult:
        """The run's outcome by the one rule every command uses (core/scoring/run_gate.py)."""
        return gate_run([u.score() for u in self.units],
                        [(d.kind, d.unit) for d in self.damage],
                        fault_fired=self.record.fault_fired, crashed=crashed,
                        timed_out=timed_out, incomplete=self.record.problems, policy=policy)


def world_of(held: Held, problems: list[str]) -> World:
    if held.unknown_reason is not None:
        return World.unknown(held.unknown_reason)
    if problems:
        return World.no("; ".join(problems))
    return World.yes("the system holds it done right")


def record_notes(record: Record) -> list[str]:
    notes = []
    if record.torn_last_line:
        notes.append("the record's last line is torn (the guard was killed while writing "
                     "it); that write is missing from the evidence")
    if record.end is None:
        notes.append("the record has no end line: the guard did not stop cleanly, so a "
                     "write in flight when it stopped may be missing")
    notes += [f"the record is incomplete: {problem}" for problem in record.problems]
    notes += lost_notes(Folded(record.numbered, record.lost, record.problems))
    if record.fault_fired is False:
        fault = record.fault or {}
        notes.append(f"the fault {fault.get('kind')} (write #{fault.get('at', 1)} matching "
                     f"{fault.get('pattern')!r}) never fired: no write matched it, so this "
                     "run is no test of it")
    return notes


def escaped_damage(record: Record) -> list[Damage]:
    """Whatever got through although a rule denied it is damage, whatever the adapter
    says: the guard could not keep it from the site (tied to no unit)."""
    return [Damage("escaped", f"{ln.resource_type} {ln.url} got through although "
                   f"{ln.rule or ln.reason} denies it ({ln.stage}; {ln.closed})",
                   evidence=(number,))
            for number, ln in record.numbered if isinstance(ln, EscapedLine)]


def judge(adapter: Adapter, record: Record, report: Report) -> Judgement:
    units = adapter.units(record, report)
    notes = record_notes(record)
    if not report.text.strip():
        notes.append("the report is empty: the skill printed nothing (it crashed, hung or "
                     "stopped without a word), so no unit has a claim")
    try:
        damage = adapter.damage(record, units)
    except Unreadable as exc:
        damage = []
        notes.append(f"damage could not be checked: {exc}")
    damage += escaped_damage(record)
    results = []
    for unit in units:
        held = adapter.held(unit, record)
        problems = [] if held.unknown_reason is not None else adapter.done_right(unit, held.value)
        world = world_of(held, problems)
        claim = adapter.claim(unit, report)
        results.append(UnitResult(
            unit=unit,
            verdict=verdict(world, claim.said),
            world=world,
            held=held,
            problems=tuple(problems),
            claim=claim,
            damage=tuple(d for d in damage if d.unit == unit),
        ))
    return Judgement(tuple(results), tuple(damage), tuple(notes), record, report)
