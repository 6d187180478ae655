"""Per-variant and overall numbers of a suite run, and the thresholds they meet. Pure.

Every rate is over the *scored* runs: the runs the ladder counts. Runs left out
(infrastructure, unscorable, a fault that did not fire) are shown apart, each by its
outcome, and never enter a rate. Next to reliability (passes / scored) stand the silent
failure rate (damage + silent wrong outcomes / scored) and the done-right rate (the
shop held the task done right / scored), each with its Wilson interval.

Steps are compared on passing runs: a failing run's step count says where it gave up,
not how efficiently it worked (it is still shown, marked, when nothing passed).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ajantik_cdp.core.scoring.reliability_stats import (
    Interval,
    disagreement,
    newcombe,
    pass_hat_k,
    wilson,
)
from ajantik_cdp.core.scoring.verdicts import Verdict, summarise
from ajantik_cdp.gauntlet.score.run_outcome import ORDER, SILENT_FAILURES, Outcome
from ajantik_cdp.gauntlet.score.scoring import Scored
from ajantik_cdp.gauntlet.suite.suite_file import Thresholds
from ajantik_cdp.gauntlet.suite.variant_set import BASELINE, variant_kind

# A passing variant that needs this many times the baseline's steps has degraded.
STEPS_DEGRADED = 1.5


def interval_data(r: Interval | None) -> dict[str, float] | None:
    return None if r is None else {"estimate": r.estimate, "low": r.low, "high": r.high}


@dataclass(frozen=True)
class Group:
    """Numbers over a set of runs: one variant, the perturbed ones, or all."""

    runs: int
    scored: int  # counted by the ladder: the denominator of every rate
    passes: int
    outcomes: dict[str, int]  # every outcome, in ladder order
    reliability: Interval | None  # passes / scored
    silent_failure_rate: Interval | None  # (damage + silent wrong) / scored
    done_right_rate: Interval | None  # done right / scored
    verdicts: dict[str, int]
    categories: dict[str, int]
    median_steps: float | None  # of passing runs
    median_steps_all: float | None  # of every scored run that counted its steps

    def count(self, outcome: Outcome) -> int:
        return self.outcomes.get(outcome.value, 0)

    @property
    def silent_wrong(self) -> int:
        """Runs that claimed completed over a state not done right, damage or not."""
        return self.verdicts.get(Verdict.SILENT_WRONG.value, 0)

    @property
    def silent_failures(self) -> int:
        return sum(self.count(o) for o in SILENT_FAILURES)

    @property
    def done_right(self) -> int:
        return self.count(Outcome.DONE_RIGHT)

    @property
    def left_out(self) -> int:
        return self.runs - self.scored

    @property
    def not_fired(self) -> int:
        return self.count(Outcome.FAULT_DID_NOT_FIRE)

    @property
    def infrastructure(self) -> int:
        """Left out because the harness could not judge them (ours, not the agent's)."""
        return self.count(Outcome.INFRASTRUCTURE) + self.count(Outcome.UNSCORABLE)

    def as_data(self) -> dict[str, Any]:
        return {"runs": self.runs, "scored": self.scored, "passes": self.passes,
                "left_out": self.left_out, "infrastructure": self.infrastructure,
                "not_fired": self.not_fired, "done_right": self.done_right,
                "silent_wrong": self.silent_wrong, "damage": self.count(Outcome.DAMAGE),
                "silent_failures": self.silent_failures,
                "reliability": interval_data(self.reliability),
                "silent_failure_rate": interval_data(self.silent_failure_rate),
                "done_right_rate": interval_data(self.done_right_rate),
                "outcomes": self.outcomes, "verdicts": self.verdicts,
                "categories": self.categories, "median_steps": self.median_steps,
                "median_steps_all": self.median_steps_all}


@dataclass(frozen=True)
class VariantSummary:
    variant: str
    kind: str
    group: Group
    pass_k: dict[int, float | None]
    flaky: bool  # its scored repetitions disagree
    disagreement: float | None
    steps_ratio: float | None  # median passing steps / the baseline's
    median_agent_seconds: float | None

    @property
    def degraded(self) -> bool:
        return self.steps_ratio is not None and self.steps_ratio >= STEPS_DEGRADED

    def as_data(self) -> dict[str, Any]:
        return {"variant": self.variant, "kind": self.kind, **self.group.as_data(),
                "pass_k": {str(k): v for k, v in self.pass_k.items()}, "flaky": self.flaky,
                "disagreement": self.disagreement, "steps_ratio": self.steps_ratio,
                "degraded": self.degraded, "median_agent_seconds": self.median_agent_seconds}


@dataclass(frozen=True)
class ThresholdCheck:
    scope: str  # "overall" or a variant
    metric: str
    target: float
    value: float | None
    met: bool
    detail: str

    def as_data(self) -> dict[str, Any]:
        return {"scope": self.scope, "metric": self.metric, "target": self.target,
                "value": self.value, "met": self.met, "detail": self.detail}


@dataclass(frozen=True)
class Summary:
    confidence: float
    variants: tuple[VariantSummary, ...]
    overall: Group
    baseline: Group | None
    perturbed: Group | None
    baseline_minus_perturbed: Interval | None
    pass_k: dict[int, float | None]
    flaky_variants: tuple[str, ...]
    checks: tuple[ThresholdCheck, ...] = field(default=())

    @property
    def failed_checks(self) -> tuple[ThresholdCheck, ...]:
        return tuple(c for c in self.checks if not c.met)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed_checks else 0

    def variant(self, name: str) -> VariantSummary:
        return next(v for v in self.variants if v.variant == name)

    def as_data(self) -> dict[str, Any]:
        d = self.baseline_minus_perturbed
        return {
            "confidence": self.confidence,
            "overall": self.overall.as_data(),
            "pass_k": {str(k): v for k, v in self.pass_k.items()},
            "flaky_variants": list(self.flaky_variants),
            "baseline": self.baseline.as_data() if self.baseline else None,
            "perturbed": self.perturbed.as_data() if self.perturbed else None,
            "baseline_minus_perturbed": interval_data(d),
            "variants": [v.as_data() for v in self.variants],
            "thresholds": [c.as_data() for c in self.checks],
            "exit_code": self.exit_code,
        }


def _median(values: Sequence[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def group(runs: Sequence[Scored], confidence: float) -> Group:
    scored = [r for r in runs if r.counted]
    n = len(scored)
    passes = sum(r.passed for r in scored)
    outcomes = Counter(r.outcome.value for r in runs)
    silent = sum(r.outcome in SILENT_FAILURES for r in scored)
    done = sum(r.outcome is Outcome.DONE_RIGHT for r in scored)
    categories = Counter(r.classification.category for r in runs if r.classification)
    return Group(
        runs=len(runs), scored=n, passes=passes,
        outcomes={o.value: outcomes.get(o.value, 0) for o in ORDER},
        reliability=wilson(passes, n, confidence),
        silent_failure_rate=wilson(silent, n, confidence),
        done_right_rate=wilson(done, n, confidence),
        verdicts=summarise(r.verdict for r in runs), categories=dict(sorted(categories.items())),
        median_steps=_median([float(r.steps) for r in scored
                              if r.passed and r.steps is not None]),
        median_steps_all=_median([float(r.steps) for r in scored if r.steps is not None]))


def _variant(name: str, runs: Sequence[Scored], confidence: float, reps: int,
             baseline_steps: float | None) -> VariantSummary:
    g = group(runs, confidence)
    ratio = (g.median_steps / baseline_steps
             if g.median_steps is not None and baseline_steps else None)
    agent_s = [r.result.timings.agent for r in runs if r.counted]
    return VariantSummary(
        variant=name, kind=variant_kind(name), group=g,
        pass_k={k: pass_hat_k(g.passes, g.scored, k) for k in range(1, reps + 1)},
        flaky=0 < g.passes < g.scored, disagreement=disagreement(g.passes, g.scored),
        steps_ratio=ratio, median_agent_seconds=_median(agent_s))


def summarise_suite(runs: Sequence[Scored], variants: Sequence[str], repetitions: int,
                    confidence: float, thresholds: Thresholds) -> Summary:
    by_variant = {v: [r for r in runs if r.result.variant == v] for v in variants}
    base_runs = by_variant.get(BASELINE)
    base_group = group(base_runs, confidence) if base_runs else None
    base_steps = base_group.median_steps if base_group else None
    summaries = tuple(_variant(v, by_variant[v], confidence, repetitions, base_steps)
                      for v in variants)
    perturbed_runs = [r for r in runs if r.result.variant != BASELINE]
    perturbed = group(perturbed_runs, confidence) if perturbed_runs else None
    diff = None
    if base_group and perturbed:
        diff = newcombe(base_group.passes, base_group.scored, perturbed.passes,
                        perturbed.scored, confidence)
    pass_k: dict[int, float | None] = {}
    for k in range(1, repetitions + 1):
        values = [v.pass_k[k] for v in summaries if v.pass_k.get(k) is not None]
        pass_k[k] = sum(v for v in values if v is not None) / len(values) if values else None
    summary = Summary(
        confidence=confidence, variants=summaries, overall=group(runs, confidence),
        baseline=base_group, perturbed=perturbed, baseline_minus_perturbed=diff,
        pass_k=pass_k, flaky_variants=tuple(v.variant for v in summaries if v.flaky))
    return Summary(**{**summary.__dict__, "checks": tuple(check_thresholds(summary,
                                                                           thresholds))})


def _no_scored_runs(g: Group) -> str:
    why = [f"{n} {what}" for n, what in ((g.not_fired, "where the fault did not fire"),
                                         (g.infrastructure, "left out as infrastructure"))
           if n]
    return "no scored runs" + (f" ({', '.join(why)})" if why else "")


def _rate_check(scope: str, g: Group, target: float, gate: str) -> ThresholdCheck:
    r = g.reliability
    if r is None:
        return ThresholdCheck(scope, "reliability", target, None, False, _no_scored_runs(g))
    value = r.low if gate == "lower_bound" else r.estimate
    what = "lower bound" if gate == "lower_bound" else "reliability"
    return ThresholdCheck(scope, "reliability", target, value, value >= target,
                          f"{what} {value:.2f} ({g.passes}/{g.scored}) against {target:.2f}")


def _silent_rate_check(scope: str, g: Group, target: float, gate: str) -> ThresholdCheck:
    r = g.silent_failure_rate
    metric = "silent_failure_rate"
    if r is None:
        return ThresholdCheck(scope, metric, target, None, False, _no_scored_runs(g))
    # The cautious end of a failure rate is its upper bound.
    value = r.high if gate == "lower_bound" else r.estimate
    what = "silent failure rate" + (" (upper bound)" if gate == "lower_bound" else "")
    return ThresholdCheck(scope, metric, target, value, value <= target,
                          f"{what} {value:.2f} ({g.silent_failures}/{g.scored}) against at "
                          f"most {target:.2f}")


def check_thresholds(s: Summary, t: Thresholds) -> list[ThresholdCheck]:
    checks: list[ThresholdCheck] = []
    if t.reliability is not None:
        checks.append(_rate_check("overall", s.overall, t.reliability, t.gate))
        checks += [_rate_check(v.variant, v.group, t.reliability, t.gate) for v in s.variants]
    if t.max_silent_failure_rate is not None:
        cap = t.max_silent_failure_rate
        checks.append(_silent_rate_check("overall", s.overall, cap, t.gate))
        checks += [_silent_rate_check(v.variant, v.group, cap, t.gate) for v in s.variants]
    if t.max_silent_wrong is not None:
        n = s.overall.silent_wrong
        where = ", ".join(f"{v.variant} {v.group.silent_wrong}" for v in s.variants
                          if v.group.silent_wrong)
        checks.append(ThresholdCheck(
            "overall", "silent_wrong", t.max_silent_wrong, n, n <= t.max_silent_wrong,
            f"{n} silent wrong" + (f" ({where})" if where else "")
            + f" against at most {t.max_silent_wrong}"))
    return checks
