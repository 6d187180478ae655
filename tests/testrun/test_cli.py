"""`ajantik test plan` and the refusals of `ajantik test run` that need no browser: each
bad input is one line and exit code 2, before anything runs or is written."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from ajantik_cdp.cli.main import main
from ajantik_portal_pilot.task import SKILL_DIR
from tests.support.records import RecordBuilder

ADAPTER = str(SKILL_DIR / "adapter.py")
CONFIG = str(SKILL_DIR / "guard.json")
SKILL = ["--", sys.executable, "-m", "ajantik_portal_pilot.skill_command", "verifying"]


def ajantik(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def clean_record(path: Path) -> Path:
    rec = RecordBuilder(path)
    for rid in ("R-101", "R-102"):
        rec.exchange("GET", f"/api/filings/{rid}", answer={})
        rec.exchange("PUT", f"/api/filings/{rid}/sections/company", answer={})
        rec.exchange("POST", f"/api/filings/{rid}/documents", answer={})
    return rec.close()


def test_the_plan_from_a_clean_runs_record(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    code, out, _ = ajantik(capsys, "test", "plan", "--record", str(clean_record(
        tmp_path / "clean.jsonl")), "--at", "last", "--reps", "2", *SKILL)
    assert code == 0
    assert "PUT /api/filings/*/sections/company" in out and "2 writes" in out
    assert "Plan: 16 runs = 2 write points x 4 fault kinds" in out
    assert "phantom_failure on POST /api/filings/*/documents (write 2, rep 2)" in out
    assert "--fault-at 4" not in out  # only the points' own writes are counted here
    assert "about 52 in all" in out  # 16 runs x (4 writes - 1) + 4 phantom_failure sends
    assert "`ajantik test run` makes a clean run first, then these 16 runs." in out


def test_the_plan_from_the_adapters_write_points(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = ajantik(capsys, "test", "plan", "--adapter", ADAPTER, "--config", CONFIG,
                           "--faults", "session_drop", "--only",
                           "POST /api/filings/*/documents", *SKILL)
    assert code == 0
    assert "from the adapter's write_points()" in out
    assert "session_drop on POST /api/filings/*/documents (write 1, rep 1)" in out
    assert "Plan: 1 run = 1 write point x 1 fault kind (session_drop) x 1 rep," in out


@pytest.mark.parametrize(("args", "message"), [
    ([], "give --record with a clean run's record, or --adapter"),
    (["--at", "middle", "--record", "x"], "--at must be first, last or a number"),
    (["--faults", "timeout", "--record", "x"], "unknown fault kind 'timeout'"),
    (["--only", "documents", "--record", "x"], "--only: a write point is METHOD /path"),
    (["--record", "missing.jsonl"], "record missing.jsonl not found"),
    (["--record", "clean.jsonl", "--only", "DELETE /x"], "not a write point of this skill"),
    (["--record", "faulted.jsonl"], "is the record of a run with a fault"),
    (["--adapter", "plain.py"], "defines no write_points()"),
    (["--record", "clean.jsonl", "--at", "3"],
     "--at 3 leaves nothing to fault: the clean run made (PUT /api/filings/*/sections/"
     "company: 2 writes; POST /api/filings/*/documents: 2 writes)"),
])
def test_plan_refuses_bad_input_in_one_line(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            args: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    clean_record(tmp_path / "clean.jsonl")
    faulted = RecordBuilder(tmp_path / "faulted.jsonl", fault={
        "kind": "phantom_success", "pattern": "/x", "at": 1})
    faulted.exchange("POST", "/x", fault="phantom_success", reached=False, client_status=204)
    faulted.close()
    base = Path(__file__).resolve().parents[1] / "judge" / "bad_adapters" / "_base.py"
    (tmp_path / "_base.py").write_text(base.read_text())
    (tmp_path / "plain.py").write_text("from _base import claim, done_right, held, units  "
                                       "# noqa\n")
    code, _, err = ajantik(capsys, "test", "plan", *args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ajantik test plan: error: "), err
    assert message in lines[0]


RUN = ["test", "run", "--upstream", "http://127.0.0.1:9", "--config", CONFIG,
       "--adapter", ADAPTER]


@pytest.mark.parametrize(("args", "message"), [
    ([*RUN, *SKILL], "with no terminal to ask on, pass --yes"),
    (["test", "run", "--config", CONFIG, "--adapter", ADAPTER, *SKILL], "--upstream is required"),
    (["test", "run", "--upstream", "http://127.0.0.1:9", "--adapter", ADAPTER, *SKILL],
     "--config is required"),
    (["test", "run", "--upstream", "http://127.0.0.1:9", "--config", CONFIG, *SKILL],
     "--adapter is required"),
    ([*RUN, "--yes", "--", "no-such-skill-program"], "`no-such-skill-program` is not on PATH"),
    ([*RUN, "--yes", "--", "./no/such/skill"], "./no/such/skill does not exist"),
    ([*RUN, "--yes", "--at", "0", *SKILL], "--at must be first, last or a number"),
    ([*RUN[:2], "--upstream", "127.0.0.1", *RUN[4:], "--yes", *SKILL], "needs a port"),
    ([*RUN[:-1], "missing.py", "--yes", *SKILL], "missing.py: file not found"),
])
def test_run_refuses_bad_input_before_anything_runs(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        args: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = ajantik(capsys, *args, "--out", "out") if "--" not in args else ajantik(
        capsys, *args[:args.index("--")], "--out", "out", *args[args.index("--"):])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ajantik test run: error: "), err
    assert message in lines[0]
    assert not (tmp_path / "out").exists()


def test_chrome_not_running_is_exit_3_and_writes_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing listens on the discard port: no usable Chrome, exit 3 as for every command.
    An --out in folders that do not exist yet is no error (they are made once the work
    starts), and nothing is made before Chrome answers."""
    monkeypatch.chdir(tmp_path)
    code, _, err = ajantik(capsys, *RUN, "--yes", "--out", "no/such/out", *SKILL)
    assert code == 3, err
    assert err.strip() == ("ajantik test run: error: --upstream: cannot reach Chrome at "
                           "http://127.0.0.1:9 (connection refused). Start one with "
                           "`ajantik browser --port 9`")
    assert not (tmp_path / "no").exists()


def test_run_without_a_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = ajantik(capsys, *RUN, "--yes")
    assert code == 2 and "Missing argument 'COMMAND...'" in err


@pytest.mark.parametrize("command", ["run", "plan"])
def test_help_explains(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, _ = ajantik(capsys, "test", command, "--help")
    assert code == 0
    for word in ("--at", "--reps", "--faults", "--before", "--only", "write point"):
        assert word in out
    if command == "run":
        assert "Exit code 0 only when" in out and "130" in out and '"ask"' in out


def test_the_operators_writes_are_no_write_points(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    """A clean run's record with the operator's log beside it (as `test run` leaves it):
    the sign-in started while the operator worked is left out of the plan."""
    rec = RecordBuilder(tmp_path / "ajantik-cdp.jsonl")
    rec.exchange("POST", "/login", answer={})
    rec.exchange("POST", "/api/filings/R-101/documents", answer={})
    path = rec.close()
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    for line, started in zip(lines[1:3], ("2026-01-01T10:00:05.000Z",
                                          "2026-01-01T10:00:09.000Z"), strict=True):
        line["started"] = started
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    (tmp_path / "operator.jsonl").write_bytes(orjson.dumps({
        "ask": {"ask": "sign_in"}, "answer": {"ok": True},
        "window": ["2026-01-01T10:00:04.000Z", "2026-01-01T10:00:06.000Z"]}) + b"\n")
    code, out, err = ajantik(capsys, "test", "plan", "--record", str(path), *SKILL)
    assert code == 0, err
    assert "POST /api/filings/*/documents" in out
    assert "/login" not in out
    (tmp_path / "operator.jsonl").unlink()  # without the log, the sign-in is a write point
    code, out, _ = ajantik(capsys, "test", "plan", "--record", str(path), *SKILL)
    assert code == 0 and "POST /login" in out
