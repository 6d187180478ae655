"""One rule for every output path, tested per command: a folder that does not exist is
made, with its parents; a path that cannot be written (a file where a folder must be)
is one line naming the path, exit 2; a results folder that is not the command's own
and not empty is refused, exit 2, and nothing in it is touched."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from ajantik_cdp.gauntlet.score.results_file import RunContext, encode_results, results_data
from ajantik_cdp.gauntlet.score.suite_summary import summarise_suite
from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite
from tests.gauntlet.test_claims_summary_compare import scored_runs
from tests.support.cli import run, start_guard
from tests.support.records import RecordBuilder

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "docs" / "adapter-template.py"


@pytest.fixture
def record(tmp_path: Path) -> Path:
    rec = RecordBuilder(tmp_path / "record.jsonl")
    for unit in ("A-1", "A-2"):  # the template's units
        rec.exchange("PUT", f"/api/records/{unit}", sent={"status": "approved"},
                     answer={"record": {"status": "approved"}})
    return rec.close()


@pytest.fixture
def in_the_way(tmp_path: Path) -> Path:
    """A file where the user meant a folder: `--out report.txt/v.json`."""
    path = tmp_path / "report.txt"
    path.write_text("a report")
    return path


def refused(res_code: int, line: str, flag: str, path: Path, blocker: Path) -> None:
    assert res_code == 2, line
    assert f"{flag} {path}: {blocker} is a file, not a folder" in line, line


def test_record_har_creates_the_folder_or_names_the_path(tmp_path: Path, record: Path,
                                                         in_the_way: Path) -> None:
    target = tmp_path / "new" / "dir" / "run.har"
    assert run("record", "har", str(record), "-o", str(target)).code == 0
    assert target.is_file()
    bad = in_the_way / "run.har"
    res = run("record", "har", str(record), "-o", str(bad))
    refused(res.code, res.one_line_error(), "-o", bad, in_the_way)


def test_test_judge_creates_the_folders_or_names_the_path(tmp_path: Path, record: Path,
                                                          in_the_way: Path) -> None:
    report = tmp_path / "said.txt"
    report.write_text("A-1: done\nA-2: done\n")
    base = ["test", "judge", "--adapter", str(ADAPTER), "--record", str(record),
            "--message", str(report)]
    out, html = tmp_path / "a" / "v.json", tmp_path / "b" / "c" / "v.html"
    res = run(*base, "--out", str(out), "--html", str(html))
    assert res.code == 0, res.stderr
    assert out.is_file() and html.is_file()
    for flag in ("--out", "--html"):
        bad = in_the_way / "v.json"
        res = run(*base, flag, str(bad))
        refused(res.code, res.one_line_error(), flag, bad, in_the_way)
        assert "File exists" not in res.stderr


def test_gauntlet_report_creates_the_folder_or_names_the_path(tmp_path: Path,
                                                              in_the_way: Path) -> None:
    suite, runs = demo_suite(), scored_runs({"baseline": [(True, 7)] * 3})
    environment = {"ajantik": "0", "python": "3", "platform": "test", "browser": "Chromium",
                   "executor": "local", "workers": 1}
    ctx = RunContext("s-1", "t0", "t1", 10.0, False, environment)
    summary = summarise_suite(runs, ["baseline"], 3, 0.95, suite.thresholds)
    results = tmp_path / "results.json"
    results.write_bytes(encode_results(results_data(suite, ctx, summary, runs)))
    page = tmp_path / "newdir" / "r.html"
    res = run("gauntlet", "report", str(results), "--out", str(page))
    assert res.code == 0, res.stderr
    assert page.read_text().startswith("<!doctype html>")
    bad = in_the_way / "r.html"
    res = run("gauntlet", "report", str(results), "--out", str(bad))
    refused(res.code, res.one_line_error(), "--out", bad, in_the_way)


@pytest.mark.parametrize("command", [
    ["cdp", "--upstream", "http://127.0.0.1:1", "--record"],
    ["demo", "--out"],
    ["gauntlet", "demo", "--out"],
    ["gauntlet", "matrix", "--out"],
    ["gauntlet", "matrix", "--keep"],
    ["walkthrough", "--out"],
    ["browser", "--port", "9", "--profile"],
], ids=lambda c: " ".join(w for w in c if not w.startswith("http")))
def test_a_file_in_the_way_is_one_line_naming_the_path(in_the_way: Path,
                                                       command: list[str]) -> None:
    bad = in_the_way / "deeper" / "x.out"
    res = run(*command, str(bad))
    refused(res.code, res.one_line_error(), command[-1], bad, in_the_way)


def test_a_path_that_is_a_folder_is_refused_for_a_file_flag(tmp_path: Path,
                                                            record: Path) -> None:
    res = run("record", "har", str(record), "-o", str(tmp_path))
    assert res.code == 2 and str(tmp_path) in res.one_line_error()


def test_shop_secret_file_gets_its_folder(tmp_path: Path) -> None:
    import socket

    secret = tmp_path / "secrets" / "shop.secret"
    with socket.socket() as busy:  # the shop then stops at once: its port is taken
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        res = run("shop", "--port", str(busy.getsockname()[1]), "--secret-file", str(secret),
                  env={"AJANTIK_SHOP_SECRET": None})
    assert res.code == 2 and "is in use" in res.one_line_error()
    assert secret.is_file() and len(secret.read_text().strip()) >= 32


def _closed_port() -> int:
    import socket

    with socket.socket() as s:  # bound, then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_guard_that_cannot_reach_chrome_leaves_no_folder(tmp_path: Path) -> None:
    record = tmp_path / "newdir" / "deeper" / "x.jsonl"
    res = run("cdp", "--upstream", f"http://127.0.0.1:{_closed_port()}", "--port",
              "0", "--record", str(record))
    assert res.code == 3 and "cannot reach Chrome" in res.one_line_error(), res.stderr
    assert not (tmp_path / "newdir").exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.browser
def test_a_guard_whose_port_is_taken_leaves_no_folder(chrome, tmp_path: Path) -> None:
    import socket

    record = tmp_path / "newdir" / "x.jsonl"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        res = run("cdp", "--upstream", chrome.http_url, "--port",
                  str(busy.getsockname()[1]), "--record", str(record))
    assert res.code == 2 and "is in use" in res.one_line_error(), res.stderr
    assert not (tmp_path / "newdir").exists()


@pytest.mark.browser
@pytest.mark.process
def test_the_guard_creates_its_records_folder(chrome, tmp_path: Path) -> None:
    import urllib.request

    record = tmp_path / "newdir" / "deeper" / "x.jsonl"
    guard = start_guard("--upstream", chrome.http_url, "--record", str(record))
    try:
        assert record.is_file()
        # Serving: past the moment its own signal handlers are in place.
        with urllib.request.urlopen(guard.url + "/json/version", timeout=10) as answer:
            assert answer.status == 200
    finally:
        guard.proc.send_signal(signal.SIGTERM)
        assert guard.wait() == 0, guard.rest_of_stderr()
    # Its last line counts what it recorded, each count with its own number.
    last = guard.rest_of_stderr().strip().splitlines()[-1]
    assert f"record {record}: 0 requests, 0 writes, 0 blocks, 0 faults" in last, last
    assert "(s)" not in last


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    """A folder of the user's, not empty: `--out ~/Documents`."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "thesis.tex").write_text("do not delete")
    return folder


def _test_run_args(tmp_path: Path, upstream: str = "http://127.0.0.1:1") -> list[str]:
    config = tmp_path / "guard.json"
    config.write_text("{}")
    return ["test", "run", "--upstream", upstream, "--config", str(config), "--adapter",
            str(ADAPTER), "--yes", "--out"]


def _film_args(tmp_path: Path) -> list[str]:
    return ["cdp", "--upstream", "http://127.0.0.1:1", "--record", str(tmp_path / "r.jsonl"),
            "--film"]


# Every results folder: a folder of the user's with other files in it is refused before
# any work, and nothing in it is touched. (`gauntlet run` and `gauntlet demo`:
# tests/gauntlet/test_cli_errors.py; `demo` below checks a stand-in Chromium is found.)
FOLDER_COMMANDS = {
    "demo --out": lambda tmp: ["demo", "--out"],
    "walkthrough --out": lambda tmp: ["walkthrough", "--out"],
    "test run --out": _test_run_args,
    "gauntlet matrix --keep": lambda tmp: ["gauntlet", "matrix", "--keep"],
    "cdp --film": _film_args,
}


@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_a_folder_that_is_not_ours_is_refused(tmp_path: Path, foreign: Path,
                                              command: str) -> None:
    words = FOLDER_COMMANDS[command](tmp_path)
    extra = ["--", sys.executable, "-c", "pass"] if command.startswith("test run") else []
    res = run(*words, str(foreign), *extra)
    line = res.one_line_error()
    assert res.code == 2 and f"{words[-1]} {foreign} holds files" in line, line
    assert "choose another folder" in line
    assert [p.name for p in foreign.iterdir()] == ["thesis.tex"]
    assert (foreign / "thesis.tex").read_text() == "do not delete"


@pytest.mark.parametrize("command", ["test run --out", "cdp --film"])
def test_a_file_in_the_way_of_these_folders_too(tmp_path: Path, in_the_way: Path,
                                                command: str) -> None:
    words = FOLDER_COMMANDS[command](tmp_path)
    extra = ["--", sys.executable, "-c", "pass"] if command.startswith("test run") else []
    bad = in_the_way / "deeper"
    res = run(*words, str(bad), *extra)
    refused(res.code, res.one_line_error(), words[-1], bad, in_the_way)


def test_test_run_takes_an_out_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    """Issue 31: `--out new/sub/out` was refused; it is made once the work starts. Here
    the work stops at Chrome (not running), so the folder is not made yet either."""
    out = tmp_path / "new" / "sub" / "out"
    res = run(*_test_run_args(tmp_path, f"http://127.0.0.1:{_closed_port()}"), str(out),
              "--", sys.executable, "-c", "pass")
    assert res.code == 3 and "cannot reach Chrome" in res.one_line_error(), res.stderr
    assert not (tmp_path / "new").exists()


@pytest.mark.browser
def test_test_run_makes_its_out_folder_with_its_parents(chrome, tmp_path: Path) -> None:
    out = tmp_path / "new" / "sub" / "out"
    res = run(*_test_run_args(tmp_path, chrome.http_url), str(out), "--", sys.executable,
              "-c", "pass")
    # A skill that writes nothing and says nothing: nothing to fault, no pass (exit 1).
    assert res.code == 1, res.stdout + res.stderr
    assert (out / "results.json").is_file() and (out / "report.html").is_file()
    assert (out / ".ajantik-test-run").is_file()  # ours: the next run may replace it


def test_an_earlier_film_is_ours(tmp_path: Path) -> None:
    from ajantik_cdp.output_folder import check_film_folder

    film = tmp_path / "film"
    film.mkdir()
    (film / "000001-screencast.jpg").write_bytes(b"\xff\xd8")
    (film / "000002-still.jpg").write_bytes(b"\xff\xd8")
    check_film_folder(film)  # a guard's frames: moved aside when the guard starts
    (film / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"notes\.txt"):
        check_film_folder(film)
