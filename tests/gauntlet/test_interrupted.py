"""Ctrl-C before the first run has finished: the files say exactly that (zero runs,
interrupted), and the one line on stderr says where they are."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.gauntlet.suites import python_command, write_suite
from tests.support.cli import AJANTIK

pytestmark = pytest.mark.browser


def test_ctrl_c_before_the_first_run_finishes_writes_zero_runs(tmp_path: Path) -> None:
    started = tmp_path / "started"
    agent = tmp_path / "slow.py"
    agent.write_text(f"import pathlib, time\npathlib.Path({str(started)!r}).touch()\n"
                     "time.sleep(60)\n")
    suite = write_suite(tmp_path, "slow", variants=["baseline", "phantom_add_to_cart"],
                        command=python_command(agent), workers=1, deadline=60)
    out = tmp_path / "out"
    proc = subprocess.Popen([*AJANTIK, "gauntlet", "run", str(suite), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        assert started.exists(), "the agent never started"
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stdout + stderr
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
