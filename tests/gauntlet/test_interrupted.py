"""Ctrl-C or SIGTERM part way: the files say exactly what finished (zero runs included,
interrupted), the one line on stderr says where they are, and the --junit file is still
written: what finished as it is, every other run an error (not run)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.ci.junit_check import read_junit
from tests.gauntlet.suites import python_command, write_suite
from tests.support.cli import AJANTIK

pytestmark = pytest.mark.browser


def interrupt_when(marker: Path, suite: Path, out: Path, junit: Path, sig: signal.Signals,
                   wait: float) -> tuple[int, str, str]:
    """Run the suite, send ``sig`` once ``marker`` exists; its exit code, stdout, stderr."""
    proc = subprocess.Popen([*AJANTIK, "gauntlet", "run", str(suite), "--out", str(out),
                             "--junit", str(junit)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + wait
        while not marker.exists() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        assert marker.exists(), f"{marker.name} never appeared"
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, stdout, stderr


def test_ctrl_c_before_the_first_run_finishes_writes_zero_runs(tmp_path: Path) -> None:
    started = tmp_path / "started"
    agent = tmp_path / "slow.py"
    agent.write_text(f"import pathlib, time\npathlib.Path({str(started)!r}).touch()\n"
                     "time.sleep(60)\n")
    suite = write_suite(tmp_path, "slow", variants=["baseline", "phantom_add_to_cart"],
                        command=python_command(agent), workers=1, deadline=60)
    out, junit = tmp_path / "out", tmp_path / "ci" / "suite.xml"
    code, stdout, stderr = interrupt_when(started, suite, out, junit, signal.SIGINT, 120)
    assert code == 130, stdout + stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert "interrupted before any run finished" in lines[0]
    assert str(out / "results.json") in lines[0]
    data = json.loads((out / "results.json").read_text())
    assert data["interrupted"] is True and data["runs"] == []
    assert data["planned_runs"] == 2
    overall = data["summary"]["overall"]
    assert (overall["runs"], overall["scored"], overall["reliability"]) == (0, 0, None)
    assert data["summary"]["exit_code"] == 1  # nothing met, nothing claimed
    html = (out / "report.html").read_text()
    assert "No run finished" in html and "interrupted" in html
    body = html[html.index("<main>"):]
    assert "100%" not in body and "No run was scored." in body
    cases = read_junit(junit.read_bytes())
    assert {(c.name, c.kind, c.type) for c in cases if c.classname != "thresholds"} == {
        ("baseline-r0", "error", "not_run"), ("phantom_add_to_cart-r0", "error", "not_run")}
    thresholds = [c for c in cases if c.classname == "thresholds"]
    assert thresholds and {(c.kind, c.type) for c in thresholds} == {("error", "not_run")}
    assert f"junit: {junit}" in stdout


FIRST_FINISHES = """import json, pathlib, sys, time
first, second = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
if not first.exists():
    first.touch()
    print(json.dumps({"status": "completed", "summary": "done!"}))  # and did nothing
else:
    second.touch()
    time.sleep(60)
"""


def test_sigterm_after_one_run_writes_junit_with_the_rest_not_run(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    agent = tmp_path / "agent.py"
    agent.write_text(FIRST_FINISHES)
    suite = write_suite(tmp_path, "cut", variants=["baseline", "phantom_add_to_cart"],
                        command=python_command(agent, str(first), str(second)), workers=1,
                        deadline=60)
    out, junit = tmp_path / "out", tmp_path / "suite.xml"
    code, stdout, stderr = interrupt_when(second, suite, out, junit, signal.SIGTERM, 180)
    assert code == 130, stdout + stderr
    assert "interrupted after 1 of 2 runs" in stderr and "Traceback" not in stderr, stderr
    finished = json.loads((out / "results.json").read_text())["runs"]
    assert len(finished) == 1
    done = finished[0]["run_id"]
    cases = {c.name: c for c in read_junit(junit.read_bytes())}
    # The run that finished, as it is: an agent that did nothing and said done.
    assert (cases[done].kind, cases[done].type) == ("failure", "silent_wrong")
    (other,) = {"baseline-r0", "phantom_add_to_cart-r0"} - {done}
    assert (cases[other].kind, cases[other].type) == ("error", "not_run")
    # One run met no threshold yet, and none is decided on half the suite.
    assert cases["overall reliability"].kind == "error"
    assert not [c for c in cases.values() if c.kind == "passed"]
