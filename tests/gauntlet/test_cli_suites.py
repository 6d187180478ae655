"""`ajantik gauntlet run` and `compare` as a user runs them, and the exit-code contract:
0 thresholds met, 1 not met (compare: a regression, named), 2 a bad suite or file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.gauntlet.suites import write_suite
from tests.support.cli import Result, run

pytestmark = pytest.mark.browser

VARIANTS = ["baseline", "cookie_popup"]


@dataclass
class Ran:
    result: Result
    out: Path

    def data(self) -> dict:  # type: ignore[type-arg]
        return json.loads((self.out / "results.json").read_text())


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """The same two-variant suite, once with the resilient and once with the naive
    preset: one run per variant each."""
    folder = tmp_path_factory.mktemp("suites")
    out: dict[str, Ran] = {}
    for preset in ("resilient", "naive"):
        suite = write_suite(folder, preset, variants=VARIANTS, preset=preset)
        target = folder / f"out-{preset}"
        out[preset] = Ran(run("gauntlet", "run", str(suite), "--out", str(target)), target)
    return out


def test_a_suite_that_meets_its_thresholds_exits_0(runs: dict[str, Ran]) -> None:
    ran = runs["resilient"]
    assert ran.result.code == 0, ran.result.stdout + ran.result.stderr
    assert "every threshold met" in ran.result.stdout
    data = ran.data()
    assert data["format"] == "ajantik-gauntlet-results" and data["version"] == 2
    assert [r["run_id"] for r in data["runs"]] == ["baseline-r0", "cookie_popup-r0"]
    for r in data["runs"]:
        assert (r["outcome"], r["passed"], r["verdict"]) == ("done_right", True, "correct")
        state = r["evidence"]["state"]  # the shop's own answer, not the agent's
        assert state["stage"] == "review" and not state["purchase_submitted"]
        assert state["cart"]["total_cents"] == 10320
        assert (ran.out / "runs" / r["run_id"] / "end.png").stat().st_size > 1000
    assert (ran.out / "report.html").is_file()


def test_a_suite_that_misses_a_threshold_exits_1_and_says_which(runs: dict[str, Ran]) -> None:
    ran = runs["naive"]
    assert ran.result.code == 1, ran.result.stdout + ran.result.stderr
    assert "not met: cookie_popup" in ran.result.stdout
    by_id = {r["run_id"]: r for r in ran.data()["runs"]}
    popup = by_id["cookie_popup-r0"]
    # Naive does not handle overlays: its click is blocked by the consent banner, and it
    # says so; an honest give-up where the task can be done is no pass.
    assert (popup["outcome"], popup["passed"], popup["counted"]) == ("honest_failure",
                                                                    False, True)
    assert (popup["category"], popup["rule"]) == ("overlay", "overlay_left_open")
    assert popup["evidence"]["page"]["dialog_open"] is True
    assert popup["evidence"]["state"]["cart"]["items"] == 0


def test_compare_exits_1_naming_the_variant_that_regressed(runs: dict[str, Ran]) -> None:
    good = str(runs["resilient"].out / "results.json")
    bad = str(runs["naive"].out / "results.json")
    worse = run("gauntlet", "compare", good, bad)
    assert worse.code == 1, worse.stdout + worse.stderr
    assert "regressed: cookie_popup" in worse.stdout
    # naive's one-second waits can miss the baseline on a loaded machine: then, and only
    # then, the baseline is named too.
    naive_baseline = runs["naive"].data()["runs"][0]
    assert naive_baseline["run_id"] == "baseline-r0"
    named = "baseline (" in worse.stdout.split("regressed:")[1]
    assert named == (not naive_baseline["passed"])
    better = run("gauntlet", "compare", bad, good)
    assert better.code == 0 and "improved: cookie_popup" in better.stdout
    assert run("gauntlet", "compare", good, good).code == 0


def test_compare_refuses_a_file_that_is_not_results(runs: dict[str, Ran],
                                                    tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"format": "ajantik-verdicts", "version": 1}')
    res = run("gauntlet", "compare", str(runs["naive"].out / "results.json"), str(other))
    assert res.code == 2
    assert "not an ajantik gauntlet results file" in res.one_line_error()


def test_report_is_rebuilt_from_results(runs: dict[str, Ran], tmp_path: Path) -> None:
    target = tmp_path / "again.html"
    res = run("gauntlet", "report", str(runs["naive"].out / "results.json"),
              "--out", str(target))
    assert res.code == 0
    html = target.read_text()
    assert "overlay_left_open" in html and "data:image/png;base64," in html
