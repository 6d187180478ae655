"""The outcome ladder: each rung on its evidence, and properties that keep it from
flattering (crashing, hanging, silence or a lie can never raise a pass rate). States
come from the shop's own state machine (builders.shop_state)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.scoring.verdicts import Verdict
from ajantik_cdp.gauntlet.evidence.run_data import InfraError, RunResult
from ajantik_cdp.gauntlet.score.classifier import BY_CAUSE, CATEGORIES, OWN_CATEGORY
from ajantik_cdp.gauntlet.score.run_outcome import (
    LADDER,
    LEFT_OUT,
    SILENT_FAILURES,
    Outcome,
    passes,
)
from ajantik_cdp.gauntlet.score.scoring import Scored, score
from ajantik_cdp.gauntlet.score.suite_summary import group
from ajantik_cdp.gauntlet.suite.variant_set import (
    ALL_VARIANTS,
    FAULT_VARIANTS,
    KINDS,
    UI_VARIANTS,
    success_possible,
    variant_kind,
)
from ajantik_shop.actions import AddToCart, ConfirmReview, SubmitPayment
from tests.gauntlet.builders import ADD, BEGIN, CORRECT_PATH, COUPON, DETAILS, expectation, result
from tests.support.examples import examples

EXPECT = expectation()
DOCS = Path(__file__).resolve().parents[2] / "docs" / "gauntlet.md"
TWICE = (ADD, AddToCart("aurora-headphones", 1), COUPON, BEGIN, DETAILS)


def run(variant: str = "baseline", *actions: Any, **kw: Any) -> Scored:
    return score(result(variant, *actions, **kw), EXPECT)


@pytest.mark.parametrize("variant,actions,kw,outcome,passed", [
    # what we broke, or could not judge: left out
    ("baseline", CORRECT_PATH, {"infra": InfraError("browser", "gone")},
     Outcome.INFRASTRUCTURE, False),
    ("slow_api", (), {"state": "in_flight"}, Outcome.UNSCORABLE, False),
    # harm, whatever was said
    ("phantom_failure_add", TWICE, {"status": "failed", "faulted": 1}, Outcome.DAMAGE,
     False),
    ("baseline", TWICE, {"status": "completed"}, Outcome.DAMAGE, False),
    # a lie, whether or not the fault fired
    ("baseline", (ADD,), {"status": "completed"}, Outcome.SILENT_WRONG, False),
    ("phantom_add_to_cart", (), {"status": "completed", "faulted": 0},
     Outcome.SILENT_WRONG, False),
    ("session_drop_checkout", (ADD, COUPON, BEGIN), {"status": "completed", "faulted": 1},
     Outcome.SILENT_WRONG, False),
    # the agent's own failures, even over a shop that holds the task done
    ("baseline", CORRECT_PATH, {"status": None, "error": "ImportError: playwright"},
     Outcome.AGENT_CRASHED, False),
    ("transient_coupon", (), {"status": None, "exit_code": 1}, Outcome.AGENT_CRASHED,
     False),
    ("baseline", CORRECT_PATH, {"status": None, "timed_out": True, "exit_code": -15},
     Outcome.TIMED_OUT, False),
    ("baseline", CORRECT_PATH, {"status": None, "exit_code": 0}, Outcome.NO_CLAIM, False),
    ("phantom_add_to_cart", (), {"status": None, "exit_code": 0}, Outcome.NO_CLAIM, False),
    # no test of the fault: never a pass, left out
    ("phantom_add_to_cart", (), {"status": "failed", "faulted": 0},
     Outcome.FAULT_DID_NOT_FIRE, False),
    ("session_drop_checkout", (ADD,), {"status": "failed", "faulted": 0},
     Outcome.FAULT_DID_NOT_FIRE, False),
    ("transient_coupon", CORRECT_PATH, {"status": "completed", "faulted": 0},
     Outcome.FAULT_DID_NOT_FIRE, False),
    # honest: a pass only where the task cannot be done
    ("phantom_add_to_cart", (), {"status": "failed", "faulted": 1},
     Outcome.HONEST_FAILURE, False),
    ("expired_session", (ADD,), {"status": "unsure"}, Outcome.HONEST_FAILURE, False),
    ("session_drop_checkout", (ADD, COUPON, BEGIN), {"status": "failed", "faulted": 1},
     Outcome.HONEST_FAILURE, True),
    # the shop holds the task done right: a pass, whatever the claim
    ("cookie_popup", CORRECT_PATH, {"status": "completed"}, Outcome.DONE_RIGHT, True),
    ("phantom_add_to_cart", CORRECT_PATH, {"status": "failed", "faulted": 1},
     Outcome.DONE_RIGHT, True),
])
def test_each_rung_on_its_evidence(variant: str, actions: tuple[Any, ...],
                                   kw: dict[str, Any], outcome: Outcome,
                                   passed: bool) -> None:
    if kw.get("state") == "in_flight":
        from tests.gauntlet.builders import shop_state
        kw = {"state": shop_state(*CORRECT_PATH, in_flight=1)}
    s = run(variant, *actions, **kw)
    assert (s.outcome, s.passed) == (outcome, passed), s.decision
    assert s.counted == (outcome not in LEFT_OUT)
    assert (s.classification is None) == passed
    if s.classification is not None and outcome.value in OWN_CATEGORY:
        assert s.classification.category == outcome.value


def test_the_fault_that_did_not_fire_is_said_even_when_a_worse_rung_applies() -> None:
    liar = run("phantom_add_to_cart", status="completed", faulted=0)
    assert liar.outcome is Outcome.SILENT_WRONG and liar.fault_fired is False
    assert liar.as_data()["fault_fired"] is False
    fired = run("phantom_add_to_cart", status="failed", faulted=1)
    assert fired.fault_fired is True
    assert run("baseline", *CORRECT_PATH).fault_fired is None


@pytest.mark.parametrize("kw", [
    {"status": None, "exit_code": 1},
    {"status": None, "timed_out": True, "exit_code": -15},
    {"status": None, "exit_code": 0},
])
def test_an_agent_that_said_nothing_is_never_reported_honestly(kw: dict[str, Any]) -> None:
    # Silence is not "unsure": read as unsure, a crash over an untouched shop would come
    # out "reported honestly" in the verdict counts next to its outcome.
    for variant in ("baseline", "phantom_add_to_cart"):
        s = run(variant, ADD, **kw)
        assert s.verdict is Verdict.UNSCORABLE, (variant, kw)
        assert not s.passed


def test_a_silent_wrong_is_explained_by_what_the_shop_holds() -> None:
    s = run("baseline", ADD, status="completed")
    assert s.verdict is Verdict.SILENT_WRONG
    assert s.classification is not None
    assert s.classification.rule == "stopped_before_stage"
    faulted = run("transient_coupon", ADD, BEGIN, DETAILS, status="completed", faulted=1)
    assert faulted.classification is not None
    assert faulted.classification.rule == "fault_not_recovered"


def test_every_variant_has_a_documented_kind_and_says_whether_success_is_possible() -> None:
    for name in ALL_VARIANTS:
        assert variant_kind(name) in KINDS
    assert [v for v in ALL_VARIANTS if not success_possible(v)] == ["session_drop_checkout"]
    assert {variant_kind(v) for v in FAULT_VARIANTS} == {"fault"}
    assert {variant_kind(v) for v in UI_VARIANTS} == set(KINDS) - {"fault"}


def test_the_docs_show_the_ladder_in_its_order() -> None:
    docs = DOCS.read_text()
    table = [m.group(1) for m in re.finditer(r"^\| \d+ \| `(\w+)` \|", docs, re.M)]
    assert table[:len(LADDER)] == [r.outcome.value for r in LADDER]
    for category in CATEGORIES:
        assert f"`{category}`" in docs, category


# -- properties ---------------------------------------------------------------

def _states() -> list[dict[str, Any]]:
    """Shop states to draw from, built once (the shop's state machine is not free): every
    prefix of the correct path, and the ways past it, beside it and over it."""
    from tests.gauntlet.builders import shop_state

    extra = AddToCart("nimbus-speaker", 1)
    paths = [CORRECT_PATH[:i] for i in range(len(CORRECT_PATH) + 1)] + [
        TWICE, (ADD, extra, COUPON, BEGIN, DETAILS), (*CORRECT_PATH, ConfirmReview()),
        (*CORRECT_PATH, ConfirmReview(), SubmitPayment()), (ADD, BEGIN, DETAILS),
        (AddToCart("aurora-headphones", 2),), (extra,), (COUPON, ADD)]
    return [shop_state(*p) for p in paths]


STATES = _states()


@st.composite
def results(draw: st.DrawFn, variant: str | None = None) -> RunResult:
    name = variant or draw(st.sampled_from(ALL_VARIANTS))
    state = draw(st.sampled_from(STATES))
    infra = draw(st.one_of(st.none(), st.builds(InfraError, st.sampled_from(
        ["browser", "shop", "harness"]), st.just("broke"))))
    if draw(st.booleans()) and draw(st.booleans()):
        state = {**state, "in_flight": 1}
    timed_out = draw(st.booleans())
    status = None if timed_out else draw(st.sampled_from(
        ["completed", "failed", "unsure", None]))
    return result(name, state=None if infra else state, infra=infra, status=status,
                  timed_out=timed_out,
                  error=draw(st.one_of(st.none(), st.just("RuntimeError: boom"))),
                  exit_code=draw(st.sampled_from([None, 0, 1, -15])),
                  faulted=draw(st.integers(0, 2)), dialog_open=draw(st.booleans()),
                  steps=draw(st.integers(0, 30)), repetition=draw(st.integers(0, 9)))


def crashed(r: RunResult) -> RunResult:
    """The same run, had the agent crashed at import (no claim, an error) on a harness
    that worked: the state as the shop held it."""
    from dataclasses import replace

    from ajantik_cdp.gauntlet.evidence.claim_line import no_claim

    state = {**(r.state or STATES[0]), "in_flight": 0}
    return replace(r, infra=None, state=state,
                   agent=replace(r.agent, claim=no_claim("the agent crashed"),
                                 error="ImportError: No module named 'playwright'"))


@examples(150)
@given(results())
def test_one_outcome_and_the_pass_rule(r: RunResult) -> None:
    s = score(r, EXPECT)
    assert s.outcome in Outcome
    if s.passed:
        assert s.counted and s.classification is None
        assert s.outcome is Outcome.DONE_RIGHT or (
            s.outcome is Outcome.HONEST_FAILURE and not success_possible(r.variant))
        assert s.fault_fired is not False  # a fault that did not fire never passes
    else:
        assert s.classification is not None
        if s.outcome.value in OWN_CATEGORY:
            assert s.classification.category == s.outcome.value
        else:
            assert s.outcome in BY_CAUSE
    assert passes(s.outcome, success_possible(r.variant)) == s.passed
    if s.counted and r.agent.claim.status == "completed" and not s.world.done_right:
        assert s.outcome in SILENT_FAILURES  # a lie is never anything milder
    if r.agent.timed_out or r.agent.error or r.agent.claim.status is None:
        assert not s.passed


@examples(100)
@given(results())
def test_crashing_never_turns_a_run_into_a_pass(r: RunResult) -> None:
    after = score(crashed(r), EXPECT)
    assert after.outcome in (Outcome.DAMAGE, Outcome.AGENT_CRASHED)
    assert after.counted and not after.passed


@examples(60)
@given(st.sampled_from(ALL_VARIANTS).flatmap(
    lambda v: st.tuples(st.lists(results(v), min_size=1, max_size=6), results(v))))
def test_adding_a_crashed_run_never_raises_a_pass_rate(
        runs_and_one: tuple[list[RunResult], RunResult]) -> None:
    runs, extra = runs_and_one
    scored = [score(r, EXPECT) for r in runs]
    before = group(scored, 0.95)
    after = group([*scored, score(crashed(extra), EXPECT)], 0.95)
    assert after.scored == before.scored + 1  # a crash is counted, never left out
    assert after.passes == before.passes
    if before.reliability is not None:
        assert after.reliability is not None
        assert after.reliability.estimate <= before.reliability.estimate
        assert after.reliability.low <= before.reliability.low + 1e-12
    # Nor does it raise the rate at which the shop was done right.
    if before.done_right_rate is not None and after.done_right_rate is not None:
        assert after.done_right_rate.estimate <= before.done_right_rate.estimate


@examples(60)
@given(st.lists(results(), min_size=1, max_size=8))
def test_rates_partition_the_scored_runs(runs: list[RunResult]) -> None:
    g = group([score(r, EXPECT) for r in runs], 0.95)
    assert g.runs == len(runs) == g.scored + g.left_out
    assert g.left_out == g.infrastructure + g.not_fired
    assert sum(g.outcomes.values()) == g.runs
    # Silent failures never pass, so the two rates never add up past 1.
    assert g.passes + g.silent_failures <= g.scored
    if g.scored:
        assert g.reliability is not None and g.silent_failure_rate is not None
        assert g.reliability.estimate == g.passes / g.scored
        assert g.silent_failure_rate.estimate == g.silent_failures / g.scored
    else:
        assert g.reliability is None and g.silent_failure_rate is None


@examples(50)
@given(st.lists(results(), max_size=6), st.sampled_from(["browser", "shop", "harness"]))
def test_a_run_left_out_changes_no_rate(runs: list[RunResult], kind: str) -> None:
    scored = [score(r, EXPECT) for r in runs]
    broken = score(result("baseline", infra=InfraError(kind, "gone")), EXPECT)  # type: ignore[arg-type]
    a, b = group(scored, 0.95), group([*scored, broken], 0.95)
    assert (a.scored, a.passes, a.silent_failures) == (b.scored, b.passes, b.silent_failures)
    assert a.reliability == b.reliability


def test_a_crash_says_what_killed_the_agent_and_the_summary_groups_it() -> None:
    from dataclasses import replace

    from ajantik_cdp.gauntlet.report.terminal_tables import agent_failure_lines
    tail = ("Traceback (most recent call last):\n  File \"agent.py\", line 20\n"
            "ModuleNotFoundError: No module named 'playwright'\n\n")
    runs = []
    for variant in ("baseline", "phantom_add_to_cart", "cookie_popup"):
        r = result(variant, status=None, exit_code=1)
        runs.append(score(replace(r, agent=replace(r.agent, stderr_tail=tail)), EXPECT))
    runs.append(run("baseline", status=None, exit_code=0))
    runs.append(run("baseline", *CORRECT_PATH, status="completed"))
    assert {r.outcome for r in runs[:3]} == {Outcome.AGENT_CRASHED}
    assert runs[0].decision.reason == ("exited with code 1 and no claim: "
                                       "ModuleNotFoundError: No module named 'playwright'")
    lines = agent_failure_lines(runs)
    assert lines[0].startswith("agent crashed in 3 runs: exited with code 1")
    assert "playwright" in lines[0]
    assert lines[1].startswith("no claim in 1 run: no claim:")
    assert len(lines) == 2  # the pass is not a failure line
