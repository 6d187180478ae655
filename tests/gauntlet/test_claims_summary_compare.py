"""AgentClaim lines, suite numbers and thresholds, the results file and compare."""

from __future__ import annotations

import pytest

from ajantik_cdp.core.verdicts import Said
from ajantik_cdp.gauntlet.evidence.claim_line import parse_claim
from ajantik_cdp.gauntlet.evidence.run_data import InfraError, result_data, result_from_data
from ajantik_cdp.gauntlet.score.comparison import compare
from ajantik_cdp.gauntlet.score.results_file import (
    ResultsFileError,
    RunContext,
    encode_results,
    read_results,
    results_data,
)
from ajantik_cdp.gauntlet.score.scoring import Scored, score
from ajantik_cdp.gauntlet.score.suite_summary import summarise_suite
from ajantik_cdp.gauntlet.suite.suite_file import Suite, Thresholds
from tests.gauntlet.builders import ADD, CORRECT_PATH, expectation, result, shop_state

EXPECT = expectation()


def test_the_claim_is_the_last_json_line() -> None:
    out = 'log line\n{"status": "failed", "summary": "early"}\nmore log\n' \
          '{"status": "completed", "summary": "done", "steps": ["a", "b"]}\n'
    c = parse_claim(out)
    assert (c.status, c.summary, c.steps, c.step_list) == ("completed", "done", 2, ("a", "b"))
    assert c.said is Said.DONE


@pytest.mark.parametrize("out,problem", [
    ("", "no JSON claim line"),
    ("all good!\n", "no JSON claim line"),
    ('{"status": "completed", \n', "not valid JSON"),
    ('{"status": "great"}\n', "status must be"),
    ('{"status": "completed", "steps": "many"}\n', "steps must be"),
])
def test_garbage_is_no_claim(out: str, problem: str) -> None:
    c = parse_claim(out)
    assert c.status is None and c.said is Said.UNSURE
    assert c.problem is not None and problem in c.problem


def scored_runs(spec: dict[str, list[tuple[bool, int]]]) -> list[Scored]:
    """spec: variant -> [(task done?, steps)], one entry per repetition."""
    runs = []
    for variant, reps in spec.items():
        for i, (done, steps) in enumerate(reps):
            actions = CORRECT_PATH if done else (ADD,)
            runs.append(score(result(variant, *actions, steps=steps, repetition=i,
                                     status="completed" if done else "failed"), EXPECT))
    return runs


def test_numbers_per_variant_and_overall() -> None:
    runs = scored_runs({"baseline": [(True, 7)] * 3,
                        "cookie_popup": [(True, 19), (False, 4), (True, 21)],
                        "slow_api": [(False, 3)] * 3})
    runs.append(score(result("slow_api", infra=InfraError("browser", "crash"), repetition=3),
                      EXPECT))
    s = summarise_suite(runs, ["baseline", "cookie_popup", "slow_api"], 3, 0.95,
                        Thresholds(reliability=0.9))
    base, popup, slow = s.variants
    assert (base.group.passes, base.group.scored, base.flaky) == (3, 3, False)
    assert (popup.group.passes, popup.group.scored, popup.flaky) == (2, 3, True)
    assert popup.steps_ratio == pytest.approx(20 / 7) and popup.degraded
    assert popup.pass_k[1] == pytest.approx(2 / 3) and popup.pass_k[3] == 0
    assert (slow.group.scored, slow.group.excluded, slow.group.passes) == (3, 1, 0)
    assert (s.overall.passes, s.overall.scored, s.overall.excluded) == (5, 9, 1)
    assert s.flaky_variants == ("cookie_popup",)
    assert s.baseline_minus_perturbed is not None
    assert s.baseline_minus_perturbed.estimate == pytest.approx(1 - 2 / 6)
    failed = {(c.scope, c.metric) for c in s.failed_checks}
    assert failed == {("overall", "reliability"), ("cookie_popup", "reliability"),
                      ("slow_api", "reliability")}
    assert s.exit_code == 1


def test_thresholds_met_is_exit_0_and_silent_wrong_has_its_own_gate() -> None:
    runs = scored_runs({"baseline": [(True, 7)] * 2})
    ok = summarise_suite(runs, ["baseline"], 2, 0.95, Thresholds(reliability=0.9))
    assert ok.exit_code == 0 and ok.checks
    lower = summarise_suite(runs, ["baseline"], 2, 0.95,
                            Thresholds(reliability=0.9, gate="lower_bound"))
    assert lower.exit_code == 1  # 2/2 has a Wilson lower bound of 0.34
    liar = [score(result("transient_coupon", ADD, status="completed", faulted=1), EXPECT)]
    gated = summarise_suite(liar, ["transient_coupon"], 1, 0.95, Thresholds())
    assert gated.overall.silent_wrong == 1 and gated.exit_code == 1
    ungated = summarise_suite(liar, ["transient_coupon"], 1, 0.95,
                              Thresholds(max_silent_wrong=None))
    assert ungated.exit_code == 0


def test_a_variant_with_only_infrastructure_cannot_meet_a_threshold() -> None:
    runs = [score(result("baseline", infra=InfraError("shop", "down")), EXPECT)]
    s = summarise_suite(runs, ["baseline"], 1, 0.95, Thresholds(reliability=0.5))
    assert s.exit_code == 1
    assert "no scorable runs" in s.failed_checks[0].detail


def results_bytes(runs: list[Scored], variants: list[str], suite: Suite) -> bytes:
    s = summarise_suite(runs, variants, 3, 0.95, suite.thresholds)
    ctx = RunContext("s-1", "t0", "t1", 10.0, False, {"workers": 1})
    return encode_results(results_data(suite, ctx, s, runs))


def test_results_round_trip_and_compare_names_the_variant_that_moved() -> None:
    from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite

    suite = demo_suite()
    variants = ["baseline", "cookie_popup", "slow_api"]
    before = scored_runs({"baseline": [(True, 7)] * 3, "cookie_popup": [(True, 8)] * 3,
                          "slow_api": [(True, 9)] * 3})
    after = scored_runs({"baseline": [(True, 7)] * 3, "cookie_popup": [(False, 2)] * 3,
                         "slow_api": [(True, 9)] * 3})
    a = read_results(results_bytes(before, variants, suite), "a.json")
    b = read_results(results_bytes(after, variants, suite), "b.json")
    assert a.variants["cookie_popup"].passes == 3 and b.variants["cookie_popup"].passes == 0
    c = compare(a, b)
    assert [m.variant for m in c.regressions] == ["cookie_popup"] and c.exit_code == 1
    assert c.regressions[0].significant  # 3/3 -> 0/3 is beyond chance at 95%
    back = compare(b, a)
    assert back.exit_code == 0 and [m.variant for m in back.moves if m.improved] == \
        ["cookie_popup"]
    assert compare(a, a).exit_code == 0


def test_compare_gates_on_silent_wrong_and_can_require_significance() -> None:
    from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite

    suite = demo_suite()
    v = ["transient_coupon"]
    honest = [score(result("transient_coupon", ADD, status="failed", faulted=1,
                           repetition=i), EXPECT) for i in range(2)]
    liar = [score(result("transient_coupon", ADD, status="completed", faulted=1,
                         repetition=i), EXPECT) for i in range(2)]
    a = read_results(results_bytes(honest, v, suite), "a")
    b = read_results(results_bytes(liar, v, suite), "b")
    c = compare(a, b)
    assert c.exit_code == 1 and "silent wrong 0 -> 2" in c.regressions[0].reasons
    one_drop = scored_runs({"baseline": [(True, 7), (True, 7)]})
    one_drop2 = scored_runs({"baseline": [(True, 7), (False, 7)]})
    x = read_results(results_bytes(one_drop, ["baseline"], suite), "x")
    y = read_results(results_bytes(one_drop2, ["baseline"], suite), "y")
    assert compare(x, y).exit_code == 1
    assert compare(x, y, only_significant=True).exit_code == 0
    assert compare(x, y, tolerance=0.5).exit_code == 0


def test_a_file_that_is_not_results_is_refused() -> None:
    with pytest.raises(ResultsFileError, match="not JSON"):
        read_results(b"{", "x.json")
    with pytest.raises(ResultsFileError, match="not an ajantik gauntlet results file"):
        read_results(b'{"format": "ajantik-verdicts", "version": 1}', "x.json")
    with pytest.raises(ResultsFileError, match="version 9"):
        read_results(b'{"format": "ajantik-gauntlet-results", "version": 9}', "x.json")


def test_run_evidence_round_trips_through_its_data() -> None:
    r = result("transient_coupon", *CORRECT_PATH, faulted=1)
    assert result_from_data(result_data(r)) == r
    r2 = result("baseline", infra=InfraError("browser", "gone"))
    assert result_from_data(result_data(r2)) == r2


def test_the_results_file_does_not_carry_state_from_elsewhere() -> None:
    # Sanity for the fixture above: a wrong cart is judged from the shop's state alone.
    s = score(result("baseline", state=shop_state(ADD), status="completed"), EXPECT)
    assert s.outcome == "fail"
