"""The judge's JSON output (``--out``): versioned, deterministic, and self-describing.

``format`` and ``version`` let CI scripts refuse a file they do not understand. A change of
meaning bumps ``version``; adding a field does not. Nothing time-dependent is written, so
the same inputs give byte-identical files.

Version 2: a claim may be ``silent`` or ``unreadable`` (both unscorable), and the gate
fails on unscorable units and on damage unless told otherwise (``gate.policy``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ajantik_cdp.core.scoring.run_gate import DEFAULT_POLICY, GatePolicy, GateResult
from ajantik_cdp.judge.adapter_api import Damage
from ajantik_cdp.judge.judging import Judgement, UnitResult
from ajantik_cdp.versioned_file import read_versioned

VERDICTS_FORMAT = "ajantik-verdicts"
VERDICTS_VERSION = 2


@dataclass(frozen=True)
class InputFile:
    path: str
    sha256: str

    @classmethod
    def of(cls, path: Path) -> InputFile:
        return cls(str(path), hashlib.sha256(path.read_bytes()).hexdigest())

    def as_data(self) -> dict[str, str]:
        return {"path": self.path, "sha256": self.sha256}


@dataclass(frozen=True)
class InputFiles:
    adapter: InputFile
    record: InputFile
    report: InputFile


def damage_data(d: Damage) -> dict[str, Any]:
    return {"kind": d.kind, "unit": d.unit, "detail": d.detail, "evidence": list(d.evidence)}


def unit_data(u: UnitResult) -> dict[str, Any]:
    return {
        "unit": u.unit,
        "verdict": u.verdict.value,
        "world": {
            "done_right": u.world.done_right,
            "reason": u.world.reason,
            "problems": list(u.problems),
            "holds": u.held.value,
            "evidence": list(u.held.evidence),
        },
        "claim": {"said": u.claim.said.value, "quote": u.claim.quote, "form": u.claim.form,
                  "reason": u.claim.reason},
        "unscorable_reason": u.reason,
        "damage": [damage_data(d) for d in u.damage],
    }


def gate_data(gate: GateResult, policy: GatePolicy) -> dict[str, Any]:
    return {
        "policy": {"allow_unscorable": policy.allow_unscorable,
                   "fail_on": sorted(v.value for v in policy.fail_on)},
        "outcome": gate.outcome.value,
        "counted": gate.counted,
        "passed": gate.passed,
        "failing": list(gate.failing),
        "allowed": list(gate.allowed),
        "exit_code": gate.exit_code,
    }


def verdicts_data(j: Judgement, sources: InputFiles,
                  policy: GatePolicy = DEFAULT_POLICY) -> dict[str, Any]:
    record = j.record
    start = record.start
    return {
        "format": VERDICTS_FORMAT,
        "version": VERDICTS_VERSION,
        "sources": {
            "adapter": sources.adapter.as_data(),
            "record": {**sources.record.as_data(), "record_version": record.version,
                       "lines": record.line_count, "complete": record.complete,
                       "fault": record.fault, "fault_fired": record.fault_fired,
                       "browser": start.browser if start else None},
            "report": sources.report.as_data(),
        },
        "units": [unit_data(u) for u in j.units],
        "damage": [damage_data(d) for d in j.damage],
        "notes": list(j.notes),
        "summary": {**j.summary(), "damage": len(j.damage)},
        "gate": gate_data(j.gate(policy), policy),
    }


def encode_verdicts(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


def decode_verdicts(raw: bytes, source: str = "the file") -> dict[str, Any]:
    """Parse a verdicts file, refusing formats and versions this code does not know."""
    return read_versioned(raw, VERDICTS_FORMAT, (VERDICTS_VERSION,),
                          kind="an ajantik verdicts file", what="verdicts",
                          source=source)[0]
