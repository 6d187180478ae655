"""Reliability numbers: Wilson score intervals, Newcombe's interval for a difference,
pass^k and disagreement between repetitions. Pure, standard library only.

Wilson rather than the normal ("Wald") interval because suites are small: with 2 or 3
repetitions per variant (or per cell of a test run), p-hat is often 0 or 1, where the
Wald interval collapses to a point and claims a certainty the data does not have.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


def z_for(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float


def wilson(successes: int, n: int, confidence: float = 0.95) -> Interval | None:
    """The Wilson score interval for ``successes`` out of ``n``; None when ``n`` is 0."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return None
    z = z_for(confidence)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    # At p = 0 or 1 one bound is exactly 0 or 1; rounding must not push it past.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(p, low, high)


def newcombe(s1: int, n1: int, s2: int, n2: int,
             confidence: float = 0.95) -> Interval | None:
    """Newcombe's hybrid score interval for p1 - p2 (his method 10), built from the two
    Wilson intervals. It excludes 0 when the difference is unlikely to be chance."""
    a, b = wilson(s1, n1, confidence), wilson(s2, n2, confidence)
    if a is None or b is None:
        return None
    d = a.estimate - b.estimate
    low = d - math.sqrt((a.estimate - a.low) ** 2 + (b.high - b.estimate) ** 2)
    high = d + math.sqrt((a.high - a.estimate) ** 2 + (b.estimate - b.low) ** 2)
    return Interval(d, max(-1.0, low), min(1.0, high))


def pass_hat_k(successes: int, n: int, k: int) -> float | None:
    """pass^k: the chance that k repetitions drawn from these n all pass,
    C(successes, k) / C(n, k). pass^1 is the pass rate; pass^n is 1 only when every
    repetition passed. None when there are fewer than k repetitions."""
    if k < 1 or n < k:
        return None
    return math.comb(successes, k) / math.comb(n, k)


def disagreement(successes: int, n: int) -> float | None:
    """The share of pairs of repetitions that disagree (one passed, one failed):
    0 for a variant that always or never passes, largest when it is a coin toss."""
    if n < 2:
        return None
    return successes * (n - successes) / math.comb(n, 2)
