"""The resilient preset reaches 100% on every shop variant, judged from the shop's state;
and it recovers from the faults a capable agent can recover from (done right, which is
the only pass there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ajantik_cdp.gauntlet.run.suite_session import run_session
from ajantik_cdp.gauntlet.score.run_outcome import Outcome
from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite
from ajantik_cdp.gauntlet.suite.variant_set import UI_VARIANTS

pytestmark = pytest.mark.browser


async def test_resilient_passes_every_ui_variant(tmp_path: Path) -> None:
    recoverable = ("phantom_add_to_cart", "transient_coupon", "phantom_failure_add")
    suite = demo_suite("resilient", 1, (*UI_VARIANTS, *recoverable))
    outcome = await run_session(suite, tmp_path, workers=3)
    by_variant = {s.result.variant: s for s in outcome.runs}
    assert set(by_variant) == {*UI_VARIANTS, *recoverable}
    for variant in UI_VARIANTS:
        s = by_variant[variant]
        assert s.outcome is Outcome.DONE_RIGHT, (variant, s.classification,
                                                 s.result.agent.claim)
        assert s.result.state is not None and s.result.state["stage"] == "review"
    assert outcome.summary.exit_code == 0
    # Recovery, seen in the shop's own log: Resume once, the add redone after a phantom
    # success, and not redone after a phantom failure (no duplicate).
    expired = by_variant["expired_session"].result.state
    assert expired is not None and expired["applied_counts"]["session/resume"] == 1
    for variant in recoverable:
        s = by_variant[variant]
        assert (s.outcome, s.passed, s.verdict.value) == (Outcome.DONE_RIGHT, True,
                                                          "correct"), (variant, s)
        assert s.fault_fired is True
        state = s.result.state
        assert state is not None and state["cart"]["lines"][0]["quantity"] == 1
    steps = {v: by_variant[v].result.agent.step_count for v in ("baseline",
                                                                 "phantom_add_to_cart")}
    assert steps["phantom_add_to_cart"] > steps["baseline"]  # the detour shows in steps
