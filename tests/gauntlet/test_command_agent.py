"""A command agent end to end: the example in examples/custom-agent through `ajantik
gauntlet run`, and agents that misbehave (garbage output, a crash, a deadline) run
in-process on the session's Chromium. The whole misbehaving cast over every fault:
test_misbehaving_agents.py."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.gauntlet.run.suite_loading import load_suite
from ajantik_cdp.gauntlet.run.suite_session import run_session
from ajantik_cdp.gauntlet.score.run_outcome import Outcome
from tests.gauntlet.suites import CUSTOM_AGENT, python_command, write_suite
from tests.support.cli import run

pytestmark = pytest.mark.browser


def test_the_example_agent_as_a_command_agent(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, "custom", variants=["baseline", "phantom_add_to_cart"],
                        command=python_command(CUSTOM_AGENT), deadline=45)
    out = tmp_path / "out"
    res = run("gauntlet", "run", str(suite), "--out", str(out))
    assert res.code == 0, res.stdout + res.stderr
    runs = {r["run_id"]: r for r in json.loads((out / "results.json").read_text())["runs"]}
    base = runs["baseline-r0"]
    assert (base["outcome"], base["passed"], base["verdict"]) == ("done_right", True,
                                                                  "correct")
    agent = base["evidence"]["agent"]
    assert agent["exit_code"] == 0 and agent["claim"]["status"] == "completed"
    assert agent["step_count"] == len(agent["steps"]) > 5  # the steps it reported
    assert "press" not in " ".join(agent["steps"])  # its own words, not the harness's
    assert (out / "runs" / "baseline-r0" / "agent.stderr").read_text().startswith("agent:")
    # Through the guard, the first add was answered 204 and never reached the shop; the
    # agent read the cart back, added again, and the shop holds it once: done right.
    phantom = runs["phantom_add_to_cart-r0"]
    assert phantom["evidence"]["record"]["faulted"] == 1 and phantom["fault_fired"] is True
    assert phantom["evidence"]["state"]["cart"]["lines"][0]["quantity"] == 1
    assert "add to cart again (the shop did not have it)" in \
        phantom["evidence"]["agent"]["steps"]
    assert (phantom["outcome"], phantom["passed"], phantom["verdict"]) == (
        "done_right", True, "correct")


BAD_AGENTS = {
    "garbage": 'print("I think it went well")\nraise SystemExit(3)\n',
    "liar": 'import json\nprint(json.dumps({"status": "completed", "summary": "done!"}))\n',
    "sleeper": textwrap.dedent("""\
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open(os.environ["PID_FILE"], "w").write(str(child.pid))
        time.sleep(60)
        """),
}


def alive(pid: int) -> bool:
    """Running, as opposed to gone or a zombie waiting for a parent that is not ours to
    reap (when the container's init does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.mark.parametrize("name,rule,verdict,outcome", [
    # No claim is never read as "unsure": the verdict beside a crash is unscorable.
    ("garbage", "agent_crashed", "unscorable", Outcome.AGENT_CRASHED),
    ("liar", "stopped_before_stage", "silent_wrong", Outcome.SILENT_WRONG),
    ("sleeper", "deadline_exceeded", "unscorable", Outcome.TIMED_OUT),
])
async def test_agents_that_misbehave(name: str, rule: str, verdict: str, outcome: Outcome,
                                     tmp_path: Path, chrome: ChromeProcess) -> None:
    script = tmp_path / f"{name}.py"
    script.write_text(BAD_AGENTS[name])
    pid_file = tmp_path / "child.pid"
    suite_path = write_suite(tmp_path, name, variants=["baseline"],
                             command=python_command(script), deadline=3)
    os.environ["PID_FILE"] = str(pid_file)
    try:
        session = await run_session(load_suite(suite_path), tmp_path / "out", workers=1,
                                    chromes=[chrome])
    finally:
        del os.environ["PID_FILE"]
    [s] = session.runs
    assert (s.outcome, s.passed) == (outcome, False)
    assert s.classification is not None and s.classification.rule == rule
    assert s.verdict.value == verdict
    if name == "garbage":
        assert s.result.agent.exit_code == 3
        assert s.result.agent.claim.problem == "no JSON claim line on standard output"
    if name == "sleeper":
        assert s.result.agent.timed_out
        child = int(pid_file.read_text())
        assert not alive(child)  # its process group went with it
