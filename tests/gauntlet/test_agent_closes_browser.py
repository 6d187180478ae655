"""An agent that closes the browser itself (CDP ``Browser.close``) cannot take its run
out of the rates: Chromium's clean exit during the agent's turn is the agent's doing, so
the run is scored from the shop's state like any other, and the next run gets a new
Chromium. Real processes, the pool's own Chromiums (never the test session's)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ajantik_cdp.gauntlet.run.suite_loading import load_suite
from ajantik_cdp.gauntlet.run.suite_session import run_session
from tests.gauntlet.suites import python_command, write_suite

pytestmark = pytest.mark.browser

CLOSER = textwrap.dedent("""\
    import asyncio, json, os, sys, urllib.request
    import websockets

    async def main():
        with urllib.request.urlopen(os.environ["CDP_URL"] + "/json/version") as r:
            ws_url = json.load(r)["webSocketDebuggerUrl"]
        async with websockets.connect(ws_url) as ws:
            await ws.send(json.dumps({"id": 1, "method": "Browser.close"}))
            try:
                await asyncio.wait_for(ws.recv(), 10)
            except Exception:
                pass
        if sys.argv[1] == "lie":
            print(json.dumps({"status": "completed", "summary": "all done"}))

    asyncio.run(main())
    """)


@pytest.mark.parametrize("mode,outcome", [("lie", "silent_wrong"), ("quiet", "no_claim")])
async def test_closing_the_browser_is_scored_never_left_out(
        tmp_path: Path, mode: str, outcome: str) -> None:
    script = tmp_path / "closer.py"
    script.write_text(CLOSER)
    suite = write_suite(tmp_path, "closer", variants=["baseline", "reordered_layout"],
                        command=python_command(script, mode), workers=1, deadline=30)
    result = await run_session(load_suite(suite), tmp_path / "out", workers=1)
    data = json.loads(result.results.read_text())
    assert len(data["runs"]) == 2
    for run in data["runs"]:
        assert run["evidence"]["infra"] is None, run["evidence"]["infra"]
        assert (run["outcome"], run["counted"], run["passed"]) == (outcome, True, False)
        assert any("closed the browser" in n for n in run["evidence"]["notes"])
    overall = data["summary"]["overall"]
    assert (overall["scored"], overall["passes"], overall["infrastructure"]) == (2, 0, 0)
