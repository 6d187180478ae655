"""Wilson and Newcombe intervals against values computed independently, pass^k and
disagreement against their definitions, and the properties an interval must have."""

from __future__ import annotations

import itertools
import math
from statistics import NormalDist

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ajantik_cdp.core.scoring.reliability_stats import (
    disagreement,
    newcombe,
    pass_hat_k,
    wilson,
)

# Computed once with statsmodels 0.15.0 (scipy 1.17.1), in a throwaway virtualenv:
#   from statsmodels.stats.proportion import proportion_confint
#   proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
STATSMODELS_WILSON = [
    (0, 1, 0.95, 0.0, 0.7934506856227627),
    (1, 1, 0.95, 0.2065493143772374, 1.0),
    (0, 2, 0.95, 0.0, 0.657619772493347),
    (1, 2, 0.95, 0.09453120573423068, 0.9054687942657693),
    (2, 2, 0.95, 0.342380227506653, 1.0),
    (2, 3, 0.95, 0.2076596008020477, 0.9385080552796037),
    (28, 30, 0.95, 0.7867654163738307, 0.9815229762087296),
    (30, 30, 0.95, 0.8864866068260311, 1.0),
    (0, 30, 0.95, 0.0, 0.1135133931739688),
    (7, 10, 0.90, 0.44169979586983493, 0.873123416096802),
    (45, 50, 0.99, 0.7402692104043159, 0.9660091162215817),
    (1, 3, 0.80, 0.10577563612172286, 0.6788173521696514),
    (81, 263, 0.95, 0.2552885198782742, 0.36620957698280004),
]

# Same environment:
#   from statsmodels.stats.proportion import confint_proportions_2indep
#   confint_proportions_2indep(s1, n1, s2, n2, method="newcomb", compare="diff")
STATSMODELS_NEWCOMBE = [
    (30, 30, 28, 30, -0.05665215635044735, 0.21323458362616932),
    (2, 2, 0, 2, 0.06998519885519938, 1.0),
    (5, 10, 9, 10, -0.6759121533048666, 0.0023561093922480625),
    (3, 3, 1, 3, -0.05856874558467473, 0.9385080552796038),
    (56, 70, 48, 80, 0.05243147240236498, 0.33387265403690614),
]


@pytest.mark.parametrize("s,n,conf,low,high", STATSMODELS_WILSON)
def test_wilson_matches_statsmodels(s: int, n: int, conf: float, low: float,
                                    high: float) -> None:
    got = wilson(s, n, conf)
    assert got is not None
    assert got.low == pytest.approx(low, abs=1e-12)
    assert got.high == pytest.approx(high, abs=1e-12)
    assert got.estimate == s / n


def quadratic_bounds(s: int, n: int, confidence: float) -> tuple[float, float]:
    """The Wilson bounds as the roots of (p_hat - p)^2 = z^2 p (1 - p) / n, solved as a
    quadratic in p: an independent route to the same numbers."""
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    ph = s / n
    a = 1 + z * z / n
    b = -(2 * ph + z * z / n)
    c = ph * ph
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@settings(deadline=None)
@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_is_the_quadratic_solution(sn: tuple[int, int], confidence: float) -> None:
    s, n = sn
    got = wilson(s, n, confidence)
    low, high = quadratic_bounds(s, n, confidence)
    assert got is not None
    assert got.low == pytest.approx(max(0.0, low), abs=1e-9)
    assert got.high == pytest.approx(min(1.0, high), abs=1e-9)


@settings(deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.floats(0.5, 0.999))
def test_wilson_bounds_hold_p_hat_and_stay_in_the_unit_interval(
        sn: tuple[int, int], confidence: float) -> None:
    s, n = sn
    got = wilson(s, n, confidence)
    assert got is not None
    assert 0.0 <= got.low <= got.estimate <= got.high <= 1.0


@settings(deadline=None)
@given(st.integers(0, 10).flatmap(lambda s: st.tuples(st.just(s), st.integers(max(s, 1), 10))),
       st.integers(2, 30))
def test_wilson_narrows_as_n_grows_at_the_same_rate(sn: tuple[int, int], factor: int) -> None:
    s, n = sn
    small, large = wilson(s, n), wilson(s * factor, n * factor)
    assert small is not None and large is not None
    assert (large.high - large.low) < (small.high - small.low)


@settings(deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_a_higher_confidence_gives_a_wider_interval(sn: tuple[int, int]) -> None:
    s, n = sn
    a, b = wilson(s, n, 0.9), wilson(s, n, 0.99)
    assert a is not None and b is not None
    assert b.low <= a.low and a.high <= b.high


def test_no_runs_no_interval() -> None:
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(3, 2)


@pytest.mark.parametrize("s1,n1,s2,n2,low,high", STATSMODELS_NEWCOMBE)
def test_newcombe_matches_statsmodels(s1: int, n1: int, s2: int, n2: int, low: float,
                                      high: float) -> None:
    got = newcombe(s1, n1, s2, n2)
    assert got is not None
    assert got.low == pytest.approx(low, abs=1e-9)
    assert got.high == pytest.approx(high, abs=1e-9)
    assert got.estimate == pytest.approx(s1 / n1 - s2 / n2)


def test_pass_hat_k_by_definition() -> None:
    # 2 of 3 passed: of the 3 pairs of repetitions, 1 has both passing.
    assert pass_hat_k(2, 3, 2) == pytest.approx(1 / 3)
    assert pass_hat_k(2, 3, 1) == pytest.approx(2 / 3)
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(2, 3, 3) == 0.0
    assert pass_hat_k(1, 1, 2) is None


@given(st.integers(1, 30).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_pass_hat_k_never_rises_with_k(sn: tuple[int, int]) -> None:
    s, n = sn
    values = [pass_hat_k(s, n, k) for k in range(1, n + 1)]
    assert values[0] == pytest.approx(s / n)
    assert all(a is not None and b is not None and b <= a + 1e-12
               for a, b in itertools.pairwise(values))


def test_disagreement() -> None:
    assert disagreement(2, 2) == 0
    assert disagreement(0, 3) == 0
    assert disagreement(1, 2) == 1
    assert disagreement(1, 3) == pytest.approx(2 / 3)  # pairs (P,F),(P,F) of 3
    assert disagreement(1, 1) is None
