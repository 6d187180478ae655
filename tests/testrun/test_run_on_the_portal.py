"""`ajantik test run` end to end, as a person runs it: the real command line, the session's
real Chromium as the person's Chrome, a real Harbour Registry (examples/portal-pilot) on
a loopback port, and the skill as a real program (Python, Node, or one that misbehaves).

The truth of every run is the portal's own side: its state and its hit log, saved at each
``--before`` reset (``Portal.history``). Every verdict in results.json is held against the
state that run left, and every write the run's record says reached the portal (or was
withheld by the fault) against the portal's hit log.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import shlex
import shutil
import signal
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.demo.portal_system import ADAPTER, guard_config_data
from ajantik_cdp.judge.adapter_api import Record
from ajantik_portal_pilot.filing_state import RegistryState
from ajantik_portal_pilot.portal import ApiHit, Portal
from ajantik_portal_pilot.sign_in import sign_in
from ajantik_portal_pilot.task import SKILL_DIR, FilingTask, load_task
from ajantik_portal_pilot.truth import registry_truth
from tests.ci.junit_check import read_junit

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
NODE_SKILL = ROOT / "examples" / "portal-pilot" / "node-skill" / "file_all.js"
NODE_MODULES = ROOT / "tests" / "node" / "node_modules"
MISBEHAVING = Path(__file__).resolve().parent / "programs" / "portal_skill.py"
TOKEN = "reset-token-for-the-test"
RESET = f"{shlex.quote(sys.executable)} -m ajantik_portal_pilot.reset"
UPLOADS = "POST /api/filings/*/documents"
COMPANY = "PUT /api/filings/*/sections/company"
VERIFYING = [sys.executable, "-m", "ajantik_portal_pilot.skill_command", "verifying"]
BLIND = [sys.executable, "-m", "ajantik_portal_pilot.skill_command", "blind"]
CLI_TIMEOUT = 1200.0  # the whole command; the machine is shared and slow


@pytest_asyncio.fixture
async def portal() -> Any:
    p = Portal(reset_token=TOKEN)
    await p.start()
    yield p
    await p.stop()


@dataclass
class Ran:
    code: int
    out: str
    err: str
    out_dir: Path

    @property
    def results(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.out_dir / "results.json").read_text())
        return data

    @property
    def test(self) -> dict[str, Any]:
        t: dict[str, Any] = self.results["tests"][0]
        return t

    def runs(self) -> list[dict[str, Any]]:
        """Every run in the order it ran: the clean one, then the plan's."""
        t = self.test
        return ([t["clean"]] if t["clean"] else []) + list(t["runs"])


def _argv(chrome: ChromeProcess, portal: Portal, tmp_path: Path, options: list[str],
          skill: list[str]) -> list[str]:
    guard = tmp_path / "guard.json"
    guard.write_text(json.dumps(guard_config_data(portal.origin)))
    return [sys.executable, "-m", "ajantik_cdp", "test", "run", "--upstream",
            chrome.http_url, "--config", str(guard), "--adapter", str(ADAPTER),
            "--out", str(tmp_path / "out"), *options, "--", *skill]


def _env(portal: Portal, extra: dict[str, str] | None) -> dict[str, str]:
    return {**os.environ, "PORTAL_URL": portal.origin, "PORTAL_RESET_TOKEN": TOKEN,
            "NODE_PATH": str(NODE_MODULES), "COLUMNS": "160", **(extra or {})}


async def run_cli(chrome: ChromeProcess, portal: Portal, tmp_path: Path, options: list[str],
                   skill: list[str], env: dict[str, str] | None = None) -> Ran:
    proc = await asyncio.create_subprocess_exec(
        *_argv(chrome, portal, tmp_path, options, skill), env=_env(portal, env),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), CLI_TIMEOUT)
    assert proc.returncode is not None
    return Ran(proc.returncode, out.decode(), err.decode(), tmp_path / "out")


def run_states(portal: Portal) -> list[tuple[RegistryState, list[ApiHit]]]:
    """What each run left on the portal, in the order they ran: --before resets before
    every run, and each reset keeps what was there (the first: the fresh registry)."""
    return [*portal.history[1:], (portal.state, portal.hits)]


def _sent(record: Record) -> Counter[tuple[str, str]]:
    """The API writes the record says reached the portal: those without a fault, and
    phantom_failure's (sent; only the answer to the client was changed)."""
    return Counter((ex.method, ex.path) for ex in record.exchanges()
                   if ex.is_write and ex.path.startswith("/api/")
                   and ex.fault in (None, "phantom_failure"))


def assert_the_portal_agrees(ran: Ran, portal: Portal, tasks: list[FilingTask]) -> None:
    runs = ran.runs()
    states = run_states(portal)
    assert len(states) == len(runs), (len(states), [r["label"] for r in runs])
    for run, (state, hits) in zip(runs, states, strict=True):
        view = Portal()
        view.state = state
        truth = registry_truth(view, tasks)
        for u in run["units"]:
            where = f"{run['label']} {u['unit']}"
            if u["verdict"] != "unscorable":
                # What the judge read from the record is what the portal holds ...
                assert u["world"]["done_right"] is truth[u["unit"]].done_right, where
            # ... and the damage it found is the damage the portal's own state shows.
            assert {d["kind"] for d in u["damage"]} == set(truth[u["unit"]].damage), where
        # The hit log: every write the record says was sent arrived, once; none of those
        # the fault withheld did.
        record = Record.read(ran.out_dir / run["folder"] / "ajantik-cdp.jsonl")
        arrived = Counter((h.method, h.path) for h in hits
                          if h.method in ("PUT", "POST") and h.path.startswith("/api/"))
        assert arrived == _sent(record), run["label"]
        assert not [h for h in hits if h.path.endswith("/submission")], run["label"]


async def sign_in_the_person(pw: Any, chrome: ChromeProcess, portal: Portal) -> None:
    """The person signs in in their Chrome before the test (not through any guard)."""
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    page = await browser.contexts[0].new_page()
    await sign_in(page, portal.origin)
    await page.close()
    await browser.close()


def one_filing_task(tmp_path: Path) -> Path:
    """R-101's four sections, no document: what the misbehaving skill files."""
    data = json.loads((SKILL_DIR / "filings.json").read_text())
    spec = data["filings"]["R-101"]
    spec["documents"] = []
    path = tmp_path / "task" / "filings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"portal": data["portal"], "filings": {"R-101": spec}}))
    return path


# -- a Python skill through every fault -------------------------------------------------


async def test_the_verifying_skill_through_every_fault_on_its_last_upload(
        chrome: ChromeProcess, portal: Portal, tmp_path: Path) -> None:
    ran = await run_cli(chrome, portal, tmp_path, [
        "--before", RESET, "--only", UPLOADS, "--at", "last", "--yes"], VERIFYING)
    assert ran.code == 0, ran.err
    t = ran.test
    # The plan, found from the clean run's record: every write point of SKILL.md's steps,
    # with how often each was written; the operator's sign-in is no write point.
    points = {p["point"]: p["writes"] for p in t["plan"]["points"]}
    assert points == {f"PUT /api/filings/*/sections/{s}": 3 for s in (
        "company", "officers", "capital", "declaration")} | {UPLOADS: 3}
    assert any("the operator's" in n for n in t["plan"]["notes"]), t["plan"]["notes"]
    assert [(r["fault"]["kind"], r["fault"]["point"], r["fault"]["write"]) for r in t["runs"]
            ] == [(k, UPLOADS, 3) for k in ("phantom_success", "transient_error",
                                            "phantom_failure", "session_drop")]
    for r in t["runs"]:
        assert r["fault_fired"] == "on_point", r["label"]
        assert r["gate"]["passed"], (r["label"], r["gate"])
    # The clean run asked the operator to sign in; the adapter's operator did.
    assert [a["ok"] for a in t["clean"]["skill"]["asks"]] == [True]
    assert_the_portal_agrees(ran, portal, load_task())
    # Under phantom_success the last upload never reached the portal; the skill read the
    # filing back and uploaded it again: the portal holds exactly one document.
    (state, _), = [s for r, s in zip(ran.runs(), run_states(portal), strict=True)
                   if r["fault"] and r["fault"]["kind"] == "phantom_success"]
    assert len(state.filings["R-103"].documents) == 1
    page = (ran.out_dir / "report.html").read_text()
    for r in ran.runs():
        assert f'href="{r["folder"]}/verdicts.html' in page, r["folder"]
    assert "exit code 0" in ran.out


# -- a Node skill, the same way ---------------------------------------------------------


@pytest.mark.node
async def test_a_node_skill_is_tested_the_same_way(chrome: ChromeProcess, portal: Portal,
                                                   tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node is not None, "the Node tests need node on PATH"
    junit, summary = tmp_path / "ci" / "junit.xml", tmp_path / "summary.md"
    ran = await run_cli(chrome, portal, tmp_path, [
        "--before", RESET, "--only", UPLOADS, "--at", "last", "--yes", "--junit", str(junit)],
        [node, str(NODE_SKILL)],
        env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert ran.code == 1, ran.err
    # The CI's view (issue 17): a JUnit file and GitHub's annotations and summary.
    cases = read_junit(junit.read_bytes())
    fooled = [c for c in cases if c.name == "R-103" and "phantom_success" in c.classname]
    assert [(c.kind, c.type) for c in fooled] == [("failure", "silent_wrong")], cases
    assert any(line.startswith("::error title=silent wrong%3A R-103::")
               for line in ran.out.splitlines()), ran.out
    assert "fail the gate" in summary.read_text()
    by_kind = {r["fault"]["kind"]: r for r in ran.test["runs"]}
    assert set(by_kind) == {"phantom_success", "transient_error", "phantom_failure",
                            "session_drop"}
    assert all(r["fault_fired"] == "on_point" for r in by_kind.values())
    verdicts = {k: {u["unit"]: u["verdict"] for u in r["units"]} for k, r in by_kind.items()}
    # It trusts the page: fooled by the phantom success on R-103's upload ...
    assert verdicts["phantom_success"]["R-103"] == "silent_wrong"
    assert by_kind["phantom_success"]["gate"]["outcome"] == "silent_wrong"
    # ... uploads again after the phantom failure: a duplicate on the portal ...
    assert [(d["kind"], d["unit"]) for d in by_kind["phantom_failure"]["damage"]] == [
        ("duplicate", "R-103")]
    # ... retries the 503, and stops honestly when the session stays dropped.
    assert by_kind["transient_error"]["gate"]["passed"]
    assert verdicts["session_drop"]["R-103"] == "reported_honestly"
    assert_the_portal_agrees(ran, portal, load_task())
    assert "silent wrong" in ran.err and "exit code 1" in ran.out


# -- repetitions, --before, confirmation, Ctrl-C ----------------------------------------


async def test_reps_give_every_cell_an_interval(chrome: ChromeProcess, portal: Portal,
                                                tmp_path: Path) -> None:
    ran = await run_cli(chrome, portal, tmp_path, [
        "--before", RESET, "--only", UPLOADS, "--at", "2", "--faults", "phantom_success",
        "--reps", "2", "--yes"], BLIND)
    assert ran.code == 1, ran.err
    t = ran.test
    assert [(r["rep"], r["fault"]["write"]) for r in t["runs"]] == [(1, 2), (2, 2)]
    r102 = next(c for c in t["matrix"] if c["unit"] == "R-102")
    assert (r102["runs"], r102["counted"], r102["held_up"]) == (2, 2, 0)
    assert r102["verdicts"] == {"silent_wrong": 2}
    low, high = r102["held_up_interval"]["low"], r102["held_up_interval"]["high"]
    assert low == 0.0 and 0.5 < high < 0.8  # Wilson, 0 of 2
    kind, = t["by_kind"]
    assert (kind["passed"], kind["counted"]) == (0, 2)
    assert kind["pass_interval"]["high"] == pytest.approx(high)
    assert "0/2" in ran.out
    assert_the_portal_agrees(ran, portal, load_task())


async def test_a_failing_before_stops_the_test_with_its_output(
        chrome: ChromeProcess, portal: Portal, tmp_path: Path) -> None:
    flag = tmp_path / "reset-once"
    before = (f"if [ -e {flag} ]; then echo 'the test account is locked' >&2; exit 3; fi; "
              f"touch {flag} && {RESET}")
    ran = await run_cli(chrome, portal, tmp_path, [
        "--before", before, "--only", UPLOADS, "--yes"], BLIND)
    assert ran.code == 1, ran.err
    assert "the test account is locked" in ran.err
    assert "--before" in ran.err and "nothing is judged on a workspace that was not reset" in (
        ran.err)
    t = ran.test
    assert t["clean"] is not None and t["runs"] == [] and t["stopped"]
    # The first planned run never started: no record, and the portal saw nothing after
    # the clean run's own writes.
    assert not list((ran.out_dir / "runs").glob("01-*/ajantik-cdp.jsonl"))
    assert len(portal.history) == 1
    clean = Record.read(ran.out_dir / t["clean"]["folder"] / "ajantik-cdp.jsonl")
    assert Counter((h.method, h.path) for h in portal.hits
                   if h.method in ("PUT", "POST")) == _sent(clean)


async def test_without_a_yes_nothing_of_the_plan_runs(chrome: ChromeProcess, portal: Portal,
                                                      tmp_path: Path) -> None:
    # On a terminal: yes to the clean run, no to the plan.
    main, child = pty.openpty()
    proc = await asyncio.create_subprocess_exec(
        *_argv(chrome, portal, tmp_path, ["--before", RESET, "--only", UPLOADS], BLIND),
        env=_env(portal, None), stdin=child, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    os.close(child)
    try:
        os.write(main, b"y\n")  # "Start the clean run?"
        out = b""
        assert proc.stdout is not None
        while b"Run these" not in out:
            chunk = await asyncio.wait_for(proc.stdout.read(4096), CLI_TIMEOUT)
            assert chunk, out.decode()
            out += chunk
        os.write(main, b"n\n")
        rest, err = await asyncio.wait_for(proc.communicate(), CLI_TIMEOUT)
    finally:
        os.close(main)
    assert proc.returncode == 1, err.decode()
    assert "the plan was declined" in err.decode()
    ran = Ran(1, (out + rest).decode(), err.decode(), tmp_path / "out")
    assert ran.results["declined"] is True and ran.test["runs"] == []
    assert len(portal.history) == 1  # only the clean run was reset for, and ran


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
async def test_ctrl_c_keeps_and_reports_what_finished(chrome: ChromeProcess, portal: Portal,
                                                      tmp_path: Path, sig: int) -> None:
    junit = tmp_path / "ci" / "test-run.xml"
    proc = await asyncio.create_subprocess_exec(
        *_argv(chrome, portal, tmp_path, ["--before", RESET, "--only", UPLOADS, "--yes",
                                          "--junit", str(junit)],
               VERIFYING), env=_env(portal, None), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    runs = tmp_path / "out" / "runs"
    # Once the second planned run's skill is at work, press Ctrl-C (or send SIGTERM).
    for _ in range(int(CLI_TIMEOUT * 4)):
        if list(runs.glob("02-*/skill.stdout")):
            break
        assert proc.returncode is None
        await asyncio.sleep(0.25)
    proc.send_signal(sig)
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 130, err.decode()
    assert "interrupted" in err.decode()
    ran = Ran(130, out.decode(), err.decode(), tmp_path / "out")
    assert ran.results["interrupted"] is True and ran.results["exit_code"] == 130
    t = ran.test
    # The clean run and the first planned run finished and are kept, judged; the one in
    # flight is not counted.
    assert t["clean"]["gate"]["passed"]
    assert [r["fault"]["kind"] for r in t["runs"]] == ["phantom_success"]
    assert (ran.out_dir / t["runs"][0]["folder"] / "verdicts.html").is_file()
    assert not t["passed"]
    # The JUnit file says the same: what finished as it is, each other planned run an
    # error (not run), so a CI never reads an interrupted test as a short green one.
    cases = read_junit(junit.read_bytes())
    gates = {c.classname: (c.kind, c.type) for c in cases if c.name == "gate"}
    assert gates.pop("/clean") == ("passed", "")
    assert gates.pop(f"/phantom_success on {UPLOADS} (write 1, rep 1)") == ("passed", "")
    assert set(gates) == {f"/{kind} on {UPLOADS} (write 1, rep 1)" for kind in (
        "transient_error", "phantom_failure", "session_drop")}, gates
    assert set(gates.values()) == {("error", "not_run")}
    assert f"junit: {junit}" in out.decode()


# -- skills that crash, hang, quit, lie; a write point never reached ---------------------


@pytest.mark.parametrize(("mode", "outcome"), [
    ("crash", "agent_crashed"), ("hang", "timed_out"), ("quit", "no_claim"),
    ("lie", "silent_wrong")])
async def test_a_misbehaving_skill_never_passes(pw: Any, chrome: ChromeProcess,
                                                portal: Portal, tmp_path: Path, mode: str,
                                                outcome: str) -> None:
    await sign_in_the_person(pw, chrome, portal)
    task = one_filing_task(tmp_path)
    ran = await run_cli(chrome, portal, tmp_path, [
        "--before", RESET, "--only", COMPANY, "--faults", "transient_error",
        "--deadline", "45", "--yes"], [sys.executable, str(MISBEHAVING), mode],
        env={"PORTAL_PILOT_TASK": str(task)})
    assert ran.code == 1, ran.err
    t = ran.test
    assert t["clean"]["gate"]["passed"], t["clean"]["gate"]  # honest when nothing fails
    run, = t["runs"]
    assert run["fault_fired"] == "on_point"
    assert run["gate"]["outcome"] == outcome and not run["gate"]["passed"], run["gate"]
    assert not t["passed"]
    cell, = (c for c in t["matrix"] if c["unit"] == "R-101")
    assert cell["held_up"] == 0
    if mode == "crash":
        assert "RuntimeError: company: HTTP 503" in run["skill"]["crashed"]
    if mode == "hang":
        assert run["skill"]["timed_out"] == "stopped at its deadline (45s)"
    assert_the_portal_agrees(ran, portal, load_task(task))


async def test_a_write_point_the_faulted_run_never_reaches_is_no_test(
        pw: Any, chrome: ChromeProcess, portal: Portal, tmp_path: Path) -> None:
    await sign_in_the_person(pw, chrome, portal)
    task = one_filing_task(tmp_path)
    ran = await run_cli(chrome, portal, tmp_path, [
        "--before", RESET, "--only", "PUT /api/filings/*/sections/officers", "--faults",
        "phantom_success", "--yes"], [sys.executable, str(MISBEHAVING), "shy"],
        env={"PORTAL_PILOT_TASK": str(task)})
    assert ran.code == 1, ran.err
    run, = ran.test["runs"]
    assert run["fault_fired"] == "not_fired"
    assert run["gate"]["outcome"] == "fault_did_not_fire" and not run["gate"]["passed"]
    cell, = (c for c in ran.test["matrix"] if c["unit"] == "R-101")
    assert cell["counted"] == 0  # shown, never counted
    assert not ran.test["passed"]
    assert_the_portal_agrees(ran, portal, load_task(task))
