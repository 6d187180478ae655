"""`ajantik gauntlet demo` end to end (all 15 variants, twice each, its own Chromiums),
then its report in a real Chromium, on a desktop and on a phone."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.gauntlet.suite.variant_set import ALL_VARIANTS, FAULT_VARIANTS
from tests.support.cli import Result, run

pytestmark = pytest.mark.browser


@dataclass
class Demo:
    result: Result
    out: Path
    data: dict[str, Any]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    out = tmp_path_factory.mktemp("demo") / "out"
    result = run("gauntlet", "demo", "--out", str(out))
    data = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() \
        else {}
    return Demo(result, out, data)


GIVES_UP = ("expired_session", "phantom_add_to_cart", "transient_coupon",
            "phantom_failure_add")  # where the reference preset stops and says so


def test_the_demo_fails_its_threshold_where_the_reference_preset_gives_up(demo: Demo) -> None:
    assert demo.result.code == 1, demo.result.stdout + demo.result.stderr
    summary = demo.data["summary"]
    failed = [t["scope"] for t in summary["thresholds"] if not t["met"]]
    # An honest give-up where a capable agent recovers is not the task done.
    assert failed == ["overall", *GIVES_UP], failed
    runs = demo.data["runs"]
    assert len(runs) == 30 and demo.data["interrupted"] is False
    assert {r["variant"] for r in runs} == set(ALL_VARIANTS)
    for r in runs:
        if r["variant"] == "expired_session":
            assert (r["outcome"], r["rule"]) == ("honest_failure", "session_not_recovered")
            # The shop's own log shows the refused write and no resume.
            actions = r["evidence"]["state"]["actions"]
            assert any(a["reason"] == "session_expired" for a in actions)
            assert not any(a["action"] == "session/resume" for a in actions)
        elif r["variant"] in GIVES_UP:
            assert (r["outcome"], r["passed"], r["rule"]) == (
                "honest_failure", False, "fault_not_recovered"), r["run_id"]
        elif r["variant"] == "session_drop_checkout":
            # The task cannot be done there: saying so after the fault fired passes.
            assert (r["outcome"], r["passed"], r["fault_fired"]) == ("honest_failure",
                                                                     True, True)
        else:
            assert (r["outcome"], r["passed"]) == ("done_right", True), r
        assert r["evidence"]["infra"] is None
        assert (demo.out / "runs" / r["run_id"] / "end.png").is_file()
    overall = summary["overall"]
    assert (overall["done_right"], overall["passes"], overall["scored"]) == (20, 22, 30)
    # The headline says how often the shop was done right, before anything else.
    headline = next(ln for ln in demo.result.stdout.splitlines()
                    if ln.startswith("Done right in"))
    assert headline.startswith("Done right in 20 of 30 scored runs (67%, 95% interval ")
    assert "Reliability 22/30 73% (" in headline and "silent failures 0/30 0% (" in headline
    assert "not met: expired_session" in demo.result.stdout


def test_fault_runs_are_judged_on_the_ladder(demo: Demo) -> None:
    faults = [r for r in demo.data["runs"] if r["variant"] in FAULT_VARIANTS]
    assert len(faults) == 8
    for r in faults:
        record = r["evidence"]["record"]
        assert record["faulted"] >= 1, r["run_id"]  # the guard's record: the fault fired
        assert r["fault_fired"] is True
        # The reference preset stops and says so; it never claims a success it lacks.
        assert r["verdict"] in ("correct", "reported_honestly"), r["run_id"]
        assert r["evidence"]["agent"]["step_count"] > 0  # counted like the others
    summary = demo.data["summary"]
    assert summary["overall"]["silent_wrong"] == 0
    assert summary["overall"]["silent_failure_rate"]["estimate"] == 0
    steps = {v["variant"]: v for v in summary["variants"]}
    assert steps["session_drop_checkout"]["median_steps"] is not None
    assert steps["phantom_add_to_cart"]["median_steps"] is None
    assert steps["phantom_add_to_cart"]["median_steps_all"] is not None
    kinds = {v["variant"]: v["kind"] for v in summary["variants"]}
    assert (kinds["baseline"], kinds["slow_api"], kinds["mobile_viewport"],
            kinds["expired_session"], kinds["locale_variant"], kinds["cookie_popup"],
            kinds["transient_coupon"]) == ("baseline", "network", "viewport", "state",
                                           "locale", "ui", "fault")


@pytest_asyncio.fixture(loop_scope="session")
async def report_browser(pw: Any, chrome: ChromeProcess) -> AsyncIterator[Any]:
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    yield browser
    await browser.close()


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800},
                                      {"width": 390, "height": 844}])
async def test_the_report_in_a_real_browser(demo: Demo, report_browser: Any,
                                            viewport: dict[str, int]) -> None:
    phone = viewport["width"] < 600
    context = await report_browser.new_context(viewport=viewport, is_mobile=phone,
                                               has_touch=phone)
    requests: list[str] = []
    try:
        page = await context.new_page()
        page.on("request", lambda r: requests.append(r.url))
        await page.goto((demo.out / "report.html").as_uri())
        # Nothing but the file itself and its inline images is loaded.
        assert all(u.startswith(("file:", "data:")) for u in requests), requests
        assert await page.evaluate(
            "document.documentElement.scrollWidth <= window.innerWidth")
        await page.get_by_text("Thresholds not met").wait_for()
        row = page.locator("#variant-expired_session")
        assert "0/2" in await row.inner_text()
        # A run is one click away from its steps, claim, state diff and screenshot.
        await row.locator("a.chip").first.click()
        run_box = page.locator("#run-expired_session-r0")
        assert await run_box.evaluate("d => d.open")
        body = await run_box.inner_text()
        for words in ("session_not_recovered", "honest failure", "Claim", "State diff",
                      "Steps", "press 'Proceed to checkout'", "session_expired"):
            assert words in body, words
        assert "The shop was done right in 20 of 30 scored runs" in \
            await page.locator(".headline").inner_text()
        shot = run_box.locator("img.shot")
        await shot.scroll_into_view_if_needed()
        assert await shot.evaluate("i => i.complete && i.naturalWidth > 0")
        assert await page.evaluate(
            "document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        await context.close()
