"""`ajantik demo` end to end on the session's Chromium: `ajantik test run`'s runner on the
two scripted skills, and every verdict the judge derived from a run's record checked here
against the portal's own, authoritative state. The session's demo is filmed (as `ajantik
demo` can be): filming must leave every verdict as it was."""

from __future__ import annotations

import pytest

from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_cdp.core.scoring.verdicts import Verdict, World, verdict
from ajantik_cdp.demo.plan import OPTIONS, UPLOADS, conclusions, portal_check
from ajantik_cdp.demo.portal_system import ADAPTER
from ajantik_cdp.judge.adapter_loader import load_adapter
from ajantik_cdp.judge.verdict_file import decode_verdicts
from ajantik_cdp.testrun.score.matrix import Firing
from tests.support.demo_run import DemoRun

pytestmark = pytest.mark.browser


async def test_demo_verdicts_agree_with_the_portal(filmed_demo: DemoRun) -> None:
    outcome, seen, out = filmed_demo.outcome, filmed_demo.seen, filmed_demo.out
    assert not outcome.interrupted
    assert [t.test.name for t in outcome.tests] == ["blind", "verifying"]
    runs = [r for t in outcome.tests for r in t.all_runs]
    # A clean run each, then the plan found from it: four faults on the upload point.
    assert len(seen.runs) == len(runs) == 10
    assert seen.totals and set(seen.totals) == {10}
    for t in outcome.tests:
        assert t.stopped is None, t.stopped
        assert t.plan is not None
        assert [(r.point, r.kind, r.write) for r in t.plan.runs] == [
            (UPLOADS, k, 2) for k in OPTIONS.kinds]
    done_right = load_adapter(ADAPTER).module.done_right

    for o in runs:
        where0 = f"{o.test} {o.planned.label}"
        assert o.skill.crashed is None and o.skill.timed_out is None, where0
        check = portal_check(o)
        assert check.submissions == 0, where0
        assert [u.unit for u in o.judgement.units] == ["R-101", "R-102", "R-103"]
        for u in o.judgement.units:
            real = check.truth[u.unit]
            where = f"{where0} {u.unit}"
            assert u.verdict is not Verdict.UNSCORABLE, where
            # What the judge read from the record is exactly what the portal holds ...
            assert u.held.value == real.holds, where
            # ... so the verdict is the one the portal's own state gives for that claim.
            really = World(not done_right(u.unit, real.holds))
            assert u.verdict is verdict(really, u.claim.said), where
            # ... and the portal's own yardstick, which shares no code with the adapter.
            assert real.done_right is really.done_right, where
            assert {d.kind for d in u.damage} == real.damage, where
        # Every armed fault fired, on the upload point (a clean run has none).
        assert o.firing is (Firing.NO_FAULT if o.planned.is_clean else Firing.ON_POINT), where0
        # The gate: only the blind skill fooled, or leaving a duplicate, fails.
        must_fail = o.test == "blind" and o.planned.kind in (FaultKind.PHANTOM_SUCCESS,
                                                               FaultKind.PHANTOM_FAILURE)
        assert o.gate.passed is not must_fail, (where0, o.gate.summary())
        assert any((out / o.folder / "film").glob("*.jpg")), where0  # it was filmed
        written = decode_verdicts((out / o.folder / "verdicts.json").read_bytes())
        assert [x["verdict"] for x in written["units"]] == [
            u.verdict.value for u in o.judgement.units]

    by_run = {(o.test, o.planned.kind): o for o in runs}
    blind_ps = by_run[("blind", FaultKind.PHANTOM_SUCCESS)]
    assert [u.unit for u in blind_ps.judgement.units
            if u.verdict is Verdict.SILENT_WRONG] == ["R-102"]
    # The upload never landed: the portal's own state says so.
    assert portal_check(blind_ps).truth["R-102"].holds["documents"] == []
    blind_pf = by_run[("blind", FaultKind.PHANTOM_FAILURE)]
    assert [(d.kind, d.unit) for d in blind_pf.judgement.damage] == [("duplicate", "R-102")]
    assert len(portal_check(blind_pf).truth["R-102"].holds["documents"]) == 2
    for o in runs:
        if o.test == "verifying":
            assert not o.judgement.damage, o.planned.label
            assert Verdict.SILENT_WRONG not in {u.verdict for u in o.judgement.units}
    verifying = next(t for t in outcome.tests if t.test.name == "verifying")
    blind = next(t for t in outcome.tests if t.test.name == "blind")
    assert verifying.passed and not blind.passed
    assert all(c.holds for c in conclusions(outcome))
