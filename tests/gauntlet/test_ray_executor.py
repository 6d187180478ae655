"""The Ray executor on a real Ray cluster on this machine, bound to loopback only: a
suite spread over two nodes judged exactly as locally, a worker killed mid-run (its run
retried elsewhere, reported as infrastructure, nothing left running), and the quick
path (a Ray instance of the command's own) from the command line."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.gauntlet.run.placement import Placement
from ajantik_cdp.gauntlet.run.suite_loading import load_suite
from ajantik_cdp.gauntlet.run.suite_session import SessionOutcome, run_session
from ajantik_cdp.record.reader import load_record
from tests.gauntlet.suites import CUSTOM_AGENT, python_command, write_suite
from tests.support.cli import AJANTIK
from tests.support.ray_cluster import (
    LOOPBACK,
    LOOPBACK_ENV,
    HeadExited,
    LocalCluster,
    connect,
    listening,
    local_cluster,
    wait_for_nodes,
)

pytestmark = [pytest.mark.ray, pytest.mark.browser]
if importlib.util.find_spec("ray") is None:  # not imported: the fixture sets its env first
    pytest.skip("the ray extra is not installed: pip install -e '.[dev,ray]'",
                allow_module_level=True)

RAY_KEYS = (*LOOPBACK_ENV, "RAY_AUTH_TOKEN", "RAY_ADDRESS")


def outcomes(o: SessionOutcome) -> dict[str, tuple[str, str, str | None]]:
    return {s.result.run_id: (s.outcome.value, s.verdict.value,
                              s.classification.rule if s.classification else None)
            for s in o.runs}


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def test_the_quick_path_runs_a_suite_on_a_ray_instance_of_its_own(tmp_path: Path) -> None:
    # resilient: it recovers from the fault (the reference preset gives up honestly,
    # which the ladder does not count as a pass).
    suite = write_suite(tmp_path, "quick", variants=["baseline", "phantom_add_to_cart"],
                        preset="resilient", workers=2)
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    proc = subprocess.run([*AJANTIK, "gauntlet", "run", str(suite), "--executor", "ray",
                           "--out", str(out)], capture_output=True, text=True, timeout=600,
                          env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "on 2 workers on a Ray instance of this machine's own" in proc.stdout
    data = orjson.loads((out / "results.json").read_bytes())
    assert [r["passed"] for r in data["runs"]] == [True, True]
    ray_env = data["environment"]["ray"]
    assert data["environment"]["executor"] == "ray"
    assert ray_env["cluster"] == "this machine's own"
    assert [n["address"] for n in ray_env["nodes"]] == ["127.0.0.1"]  # loopback only
    assert (out / "runs" / "phantom_add_to_cart-r0" / "record.jsonl").is_file()


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    saved = {k: os.environ.get(k) for k in RAY_KEYS}
    try:
        for attempt in (1, 2):  # a head that exits while starting is started once more
            with local_cluster(cpus=(1, 1)) as running:
                # Before Ray is imported here: it decides on import whether it stays on
                # loopback.
                os.environ.update(running.env)
                import ray
                from ray._private import ray_constants

                assert not ray_constants.ENABLE_RAY_CLUSTER, \
                    "ray was imported before this fixture"
                try:
                    connect(ray, running)
                except HeadExited:
                    if attempt == 2:
                        raise
                    continue
                try:
                    wait_for_nodes(ray, 2)
                    yield running
                finally:
                    ray.shutdown()
                return
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


async def test_a_suite_spread_over_two_nodes_is_judged_as_locally(
        cluster: LocalCluster, chrome: ChromeProcess, tmp_path: Path) -> None:
    # Deterministic for the reference agent: two passes and two failures (it cannot
    # resume an expired session, and gives the fault run up), the fault run with its
    # guard on the node.
    suite = load_suite(write_suite(
        tmp_path, "same", variants=["baseline", "cookie_popup", "expired_session",
                                    "phantom_add_to_cart"], preset="reference", workers=2))
    placement = Placement(executor="ray", ray_address=cluster.address)
    on_ray = await run_session(suite, tmp_path / "ray", workers=2, placement=placement,
                               suite_run="same-suite-run", film=FilmPolicy(fps=2))
    assert listening(cluster.pids()) <= LOOPBACK, "Ray listened beyond loopback"
    local = await run_session(suite, tmp_path / "local", workers=1, chromes=[chrome],
                              suite_run="same-suite-run")
    assert outcomes(on_ray) == outcomes(local)
    # baseline and cookie_popup done right; expired_session and the fault given up on.
    assert sorted(s.passed for s in on_ray.runs) == [False, False, True, True]
    env: dict[str, Any] = on_ray.data["environment"]
    assert env["executor"] == "ray" and env["ray"]["cluster"] == "joined"
    node_of = {w: n["node"] for n in env["ray"]["nodes"] for w in n["workers"]}
    assert len(set(node_of.values())) == 2
    assert {node_of[s.result.worker] for s in on_ray.runs} == set(node_of.values())
    # The evidence came back to this machine's folder, as a local run leaves it.
    for s in on_ray.runs:
        folder = tmp_path / "ray" / "runs" / s.result.run_id
        assert (folder / "end.png").is_file() and s.result.screenshot == "end.png"
        # The film too: its frames, listed by the guard's record or the harness's.
        listed = load_record(folder / ("record.jsonl" if s.result.variant ==
                                       "phantom_add_to_cart" else "film.jsonl")).frames
        assert listed and all((folder / "film" / f.file).is_file() for f in listed)
    fault = next(s for s in on_ray.runs if s.result.variant == "phantom_add_to_cart")
    assert fault.result.record is not None and fault.result.record.faulted == 1
    assert (tmp_path / "ray" / "results.json").is_file()
    assert (tmp_path / "ray" / "report.html").is_file()


# The first run to start writes its parent's pid (the node's Ray worker: the agent's
# parent) and its own, and waits to be killed with it; every other run is the example
# agent.
WAIT_FIRST = f"""
import os, pathlib, sys, time
marker = pathlib.Path(sys.argv[1])
try:
    fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
except FileExistsError:
    os.execv(sys.executable, [sys.executable, {str(CUSTOM_AGENT)!r}])
os.write(fd, f"{{os.getppid()}} {{os.getpid()}}".encode())
os.close(fd)
time.sleep(120)
"""


def chromiums_of(pid: int) -> list[int]:
    """The Chromiums a node's worker noted in its pool's ledger, that it started."""
    found = []
    for ledger in (Path("/tmp") / "ajantik-ray").glob("*.json"):
        with contextlib.suppress(OSError, ValueError):
            for entry in json.loads(ledger.read_text()):
                stat = Path(f"/proc/{entry['pid']}/stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry["pid"]))
    return found


async def test_a_worker_killed_mid_run_is_infrastructure_and_the_run_is_retried(
        cluster: LocalCluster, tmp_path: Path) -> None:
    agent = tmp_path / "wait_first.py"
    agent.write_text(WAIT_FIRST)
    marker = tmp_path / "marker"
    suite = load_suite(write_suite(tmp_path, "kill", variants=["baseline"], repetitions=3,
                                   command=python_command(agent, str(marker)), workers=2,
                                   deadline=90))
    placement = Placement(executor="ray", ray_address=cluster.address)
    running = asyncio.create_task(run_session(suite, tmp_path / "out", workers=2,
                                              placement=placement))
    deadline = time.monotonic() + 240
    while not marker.exists() or not marker.read_text():
        assert not running.done() and time.monotonic() < deadline, "no run started"
        await asyncio.sleep(0.2)
    worker_pid, agent_pid = (int(x) for x in marker.read_text().split())
    browsers = chromiums_of(worker_pid)
    assert browsers, "the killed worker's Chromium is not in its ledger"
    os.kill(worker_pid, signal.SIGKILL)  # the node's Ray worker dies mid-run
    outcome = await asyncio.wait_for(running, 420)
    assert [s.passed for s in outcome.runs] == [True] * 3, outcome.data["notes"]
    lost = [s for s in outcome.runs if any("lost to infrastructure" in n
                                           for n in s.result.notes)]
    assert len(lost) == 1
    note = next(n for n in lost[0].result.notes if "lost to infrastructure" in n)
    assert "browser: the run: the Ray worker on node 127.0.0.1" in note and "was lost" in note
    assert any("lost to infrastructure" in n for n in outcome.data["notes"])
    # Nothing of the killed worker is left running: its agent died with it, and its
    # Chromium was ended by the worker Ray started in its place.
    await asyncio.sleep(1)
    assert not alive(agent_pid)
    assert not [pid for pid in browsers if alive(pid)], outcome.data["notes"]
    assert any("left by a worker that was killed" in n for n in outcome.data["notes"])
