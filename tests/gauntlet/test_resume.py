"""Resume: the pure part (what a results file lets a resume keep, what a changed suite
is), then a suite whose process is killed outright mid-run and resumed from the command
line: nothing that finished is lost, no run counted twice."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.gauntlet.evidence.run_data import InfraError
from ajantik_cdp.gauntlet.run.resume import ResumeError, resume_from, resumed_data, suite_changes
from ajantik_cdp.gauntlet.run.suite_loading import load_suite
from ajantik_cdp.gauntlet.score.results_file import RunContext, results_data
from ajantik_cdp.gauntlet.score.scoring import score
from ajantik_cdp.gauntlet.score.suite_summary import summarise_suite
from ajantik_cdp.gauntlet.suite.suite_file import Suite
from tests.gauntlet.builders import CORRECT_PATH, expectation, result
from tests.gauntlet.suites import CUSTOM_AGENT, python_command, write_suite
from tests.support.cli import AJANTIK
from tests.support.ray_cluster import descendants


def results_of(suite: Suite, *results: Any) -> dict[str, Any]:
    runs = [score(r, expectation()) for r in results]
    summary = summarise_suite(runs, suite.variants, suite.repetitions, suite.confidence,
                              suite.thresholds)
    ctx = RunContext("the-suite-run", "2025-01-01T00:00:00Z", "2025-01-01T00:01:00Z", 60.0,
                     True, {})
    return orjson.loads(orjson.dumps(results_data(suite, ctx, summary, runs)))


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return load_suite(write_suite(tmp_path, "resume", variants=["baseline", "cookie_popup"],
                                  preset="reference", repetitions=2))


def test_finished_runs_are_kept_and_runs_lost_to_infrastructure_run_again(
        suite: Suite) -> None:
    lost = result("cookie_popup", infra=InfraError("browser", "the browser went away"))
    data = results_of(suite, result("baseline", *CORRECT_PATH), lost,
                      result("baseline", *CORRECT_PATH, repetition=1))
    resumed = resumed_data(data, suite, "out")
    assert resumed.suite_run == "the-suite-run"
    assert sorted(r.run_id for r in resumed.kept) == ["baseline-r0", "baseline-r1"]
    assert resumed.rerun == ("cookie_popup-r0",)
    # The kept evidence is the evidence that was written, field for field.
    assert resumed.kept[0] == result("baseline", *CORRECT_PATH)


def test_a_run_twice_or_one_the_suite_does_not_plan_is_refused(suite: Suite) -> None:
    twice = results_of(suite, result("baseline", *CORRECT_PATH),
                       result("baseline", *CORRECT_PATH))
    with pytest.raises(ResumeError, match="baseline-r0 twice"):
        resumed_data(twice, suite, "out")
    stranger = results_of(suite, result("slow_api", *CORRECT_PATH))
    with pytest.raises(ResumeError, match="slow_api-r0, which this suite does not plan"):
        resumed_data(stranger, suite, "out")
    broken = results_of(suite, result("baseline", *CORRECT_PATH))
    del broken["suite_run"]
    with pytest.raises(ResumeError, match="missing a field"):
        resumed_data(broken, suite, "out")


def test_a_changed_suite_is_refused_with_what_changed(tmp_path: Path, suite: Suite) -> None:
    data = results_of(suite, result("baseline", *CORRECT_PATH))
    other = load_suite(write_suite(tmp_path, "resume", variants=["baseline", "slow_api"],
                                   preset="reference", repetitions=3, workers=4))
    with pytest.raises(ResumeError) as caught:
        resumed_data(data, other, "out")
    message = str(caught.value)
    assert 'variants: ["baseline","cookie_popup"] -> ["baseline","slow_api"]' in message
    assert "repetitions: 2 -> 3" in message
    assert "workers" not in message  # where it runs is not the suite
    # The same suite from another place and with other workers is the same suite.
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    same = load_suite(write_suite(moved, "resume", variants=["baseline", "cookie_popup"],
                                  preset="reference", repetitions=2, workers=1))
    assert len(resumed_data(data, same, "out").kept) == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=12)


@given(json_values, json_values)
def test_suite_changes_is_empty_exactly_when_the_suites_are_equal(a: Any, b: Any) -> None:
    a = {"x": a}
    b = {"x": b}
    assert (suite_changes(a, b) == []) == (a == b)


def test_no_results_file_or_not_one_is_one_clear_error(tmp_path: Path, suite: Suite) -> None:
    with pytest.raises(ResumeError, match=r"no results\.json to resume from"):
        resume_from(tmp_path, suite)
    (tmp_path / "results.json").write_text("{}")
    with pytest.raises(ResumeError, match="not an ajantik gauntlet results file"):
        resume_from(tmp_path, suite)


# Every run logs its start; the third to start writes the marker and waits to be killed
# with its suite; every other run, and every run once the marker exists, is the example
# agent (it passes baseline and fails cookie_popup: it leaves the banner open).
KILL_THIRD = f"""
import os, pathlib, sys, time
log, marker = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
with log.open("a") as f:
    f.write(os.environ["AJANTIK_START_URL"] + "\\n")
if len(log.read_text().splitlines()) == 3 and not marker.exists():
    marker.write_text(str(os.getpid()))
    time.sleep(120)
os.execv(sys.executable, [sys.executable, {str(CUSTOM_AGENT)!r}])
"""


def run_ids(out: Path) -> list[str]:
    return [r["run_id"] for r in orjson.loads((out / "results.json").read_bytes())["runs"]]


@pytest.mark.browser
def test_a_suite_killed_outright_resumes_without_losing_or_doubling_a_run(
        tmp_path: Path) -> None:
    agent = tmp_path / "kill_third.py"
    agent.write_text(KILL_THIRD)
    log, marker = tmp_path / "starts.log", tmp_path / "marker"
    suite_file = write_suite(tmp_path, "killed", variants=["baseline", "cookie_popup"],
                             repetitions=2, workers=1, deadline=60,
                             command=python_command(agent, str(log), str(marker)))
    out = tmp_path / "out"
    first = subprocess.Popen([*AJANTIK, "gauntlet", "run", str(suite_file), "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    left: set[int] = set()
    try:
        deadline = time.monotonic() + 300
        while not marker.exists() or not marker.read_text():
            assert first.poll() is None and time.monotonic() < deadline, "no third run"
            time.sleep(0.2)
        left = descendants([first.pid]) - {first.pid}
        first.send_signal(signal.SIGKILL)  # no handler, no finally: the machine "went down"
        first.wait(30)
    finally:
        # Its Chromium and agent, which nothing else would end: by pid.
        for pid in (descendants([first.pid]) | left) - {first.pid}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    before = orjson.loads((out / "results.json").read_bytes())
    assert before["interrupted"] is True
    kept = {r["run_id"]: r for r in before["runs"]}
    assert len(kept) == 2  # the two that finished before the kill, none in flight
    interrupted_run = next(i for i in ("baseline-r0", "cookie_popup-r0", "baseline-r1",
                                       "cookie_popup-r1") if i not in kept
                           and (out / "runs" / i).is_dir())

    # A changed suite is refused first, with what changed and nothing touched.
    changed = tmp_path / "changed.yaml"
    changed.write_text(suite_file.read_text().replace("repetitions: 2", "repetitions: 3"))
    refused = subprocess.run([*AJANTIK, "gauntlet", "run", str(changed), "--resume", str(out)],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2, refused.stderr
    assert "repetitions: 2 -> 3" in refused.stderr and "Traceback" not in refused.stderr
    assert run_ids(out) == [r["run_id"] for r in before["runs"]]

    resumed = subprocess.run([*AJANTIK, "gauntlet", "run", str(suite_file), "--resume",
                              str(out)], capture_output=True, text=True, timeout=600)
    # 1: the example agent does not close the cookie banner, so thresholds are not met.
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert "resuming: 2 finished runs kept, 2 to run" in resumed.stdout
    after = orjson.loads((out / "results.json").read_bytes())
    ids = run_ids(out)
    assert sorted(ids) == ["baseline-r0", "baseline-r1", "cookie_popup-r0", "cookie_popup-r1"]
    assert after["interrupted"] is False and after["suite_run"] == before["suite_run"]
    assert after["summary"]["overall"]["scored"] == 4
    assert {r["run_id"]: r["passed"] for r in after["runs"]} == {
        "baseline-r0": True, "baseline-r1": True, "cookie_popup-r0": False,
        "cookie_popup-r1": False}
    for run in after["runs"]:
        if run["run_id"] in kept:  # kept as it was, not run again
            assert run["evidence"] == kept[run["run_id"]]["evidence"]
    assert len(log.read_text().splitlines()) == 5  # 3 before the kill, 2 after
    # What the killed run had left is set aside, not mixed into its new files.
    assert (out / "runs" / interrupted_run / "interrupted-attempt-1").is_dir()
    assert (out / "report.html").is_file()
