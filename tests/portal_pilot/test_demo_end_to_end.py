"""`ajantik demo` end to end on the session's Chromium: every verdict the judge derived
from a run's record is checked here against the portal's own, authoritative state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ajantik_cdp.core.verdicts import Verdict, World, verdict
from ajantik_cdp.demo.plan import RunOutcome, conclusions, plan
from ajantik_cdp.demo.runner import ADAPTER, run_demo
from ajantik_cdp.judge.adapter_loader import load_adapter
from ajantik_cdp.judge.verdict_file import decode_verdicts

pytestmark = pytest.mark.browser


async def test_demo_verdicts_agree_with_the_portal(chrome: Any, tmp_path: Path) -> None:
    seen: list[RunOutcome] = []
    outcomes = await run_demo(plan(), tmp_path, seen.append, chromes=[chrome])
    assert [o.spec for o in outcomes] == plan()
    assert len(seen) == len(outcomes) == 10
    done_right = load_adapter(ADAPTER).module.done_right

    for o in outcomes:
        assert o.skill_error is None, o.spec.label
        assert o.submissions == 0, o.spec.label
        assert [u.unit for u in o.judgement.units] == ["R-101", "R-102", "R-103"]
        for u in o.judgement.units:
            real = o.truth[u.unit]
            where = f"{o.spec.label} {u.unit}"
            # Every demo run's record shows every filing's outcome.
            assert u.verdict is not Verdict.UNSCORABLE, where
            # What the judge read from the record is exactly what the portal holds ...
            assert u.held.value == real.holds, where
            # ... so the verdict is the one the portal's own state gives for that claim.
            really = World(not done_right(u.unit, real.holds))
            assert u.verdict is verdict(really, u.claim.said), where
            # ... and the portal's own yardstick, which shares no code with the adapter.
            assert real.done_right is really.done_right, where
            assert {d.kind for d in u.damage} == real.damage, where
        # Every armed fault fired (a clean run has none): each run tested its fault.
        assert o.judgement.record.fault_fired is (True if o.spec.fault else None), (
            o.spec.label)
        # The gate: only the blind skill fooled, or leaving a duplicate, fails.
        gate = o.gate()
        must_fail = (o.spec.skill, o.spec.fault) in {("blind", "phantom_success"),
                                                     ("blind", "phantom_failure")}
        assert gate.passed is not must_fail, (o.spec.label, gate.summary())
        written = decode_verdicts((tmp_path / o.spec.slug / "verdicts.json").read_bytes())
        assert [x["verdict"] for x in written["units"]] == [
            u.verdict.value for u in o.judgement.units]

    by_run = {(o.spec.skill, o.spec.fault): o for o in outcomes}
    blind_ps = by_run[("blind", "phantom_success")]
    assert [u.unit for u in blind_ps.judgement.units
            if u.verdict is Verdict.SILENT_WRONG] == ["R-102"]
    assert blind_ps.truth["R-102"].holds["documents"] == []  # the upload never landed
    blind_pf = by_run[("blind", "phantom_failure")]
    assert [(d.kind, d.unit) for d in blind_pf.judgement.damage] == [("duplicate", "R-102")]
    assert len(blind_pf.truth["R-102"].holds["documents"]) == 2
    for o in outcomes:
        if o.spec.skill == "verifying":
            assert not o.judgement.damage, o.spec.label
            assert Verdict.SILENT_WRONG not in {u.verdict for u in o.judgement.units}
    assert all(c.holds for c in conclusions(outcomes))
