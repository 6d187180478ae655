"""Remote browsers (``--browser URL``): Chromiums started apart, as a browser farm's
would be, reached by endpoints that carry a token. The token must never be written:
not in results, reports, run folders, agent output or anything the command prints,
even when a browser dies mid-run or cannot be reached at all."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from ajantik_cdp.browser.endpoints import remote_browsers
from ajantik_cdp.browser.launch import ChromeProcess, start_chrome
from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.gauntlet.run.placement import Placement
from ajantik_cdp.gauntlet.run.suite_loading import load_suite
from ajantik_cdp.gauntlet.run.suite_session import run_session
from ajantik_cdp.record.reader import load_record
from tests.gauntlet.suites import CUSTOM_AGENT, python_command, write_suite
from tests.support.cli import AJANTIK, run_process

pytestmark = pytest.mark.browser

TOKEN = "farm-token-5d41402abc4b2a76"

# The first run to start announces itself (with its CDP_URL, as a careless agent might
# print it) and waits to lose its browser; every other run is the example agent.
WAIT_FIRST = f"""
import os, pathlib, sys, time
print("agent: connecting to", os.environ["CDP_URL"], file=sys.stderr, flush=True)
marker = pathlib.Path(sys.argv[1])
try:
    fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
except FileExistsError:
    os.execv(sys.executable, [sys.executable, {str(CUSTOM_AGENT)!r}])
os.write(fd, os.environ["CDP_URL"].encode())
os.close(fd)
time.sleep(60)
"""


@pytest.fixture
def farm() -> Iterator[list[ChromeProcess]]:
    """Two Chromiums of a "farm": separate processes the suite does not own."""
    chromes = [start_chrome(), start_chrome()]
    yield chromes
    for chrome in chromes:
        chrome.close()


def with_token(chrome: ChromeProcess) -> str:
    return f"{chrome.http_url}/?token={TOKEN}"


def written(folder: Path) -> str:
    """Every byte the suite left in its folder, as text."""
    return "".join(p.read_bytes().decode("utf-8", "replace")
                   for p in sorted(folder.rglob("*")) if p.is_file())


def test_a_browser_lost_mid_run_is_infrastructure_and_no_token_is_written(
        tmp_path: Path, farm: list[ChromeProcess]) -> None:
    agent = tmp_path / "wait_first.py"
    agent.write_text(WAIT_FIRST)
    marker = tmp_path / "marker"
    suite = write_suite(tmp_path, "farm", variants=["baseline"], repetitions=3,
                        command=python_command(agent, str(marker)), deadline=60)
    out = tmp_path / "out"
    urls = [with_token(c) for c in farm]
    proc = subprocess.Popen(
        [*AJANTIK, "gauntlet", "run", str(suite), "--out", str(out), "-v",
         *(a for url in urls for a in ("--browser", url))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() or not marker.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        lost = urls.index(marker.read_text())
        farm[lost].kill()  # the farm loses the browser under the waiting run
        stdout, stderr = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stdout + stderr
    data = orjson.loads((out / "results.json").read_bytes())
    assert [r["passed"] for r in data["runs"]] == [True] * 3
    assert data["environment"]["browsers"] == ["browser 1", "browser 2"]
    retried = [r for r in data["runs"] if any("lost to infrastructure" in n
                                              for n in r["evidence"]["notes"])]
    assert retried, data["notes"]
    note = next(n for n in retried[0]["evidence"]["notes"] if "lost to infrastructure" in n)
    assert f"browser {lost + 1}: the connection to it dropped during the run" in note
    assert "infrastructure:" in stdout  # said at the end of the command, too
    # The lost attempt's agent output is kept, with the endpoint it printed scrubbed.
    kept = out / "runs" / retried[0]["run_id"] / "lost-attempt-1" / "agent.stderr"
    assert f"connecting to <browser {lost + 1}>" in kept.read_text()
    everything = written(out) + stdout + stderr
    assert TOKEN not in everything
    for chrome in farm:
        assert f"127.0.0.1:{chrome.port}" not in everything


def test_an_unreachable_browser_is_one_line_without_its_token(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, "farm", variants=["baseline"], preset="reference")
    url = f"ws://127.0.0.1:9/devtools/browser/4f1c9e?token={TOKEN}"
    got = run_process("gauntlet", "run", str(suite), "--out", str(tmp_path / "out"),
                      "--browser", url, timeout=120)
    line = got.one_line_error()
    assert got.code == 3  # no usable Chrome
    assert line.startswith("ajantik gauntlet run: error: browser 1 cannot be used:"), line
    assert "<browser 1>" in line  # Playwright quoted the address: it was replaced
    assert TOKEN not in got.stdout + got.stderr and "127.0.0.1:9" not in line
    assert "4f1c9e" not in line


async def test_a_fault_run_puts_its_guard_in_front_of_a_remote_browser(
        tmp_path: Path, farm: list[ChromeProcess]) -> None:
    # The resilient preset recovers from this fault; the reference one gives up honestly,
    # which the ladder no longer counts as a pass. Both runs filmed: the fault run by its
    # guard, the baseline by the harness's camera, each on the remote browser reached
    # through an endpoint with a token.
    suite = load_suite(write_suite(tmp_path, "farm",
                                   variants=["baseline", "phantom_add_to_cart"],
                                   preset="resilient", workers=1))
    placement = Placement(browsers=tuple(remote_browsers([with_token(farm[0])])))
    out = tmp_path / "out"
    outcome = await run_session(suite, out, workers=1, placement=placement,
                                film=FilmPolicy(fps=4))
    by_variant = {s.result.variant: s for s in outcome.runs}
    fault = by_variant["phantom_add_to_cart"]
    assert fault.passed and by_variant["baseline"].passed, outcome.runs
    assert fault.result.record is not None and fault.result.record.faulted == 1
    for run_id, record in (("phantom_add_to_cart-r0", "record.jsonl"),
                           ("baseline-r0", "film.jsonl")):
        loaded = load_record(out / "runs" / run_id / record)
        shop_frames = [f for f in loaded.frames if f.url.startswith("http:")]
        assert shop_frames, (run_id, [f.url for f in loaded.frames])
        assert all((out / "runs" / run_id / "film" / f.file).is_file() for f in shop_frames)
    assert TOKEN not in written(out)
    assert farm[0].proc.poll() is None  # somebody else's browser: never closed here
