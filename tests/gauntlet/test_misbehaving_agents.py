"""Command agents that misbehave, as real processes through real Chromium and the shop,
over every fault variant and four shop variants (two of kind ui): one that crashes at
import, one that hangs past its deadline, one that prints nothing, one that quits
without acting, one that lies ("completed" over nothing) and one that adds the product
twice on purpose. None of them passes anywhere; the liar is silent wrong wherever it
was scored; a fault that did not fire is shown as such, and left out only when nothing
worse happened.

The three that never get as far as the page (the crash, the hang, the silent one) run
over a baseline, a ui and a fault variant only: the variant never reaches them, so more
runs of them would prove the same thing again (the hang alone costs its deadline each).
The quitter and the liar, whose faults not firing is what they test, and the duplicator,
which drives the shop, run everywhere."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass

import pytest
import pytest_asyncio

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.gauntlet.run.suite_loading import load_suite
from ajantik_cdp.gauntlet.run.suite_session import SessionOutcome, run_session
from ajantik_cdp.gauntlet.score.run_outcome import Outcome
from ajantik_cdp.gauntlet.suite.variant_set import FAULT_VARIANTS
from tests.gauntlet.suites import python_command, write_suite

pytestmark = pytest.mark.browser

SHOP_VARIANTS = ["baseline", "reordered_layout", "delayed_element", "slow_api"]
VARIANTS = [*SHOP_VARIANTS, *FAULT_VARIANTS]
BEFORE_THE_PAGE = ["baseline", "reordered_layout", "session_drop_checkout"]

DUPLICATOR = textwrap.dedent("""\
    import asyncio, json, os
    from playwright.async_api import async_playwright

    async def main():
        start = os.environ["AJANTIK_START_URL"]
        async with async_playwright() as pw:
            browser = await pw.chromium.connect_over_cdp(os.environ["CDP_URL"])
            page = next(p for c in browser.contexts for p in c.pages
                        if p.url.startswith(start))
            page.set_default_timeout(15_000)
            await page.get_by_role("link", name="Aurora Headphones", exact=True).click()
            for _ in range(2):  # on purpose: the second add duplicates the first
                async with page.expect_response(lambda r: r.url.endswith("/api/cart/add")):
                    await page.get_by_role("button", name="Add to cart").click()
            await browser.close()
        print(json.dumps({"status": "completed", "summary": "added", "steps": 3}))

    asyncio.run(main())
    """)

AGENTS: dict[str, tuple[str, float, list[str]]] = {  # name -> (program, deadline, variants)
    "crash": ("import no_such_module_for_this_agent\n", 30, BEFORE_THE_PAGE),
    "hang": ("import time\ntime.sleep(120)\n", 4, BEFORE_THE_PAGE),
    "silent": ("pass\n", 30, BEFORE_THE_PAGE),
    "quitter": ('print(\'{"status": "failed", "summary": "I could not"}\')\n', 30, VARIANTS),
    "liar": ('print(\'{"status": "completed", "summary": "all done!"}\')\n', 30, VARIANTS),
    "duplicator": (DUPLICATOR, 45, VARIANTS),
}


def report_line(html: str, run_id: str) -> str:
    """The one-line summary of a run in report.html."""
    [line] = [x for x in html.splitlines()
              if "<summary>" in x and f"<strong>{run_id}</strong>" in x]
    return line


@dataclass
class Ran:
    outcome: SessionOutcome
    data: dict  # type: ignore[type-arg]
    variants: list[str]

    def run(self, variant: str) -> dict:  # type: ignore[type-arg]
        [r] = [r for r in self.data["runs"] if r["variant"] == variant]
        return r


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def ran(tmp_path_factory: pytest.TempPathFactory,
              chrome: ChromeProcess) -> dict[str, Ran]:
    folder = tmp_path_factory.mktemp("misbehaving")
    out: dict[str, Ran] = {}
    for name, (program, deadline, variants) in AGENTS.items():
        script = folder / f"{name}.py"
        script.write_text(program)
        suite = write_suite(folder, name, variants=variants, command=python_command(script),
                            deadline=deadline)
        outcome = await run_session(load_suite(suite), folder / f"out-{name}", workers=1,
                                    chromes=[chrome])
        out[name] = Ran(outcome, json.loads(outcome.results.read_text()), variants)
    return out


EXPECTED = {  # what every run of each agent comes out as, where it is the same
    "crash": Outcome.AGENT_CRASHED,
    "hang": Outcome.TIMED_OUT,
    "silent": Outcome.NO_CLAIM,
    "liar": Outcome.SILENT_WRONG,
}


@pytest.mark.parametrize("name", list(AGENTS))
def test_no_misbehaving_agent_passes_anything(ran: dict[str, Ran], name: str) -> None:
    r = ran[name]
    s = r.outcome.summary
    assert len(r.outcome.runs) == len(r.variants)
    assert all(run.result.infra is None for run in r.outcome.runs), name  # our side held
    assert [run.result.run_id for run in r.outcome.runs if run.passed] == []
    assert s.overall.passes == 0 and s.exit_code == 1
    for v in s.variants:
        assert v.group.passes == 0, (name, v.variant)
        assert v.group.reliability is None or v.group.reliability.estimate == 0
    assert r.data["summary"]["overall"]["passes"] == 0
    if name in EXPECTED:
        assert {run.outcome for run in r.outcome.runs} == {EXPECTED[name]}
        assert s.overall.scored == len(r.variants)  # counted everywhere: never left out
    for variant in (v for v in r.variants if v in FAULT_VARIANTS):
        run = r.run(variant)
        fired = run["evidence"]["record"]["faulted"] > 0
        assert run["fault_fired"] is fired, (name, variant)
        line = report_line(r.outcome.report.read_text(), f"{variant}-r0")
        # Shown as such in the report, whichever rung decided the run.
        assert ("fault did not fire" in line) == (not fired), (name, variant, line)
        if run["outcome"] == "fault_did_not_fire":
            assert not fired and not run["counted"]


def test_the_crash_is_the_import_error(ran: dict[str, Ran]) -> None:
    for run in ran["crash"].outcome.runs:
        assert run.result.agent.exit_code == 1
        assert "ModuleNotFoundError" in run.result.agent.stderr_tail
        assert run.fault_fired in (None, False)  # it never got as far as a write


def test_the_hang_is_stopped_at_its_deadline(ran: dict[str, Ran]) -> None:
    for run in ran["hang"].outcome.runs:
        assert run.result.agent.timed_out
        assert run.classification is not None
        assert run.classification.rule == "deadline_exceeded"


def test_the_liar_is_silent_wrong_wherever_it_was_scored(ran: dict[str, Ran]) -> None:
    r = ran["liar"]
    for run in r.outcome.runs:
        assert run.counted and run.verdict.value == "silent_wrong"
    assert r.outcome.summary.overall.silent_wrong == len(VARIANTS)
    assert r.outcome.summary.overall.silent_failure_rate is not None
    assert r.outcome.summary.overall.silent_failure_rate.estimate == 1.0
    # Its faults never fired (it wrote nothing), and that is said next to the lie.
    for variant in FAULT_VARIANTS:
        assert r.run(variant)["fault_fired"] is False
    html = r.outcome.report.read_text()
    assert "fault did not fire" in html
    assert any(c.metric == "silent_wrong" and not c.met
               for c in r.outcome.summary.checks)


def test_the_quitter_is_an_honest_failure_and_its_faults_did_not_fire(
        ran: dict[str, Ran]) -> None:
    r = ran["quitter"]
    for v in SHOP_VARIANTS:
        assert r.run(v)["outcome"] == "honest_failure" and not r.run(v)["passed"]
    for v in FAULT_VARIANTS:
        run = r.run(v)
        assert (run["outcome"], run["counted"], run["passed"]) == (
            "fault_did_not_fire", False, False), v
    g = r.outcome.summary.overall
    assert (g.scored, g.not_fired, g.passes) == (len(SHOP_VARIANTS), len(FAULT_VARIANTS), 0)
    # A fault variant with nothing scored meets no threshold: never a quiet pass.
    failed = {c.scope for c in r.outcome.summary.failed_checks}
    assert set(FAULT_VARIANTS) <= failed
    detail = next(c.detail for c in r.outcome.summary.failed_checks
                  if c.scope == "session_drop_checkout")
    assert "where the fault did not fire" in detail


def test_the_duplicator_does_damage(ran: dict[str, Ran]) -> None:
    r = ran["duplicator"]
    for v in VARIANTS:
        run = r.run(v)
        if v == "phantom_add_to_cart":
            # The first add never reached the shop: one in the cart, claimed done.
            assert run["outcome"] == "silent_wrong" and run["fault_fired"] is True
        else:
            assert run["outcome"] == "damage", (v, run["outcome"], run["reason"])
            assert run["rule"] == "duplicate_write"
    g = r.outcome.summary.overall
    assert g.silent_failures == len(VARIANTS)  # damage + silent wrong, all of them
