"""The results file (``results.json``): versioned, and everything a report or a
comparison needs. Pure: the caller writes and reads the bytes.

``format`` and ``version`` let tools refuse a file they do not understand. A change of
meaning bumps ``version``; a new field does not. Each run carries its evidence (the
shop's state, the claim, the steps, the page, the guard record's facts) next to its
outcome, so a surprising number can be traced to the runs behind it, and so an older
file can be scored again under today's rules.

    version 1  pass / fail / excluded by verdict: a fault run passed on "reported
               honestly", so an agent that crashed or did nothing passed most faults
    version 2  the outcome ladder (``run_outcome``): one outcome per run, a pass only
               when done right (or, where success is impossible, honest after the
               fault fired); silent failure rate; faults that did not fire shown apart

A version 1 file is translated when read: its runs are scored again from their
evidence, and the file says so in its notes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.gauntlet.evidence.run_data import result_data, result_from_data
from ajantik_cdp.gauntlet.score.scoring import Scored, score
from ajantik_cdp.gauntlet.score.suite_summary import Summary, summarise_suite
from ajantik_cdp.gauntlet.suite.expected_state import from_written
from ajantik_cdp.gauntlet.suite.suite_file import Suite, Thresholds
from ajantik_cdp.versioned_file import VersionedFileError, read_versioned

RESULTS_FORMAT = "ajantik-gauntlet-results"
RESULTS_VERSION = 2
TRANSLATED_VERSIONS = (1,)


@dataclass(frozen=True)
class RunContext:
    suite_run: str
    started_at: str
    finished_at: str
    wall_seconds: float
    interrupted: bool
    environment: dict[str, Any]
    notes: tuple[str, ...] = ()


def run_entry(s: Scored) -> dict[str, Any]:
    return {**s.as_data(), "variant": s.result.variant, "repetition": s.result.repetition,
            "evidence": result_data(s.result)}


def _data(suite: Mapping[str, Any], planned_runs: int, ctx: RunContext, summary: Summary,
          runs: Sequence[Scored]) -> dict[str, Any]:
    return {
        "format": RESULTS_FORMAT, "version": RESULTS_VERSION,
        "suite": dict(suite), "suite_run": ctx.suite_run,
        "started_at": ctx.started_at, "finished_at": ctx.finished_at,
        "wall_seconds": round(ctx.wall_seconds, 3), "interrupted": ctx.interrupted,
        "planned_runs": planned_runs, "environment": ctx.environment,
        "notes": list(ctx.notes), "summary": summary.as_data(),
        "runs": [run_entry(s) for s in runs],
    }


def results_data(suite: Suite, ctx: RunContext, summary: Summary,
                 runs: Sequence[Scored]) -> dict[str, Any]:
    return _data(suite.as_data(), suite.run_count, ctx, summary, runs)


def encode_results(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


class ResultsFileError(BadInput, ValueError):
    """Not a results file this ajantik reads (exit code 2)."""


@dataclass(frozen=True)
class LoadedResults:
    data: dict[str, Any]  # in the current version, whatever version the file was
    translated_from: int | None = None

    def note(self, source: str) -> str | None:
        return None if self.translated_from is None else \
            translation_note(source, self.translated_from)


def translation_note(source: str, version: int) -> str:
    return (f"{source} is results version {version}; its runs were scored again from "
            f"their evidence under version {RESULTS_VERSION}'s rules")


def _translate(data: dict[str, Any], source: str) -> dict[str, Any]:
    """A version 1 file in version 2: every run scored again from its evidence, the
    summary made again from those, everything else as it was."""
    suite = dict(data["suite"])
    thresholds = dict(suite["thresholds"])
    thresholds.setdefault("max_silent_failure_rate", None)
    suite["thresholds"] = thresholds
    expect = from_written(suite["task"]["expect"])
    runs = [score(result_from_data(r["evidence"]), expect) for r in data["runs"]]
    summary = summarise_suite(runs, list(suite["variants"]), int(suite["repetitions"]),
                              float(suite["confidence"]), Thresholds(**thresholds))
    ctx = RunContext(str(data["suite_run"]), str(data["started_at"]),
                     str(data["finished_at"]), float(data["wall_seconds"]),
                     bool(data["interrupted"]), dict(data["environment"]),
                     (*data.get("notes", ()), translation_note(source, int(data["version"]))))
    return _data(suite, int(data["planned_runs"]), ctx, summary, runs) | {
        "translated_from": data["version"]}


def load_results(raw: bytes, source: str) -> LoadedResults:
    """A results file's data in the current version; a version 1 file is translated.
    Raises ResultsFileError, with one line saying why, for anything else."""
    data, version = results_of_version(raw, source, (RESULTS_VERSION, *TRANSLATED_VERSIONS))
    if version == RESULTS_VERSION:
        return LoadedResults(data)
    try:
        return LoadedResults(_translate(data, source), version)
    except KeyError as exc:
        raise ResultsFileError(f"{source} is results version {version} and cannot be "
                               f"scored again: it lacks {exc}") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise ResultsFileError(f"{source} is results version {version} and cannot be "
                               f"scored again: {exc}") from None


def results_of_version(raw: bytes, source: str, versions: tuple[int, ...] = (RESULTS_VERSION,),
                       ) -> tuple[dict[str, Any], int]:
    """A suite results file's data and version, one of ``versions``."""
    try:
        return read_versioned(raw, RESULTS_FORMAT, versions,
                              kind="an ajantik gauntlet results file", what="results",
                              source=source)
    except VersionedFileError as exc:
        raise ResultsFileError(str(exc)) from None


@dataclass(frozen=True)
class VariantCounts:
    variant: str
    kind: str
    passes: int
    scored: int
    left_out: int
    not_fired: int
    done_right: int
    silent_wrong: int
    damage: int
    silent_failures: int
    median_steps: float | None

    @classmethod
    def total(cls, name: str, counts: Sequence[VariantCounts]) -> VariantCounts:
        return cls(name, "", passes=sum(c.passes for c in counts),
                   scored=sum(c.scored for c in counts),
                   left_out=sum(c.left_out for c in counts),
                   not_fired=sum(c.not_fired for c in counts),
                   done_right=sum(c.done_right for c in counts),
                   silent_wrong=sum(c.silent_wrong for c in counts),
                   damage=sum(c.damage for c in counts),
                   silent_failures=sum(c.silent_failures for c in counts), median_steps=None)


@dataclass(frozen=True)
class ResultsView:
    """What ``compare`` reads from a results file."""

    source: str
    task: str
    agent: str
    confidence: float
    repetitions: int
    variants: dict[str, VariantCounts]
    interrupted: bool
    note: str | None = None  # the file was translated from an older version

    def pooled(self, names: Sequence[str]) -> VariantCounts:
        """The counts over these variants (those of them the file has)."""
        return VariantCounts.total("overall", [self.variants[n] for n in names
                                               if n in self.variants])


def _agent_text(agent: Mapping[str, Any]) -> str:
    if agent.get("type") == "reference":
        return f"reference agent, preset {agent.get('preset')}"
    return f"command agent `{agent.get('run')}`"


def read_results(raw: bytes, source: str) -> ResultsView:
    loaded = load_results(raw, source)
    data = loaded.data
    try:
        summary = data["summary"]
        suite = data["suite"]
        variants = {
            v["variant"]: VariantCounts(
                v["variant"], v["kind"], int(v["passes"]), int(v["scored"]),
                int(v["left_out"]), int(v["not_fired"]), int(v["done_right"]),
                int(v["silent_wrong"]), int(v["damage"]), int(v["silent_failures"]),
                v.get("median_steps"))
            for v in summary["variants"]}
        return ResultsView(
            source=source, task=str(suite["task"]["name"]), agent=_agent_text(suite["agent"]),
            confidence=float(summary["confidence"]), repetitions=int(suite["repetitions"]),
            variants=variants, interrupted=bool(data.get("interrupted")),
            note=loaded.note(source))
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultsFileError(f"{source} is missing a field a results file has: "
                               f"{exc!r}") from None
