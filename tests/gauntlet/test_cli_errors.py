"""The errors a person makes with `ajantik gauntlet`: one line on stderr, exit code 2,
every problem of a suite in that one line. No browser needed."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.cli import run


def test_a_bad_suite_is_exit_2_with_every_problem_on_one_line(tmp_path: Path) -> None:
    suite = tmp_path / "gauntlet.yaml"
    suite.write_text("version: 1\nagent: {type: reference, preset: clever}\n"
                     "task: {name: T, description: Add Aurora Headphones to cart}\n"
                     "variants: [baseline, rainy_day]\nrepetitions: -1\n")
    res = run("gauntlet", "run", str(suite), "--out", str(tmp_path / "out"))
    assert res.code == 2
    line = res.one_line_error()
    assert line.startswith("ajantik gauntlet run: error: ")
    assert "3 problems" in line
    for words in ("agent.preset", "rainy_day", "repetitions"):
        assert words in line
    assert not (tmp_path / "out").exists()  # nothing is written for a refused suite


def test_a_missing_suite_file(tmp_path: Path) -> None:
    res = run("gauntlet", "run", str(tmp_path / "nope.yaml"))
    assert res.code == 2 and "no such file" in res.one_line_error()


def test_doctor_checks_a_suite_without_running_it(tmp_path: Path) -> None:
    suite = tmp_path / "gauntlet.yaml"
    suite.write_text("version: 1\nagent: {type: command, run: no-such-agent-program}\n"
                     "task: {name: T, description: Add Aurora Headphones to cart}\n")
    res = run("gauntlet", "doctor", str(suite), "--no-launch")
    assert res.code == 2 and "no-such-agent-program" in res.one_line_error()


def test_doctor_says_what_is_installed_and_what_would_run(tmp_path: Path) -> None:
    res = run("gauntlet", "demo", "--print-suite")
    suite = tmp_path / "demo.yaml"
    suite.write_text(res.stdout)
    doc = run("gauntlet", "doctor", str(suite), "--no-launch")
    assert doc.code == 0, doc.stderr
    for words in ("browser:", "playwright", "15 variants x 2 repetitions = 30 runs",
                  "coupon SAVE20", "total 103.20 EUR"):
        assert words in doc.stdout


def test_an_output_folder_with_other_files_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("do not delete")
    res = run("gauntlet", "demo", "--out", str(out))
    assert res.code == 2 and "holds files `ajantik gauntlet` did not write" in res.one_line_error()
    assert (out / "thesis.tex").read_text() == "do not delete"


def test_help_explains() -> None:
    res = run("gauntlet", "--help")
    assert res.code == 0
    for words in ("demo", "run", "compare", "doctor", "Exit codes"):
        assert words in res.stdout


def agent_suite(tmp_path: Path, run_line: str) -> Path:
    suite = tmp_path / "gauntlet.yaml"
    suite.write_text(f"version: 1\nagent: {{type: command, run: {run_line!r}}}\n"
                     "task: {name: T, description: Add Aurora Headphones to cart}\n")
    return suite


def test_doctor_shows_the_program_a_command_agent_starts(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text("import no_such_module_anywhere\n")
    res = run("gauntlet", "doctor", str(agent_suite(tmp_path, f"{sys.executable} agent.py")),
              "--no-launch")
    assert res.code == 0, res.stderr  # without --try-agent, it is only looked up
    assert f"agent program: `{sys.executable}` is {sys.executable}" in res.stdout
    assert "--try-agent" in res.stdout


def test_doctor_dry_start_finds_the_import_a_python_lacks(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text("import no_such_module_anywhere\n")
    suite = agent_suite(tmp_path, f"{sys.executable} agent.py")
    res = run("gauntlet", "doctor", str(suite), "--no-launch", "--try-agent")
    assert res.code == 2  # a missing part, as the exit-code table says
    line = res.one_line_error()
    assert "dry start" in line and "exited with code 1" in line
    assert "ModuleNotFoundError: No module named 'no_such_module_anywhere'" in line
    assert "FAIL dry start" in res.stdout


def test_doctor_dry_start_of_the_example_agent_and_its_program_version(
        tmp_path: Path) -> None:
    from tests.gauntlet.suites import CUSTOM_AGENT

    suite = agent_suite(tmp_path, f"{sys.executable} {CUSTOM_AGENT}")
    res = run("gauntlet", "doctor", str(suite), "--no-launch", "--try-agent", "dry")
    assert res.code == 0, res.stdout + res.stderr
    assert "ok   dry start" in res.stdout and "claim unsure: dry run" in res.stdout
    version = run("gauntlet", "doctor", str(suite), "--no-launch", "--try-agent", "version")
    assert version.code == 0 and f"Python {sys.version.split()[0]}" in version.stdout


def test_doctor_try_agent_needs_a_command_agent(tmp_path: Path) -> None:
    res = run("gauntlet", "doctor", "--no-launch", "--try-agent")
    assert res.code == 2 and "needs a SUITE_FILE with a command agent" in res.one_line_error()


def test_compare_and_report_translate_a_version_1_file(tmp_path: Path) -> None:
    data = Path(__file__).parent / "data"
    ref, crash = str(data / "results-v1-ref.json"), str(data / "results-v1-crash.json")
    res = run("gauntlet", "compare", ref, crash)
    assert res.code == 1, res.stdout + res.stderr
    notes = [ln for ln in res.stdout.splitlines() if ln.startswith("note:")]
    assert sum("is results version 1; its runs were scored again" in n for n in notes) == 2
    assert sum("they differ" in n for n in notes) == 1  # what differs, in one line
    assert "regressed: baseline" in res.stdout and "session_drop_checkout" in res.stdout
    same = run("gauntlet", "compare", ref, ref)
    assert same.code == 0 and "they differ" not in same.stdout
    target = tmp_path / "again.html"
    rep = run("gauntlet", "report", crash, "--out", str(target))
    assert rep.code == 0 and "note:" in rep.stdout
    html = target.read_text()
    assert "agent crashed" in html and "results version 2" in html


def test_compare_refuses_files_with_nothing_in_common(tmp_path: Path) -> None:
    import json

    data = json.loads((Path(__file__).parent / "data" / "results-v1-ref.json").read_text())
    data["runs"] = [r for r in data["runs"] if r["variant"] == "baseline"]
    data["suite"]["variants"] = ["baseline"]
    only_base = tmp_path / "base.json"
    only_base.write_text(json.dumps(data))
    data2 = json.loads((Path(__file__).parent / "data" / "results-v1-ref.json").read_text())
    data2["runs"] = [r for r in data2["runs"] if r["variant"] == "expired_session"]
    data2["suite"]["variants"] = ["expired_session"]
    only_exp = tmp_path / "exp.json"
    only_exp.write_text(json.dumps(data2))
    res = run("gauntlet", "compare", str(only_base), str(only_exp))
    assert res.code == 2 and "share no variant" in res.one_line_error()


def test_doctor_counts_in_words_for_one_run_too(tmp_path: Path) -> None:
    suite = tmp_path / "one.yaml"
    suite.write_text("version: 1\nagent: {type: reference, preset: reference}\n"
                     "task: {name: T, description: Add Aurora Headphones to cart}\n"
                     "variants: [baseline]\nrepetitions: 1\n")
    doc = run("gauntlet", "doctor", str(suite), "--no-launch")
    assert doc.code == 0, doc.stderr
    assert "1 variant x 1 repetition = 1 run," in doc.stdout  # issue 31: "1 variants"
