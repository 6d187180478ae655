"""Tables in a CI log: with stdout not a terminal, every command's console is as wide as
its tables need, so no cell is cut ("phantom_suc…") and no table is wrapped into
fragments (issue 31: `demo` and `test run` printed at 80 columns and cut 18 rows)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from ajantik_cdp.cli.console import command_console
from ajantik_cdp.testrun.report.terminal import print_result
from tests.cli.test_exit_codes import ADAPTER
from tests.demo.test_plan import _good
from tests.support.cli import run
from tests.support.records import RecordBuilder


def rendered(console: Console, print_: object) -> str:
    print_(console)  # type: ignore[operator]
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def off_terminal(monkeypatch: pytest.MonkeyPatch) -> Console:
    monkeypatch.delenv("COLUMNS", raising=False)
    return command_console(file=io.StringIO())


def test_the_verdict_matrix_of_demo_and_test_run_is_whole(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    outcome = _good(tmp_path)

    def matrices(console: Console) -> None:
        for t in outcome.tests:
            print_result(console, t)

    # The check can fail: rich's own default off a terminal cuts these rows.
    cut = rendered(Console(file=io.StringIO(), highlight=False), matrices)
    assert "…" in cut
    text = rendered(off_terminal(monkeypatch), matrices)
    assert "…" not in text
    for whole in ("phantom_success", "phantom_failure", "session_drop",
                  "POST /api/filings/*/documents (write 2)", "silent wrong units"):
        assert whole in text, whole
    # One table row is one line: no cell wrapped onto a second.
    row = next(line for line in text.splitlines() if "phantom_success" in line
               and "POST /api" in line)
    assert row.count("│") >= 5


def test_the_judge_table_is_whole_in_a_log(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    rec = RecordBuilder(tmp_path / "r.jsonl")
    long_status = "approved-after-a-second-review-by-the-records-office-of-the-north-region"
    for unit in ("A-1", "A-2"):
        rec.exchange("PUT", f"/api/records/{unit}", sent={"status": "approved"},
                     answer={"record": {"status": long_status}})
    report = tmp_path / "report.txt"
    report.write_text("A-1: done - approved\nA-2: done - approved\n")
    monkeypatch.delenv("COLUMNS", raising=False)
    res = run("test", "judge", "--adapter", str(ADAPTER), "--record", str(rec.close()),
              "--message", str(report))
    assert "…" not in res.stdout
    assert long_status in res.stdout  # on one line, not folded or cut


def test_a_terminal_keeps_its_width_and_columns_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "97")
    assert command_console(file=io.StringIO()).width == 97
    monkeypatch.delenv("COLUMNS")
    assert command_console(file=io.StringIO(), width=120).width == 120  # --width
    assert command_console(file=io.StringIO(), log_width=200).width == 200
    assert command_console(file=io.StringIO()).width >= 400


def test_the_gauntlet_tables_are_whole_in_a_log(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite
    from tests.gauntlet.test_claims_summary_compare import results_bytes, scored_runs

    variants = ["baseline", "session_drop_checkout", "phantom_failure_add"]
    files = []
    for name, passes in (("before", True), ("after", False)):
        path = tmp_path / f"{name}.json"
        path.write_bytes(results_bytes(scored_runs(
            {v: [(passes or v == "baseline", 7)] * 3 for v in variants}), variants,
            demo_suite()))
        files.append(str(path))
    monkeypatch.delenv("COLUMNS", raising=False)
    res = run("gauntlet", "compare", *files)
    assert res.code in (0, 1), res.stderr
    assert "…" not in res.stdout
    # The check can fail: the same table on rich's 80 columns is cut.
    cut = run("gauntlet", "compare", *files, env={"COLUMNS": "80"})
    assert "…" in cut.stdout
    assert "session_drop_checkout" in res.stdout and "phantom_failure_add" in \
        res.stdout
