"""AgentClaim lines, suite numbers and thresholds, the results file and compare."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ajantik_cdp.core.scoring.verdicts import Said
from ajantik_cdp.gauntlet.evidence.claim_line import parse_claim
from ajantik_cdp.gauntlet.evidence.run_data import InfraError, result_data, result_from_data
from ajantik_cdp.gauntlet.score.comparison import NothingInCommon, compare
from ajantik_cdp.gauntlet.score.results_file import (
    ResultsFileError,
    RunContext,
    encode_results,
    load_results,
    read_results,
    results_data,
)
from ajantik_cdp.gauntlet.score.scoring import Scored, score
from ajantik_cdp.gauntlet.score.suite_summary import summarise_suite
from ajantik_cdp.gauntlet.suite.suite_file import Suite, Thresholds
from tests.gauntlet.builders import ADD, CORRECT_PATH, expectation, result

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
    assert c.status is None and c.said is Said.SILENT
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
    assert (slow.group.scored, slow.group.left_out, slow.group.passes) == (3, 1, 0)
    assert slow.group.infrastructure == 1 and slow.group.not_fired == 0
    assert (s.overall.passes, s.overall.scored, s.overall.left_out) == (5, 9, 1)
    assert s.overall.done_right == 5 and s.overall.silent_failures == 0
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
    assert "no scored runs (1 left out as infrastructure)" in s.failed_checks[0].detail


def test_a_fault_that_never_fired_is_shown_apart_and_meets_no_threshold() -> None:
    runs = [score(result("phantom_add_to_cart", status="failed", faulted=0, repetition=i),
                  EXPECT) for i in range(2)]
    s = summarise_suite(runs, ["phantom_add_to_cart"], 2, 0.95, Thresholds(reliability=0.5))
    v = s.variant("phantom_add_to_cart").group
    assert (v.runs, v.scored, v.not_fired, v.passes, v.reliability) == (2, 0, 2, 0, None)
    assert "2 where the fault did not fire" in s.failed_checks[0].detail


def test_the_silent_failure_rate_has_its_own_threshold() -> None:
    runs = scored_runs({"baseline": [(True, 7)] * 3})
    runs.append(score(result("baseline", ADD, ADD, status="failed", repetition=3), EXPECT))
    s = summarise_suite(runs, ["baseline"], 4, 0.95,
                        Thresholds(max_silent_failure_rate=0.0, max_silent_wrong=None))
    g = s.overall
    assert (g.silent_failures, g.silent_wrong, g.scored) == (1, 0, 4)
    assert g.silent_failure_rate is not None and g.silent_failure_rate.estimate == 0.25
    assert {(c.scope, c.metric) for c in s.failed_checks} == {
        ("overall", "silent_failure_rate"), ("baseline", "silent_failure_rate")}
    loose = summarise_suite(runs, ["baseline"], 4, 0.95,
                            Thresholds(max_silent_failure_rate=0.3, max_silent_wrong=None))
    assert loose.exit_code == 0
    # With the cautious gate, the interval's upper bound must be under the cap.
    strict = summarise_suite(runs, ["baseline"], 4, 0.95, Thresholds(
        max_silent_failure_rate=0.3, max_silent_wrong=None, gate="lower_bound"))
    assert strict.exit_code == 1 and "upper bound" in strict.failed_checks[0].detail


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
    assert c.differences_line() is None
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
    with pytest.raises(ResultsFileError, match="version 9; this ajantik reads version 1, 2"):
        read_results(b'{"format": "ajantik-gauntlet-results", "version": 9}', "x.json")
    with pytest.raises(ResultsFileError, match="version 1 and cannot be scored again"):
        read_results(b'{"format": "ajantik-gauntlet-results", "version": 1}', "x.json")


def test_run_evidence_round_trips_through_its_data() -> None:
    r = result("transient_coupon", *CORRECT_PATH, faulted=1)
    assert result_from_data(result_data(r)) == r
    r2 = result("baseline", infra=InfraError("browser", "gone"))
    assert result_from_data(result_data(r2)) == r2


DATA = Path(__file__).parent / "data"


def test_a_version_1_file_is_scored_again_under_the_ladder() -> None:
    # Written by ajantik at a5f997e (results version 1): an agent that dies at import
    # "passed" phantom_add_to_cart and session_drop_checkout there, the fault never fired.
    raw = (DATA / "results-v1-crash.json").read_bytes()
    old = orjson.loads(raw)
    assert old["version"] == 1
    assert [r["outcome"] for r in old["runs"]].count("pass") == 2
    loaded = load_results(raw, "old.json")
    assert loaded.translated_from == 1
    data = loaded.data
    assert data["version"] == 2 and data["translated_from"] == 1
    assert any("scored again from their evidence" in n for n in data["notes"])
    assert {r["outcome"] for r in data["runs"]} == {"agent_crashed"}
    assert not any(r["passed"] for r in data["runs"])
    assert data["summary"]["overall"]["passes"] == 0
    assert data["summary"]["overall"]["scored"] == 4
    view = read_results(raw, "old.json")
    assert view.note is not None and "version 1" in view.note


def test_compare_translates_a_version_1_file_and_says_so() -> None:
    ref = read_results((DATA / "results-v1-ref.json").read_bytes(), "ref-v1.json")
    crash = read_results((DATA / "results-v1-crash.json").read_bytes(), "crash-v1.json")
    # Under version 2 the reference preset's honest stop on a phantom add is no pass.
    assert ref.variants["phantom_add_to_cart"].passes == 0
    assert ref.variants["session_drop_checkout"].passes == 1
    c = compare(ref, crash)
    assert {m.variant for m in c.regressions} == {"baseline", "session_drop_checkout"}
    assert any("ref-v1.json is results version 1" in n for n in c.notes)
    line = c.differences_line()
    assert line is not None and "agents reference agent, preset reference -> command agent" \
        in line


def test_compare_compares_only_what_both_ran_and_says_what_differs_in_one_line() -> None:
    from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite

    suite = demo_suite()
    a = read_results(results_bytes(scored_runs({"baseline": [(True, 7)] * 3,
                                                "slow_api": [(True, 9)] * 3}),
                                   ["baseline", "slow_api"], suite), "a.json")
    b = read_results(results_bytes(scored_runs({"baseline": [(True, 7)] * 3,
                                                "cookie_popup": [(False, 2)] * 3}),
                                   ["baseline", "cookie_popup"], suite), "b.json")
    c = compare(a, b)
    assert c.compared == ("baseline",) and c.exit_code == 0
    assert c.overall is not None and c.overall.estimate == 0  # baseline against baseline
    line = c.differences_line()
    assert line is not None and "\n" not in line
    assert "only a.json ran slow_api" in line and "only b.json ran cookie_popup" in line
    assert line.startswith("compared only what both ran (1 variant)")
    c_only = read_results(results_bytes(scored_runs({"cookie_popup": [(True, 2)]}),
                                        ["cookie_popup"], suite), "c.json")
    with pytest.raises(NothingInCommon, match="share no variant"):
        compare(a, c_only)
