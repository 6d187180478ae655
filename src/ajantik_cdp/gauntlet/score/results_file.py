"""The results file (``results.json``): versioned, and everything a report or a
comparison needs. Pure: the caller writes and reads the bytes.

``format`` and ``version`` let tools refuse a file they do not understand. A change of
meaning bumps ``version``; a new field does not. Each run carries its evidence (the
shop's state, the claim, the steps, the page, the guard record's facts) next to its
outcome, so a surprising number can be traced to the runs behind it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.gauntlet.evidence.run_data import result_data
from ajantik_cdp.gauntlet.score.scoring import Scored
from ajantik_cdp.gauntlet.score.suite_summary import Summary
from ajantik_cdp.gauntlet.suite.suite_file import Suite

RESULTS_FORMAT = "ajantik-gauntlet-results"
RESULTS_VERSION = 1


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


def results_data(suite: Suite, ctx: RunContext, summary: Summary,
                 runs: Sequence[Scored]) -> dict[str, Any]:
    return {
        "format": RESULTS_FORMAT, "version": RESULTS_VERSION,
        "suite": suite.as_data(), "suite_run": ctx.suite_run,
        "started_at": ctx.started_at, "finished_at": ctx.finished_at,
        "wall_seconds": round(ctx.wall_seconds, 3), "interrupted": ctx.interrupted,
        "planned_runs": suite.run_count, "environment": ctx.environment,
        "notes": list(ctx.notes), "summary": summary.as_data(),
        "runs": [run_entry(s) for s in runs],
    }


def encode_results(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


class ResultsFileError(BadInput, ValueError):
    """Not a results file this ajantik reads (exit code 2)."""


@dataclass(frozen=True)
class VariantCounts:
    variant: str
    kind: str
    passes: int
    scored: int
    excluded: int
    silent_wrong: int
    median_steps: float | None


@dataclass(frozen=True)
class ResultsView:
    """What ``compare`` reads from a results file."""

    source: str
    task: str
    agent: str
    confidence: float
    variants: dict[str, VariantCounts]
    interrupted: bool

    def pooled(self) -> tuple[int, int, int]:
        """passes, scored, silent wrong over every variant."""
        v = self.variants.values()
        return (sum(c.passes for c in v), sum(c.scored for c in v),
                sum(c.silent_wrong for c in v))


def read_results(raw: bytes, source: str) -> ResultsView:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ResultsFileError(f"{source} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise ResultsFileError(f"{source} is not an ajantik gauntlet results file "
                               f"(format {RESULTS_FORMAT!r})")
    if data.get("version") != RESULTS_VERSION:
        raise ResultsFileError(f"{source} is results version {data.get('version')!r}; this "
                               f"ajantik reads version {RESULTS_VERSION}")
    try:
        summary = data["summary"]
        suite = data["suite"]
        agent = suite["agent"]
        variants = {
            v["variant"]: VariantCounts(v["variant"], v["kind"], int(v["passes"]),
                                        int(v["scored"]), int(v["excluded"]),
                                        int(v["silent_wrong"]), v.get("median_steps"))
            for v in summary["variants"]}
        return ResultsView(
            source=source, task=str(suite["task"]["name"]),
            agent=f"{agent['type']} {agent.get('preset') or agent.get('run')}",
            confidence=float(summary["confidence"]), variants=variants,
            interrupted=bool(data.get("interrupted")))
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultsFileError(f"{source} is missing a field a results file has: "
                               f"{exc!r}") from None
