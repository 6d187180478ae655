"""The words people read: counts that agree with their number, block rules named once,
YAML errors that name the file, progress rows whose columns line up."""

from __future__ import annotations

import re
import tokenize
from pathlib import Path

import pytest
from rich.console import Console

from ajantik_cdp.core.record.record_schema import BlockLine
from ajantik_cdp.gauntlet.report.progress_display import SuiteProgress
from ajantik_cdp.gauntlet.score.scoring import score
from ajantik_cdp.record.reader import load_record
from ajantik_cdp.record.table import rows
from tests.gauntlet.builders import ADD, CORRECT_PATH, expectation, result
from tests.support.cli import run
from tests.support.records import ORIGIN, RecordBuilder

ADAPTER = Path(__file__).resolve().parents[2] / "docs" / "adapter-template.py"


@pytest.fixture
def one_request(tmp_path: Path) -> Path:
    rec = RecordBuilder(tmp_path / "one.jsonl")
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"},
                 answer={"record": {"status": "approved"}})
    rec.block("POST", "/submission")
    rec.writer.write(BlockLine(seq=rec.writer.next_seq(), source="network",
                               reason="allow_writes", rule=None, target_id="T1",
                               target_type="page", frame_url=ORIGIN + "/", method="POST",
                               url="https://elsewhere.example/x", resource_type="Fetch"))
    return rec.close()


def test_har_counts_agree_with_their_number(one_request: Path, tmp_path: Path) -> None:
    res = run("record", "har", str(one_request), "-o", str(tmp_path / "x.har"))
    assert res.code == 0
    assert "(1 request, 2 blocks)" in res.stderr, res.stderr


def test_a_block_names_its_rule_once(one_request: Path) -> None:
    clients = [r.client for r in rows(load_record(one_request)) if r.style == "block"]
    assert clients == ["BLOCKED by deny[0] 'submission'",
                       "BLOCKED: matches no allow_writes entry"]


def test_the_judge_says_unit_and_record_line_in_the_singular(one_request: Path,
                                                             tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    report.write_text("A-1: done\n")
    # A-2 has no record line: unscorable, which the gate lets through only when asked.
    res = run("test", "judge", "--adapter", str(ADAPTER), "--record", str(one_request),
              "--message", str(report), "--allow-unscorable", env={"COLUMNS": "200"})
    assert res.code == 0, res.stderr
    flat = " ".join(res.stdout.split())
    assert "(record line 2)" in flat or "(record lines 2-" in flat, res.stdout
    assert "(record lines 2)" not in flat and "unit(s)" not in flat
    assert "(record lines none)" not in flat and "(no record line)" in flat
    assert re.search(r"\b2 units:", flat), flat


@pytest.mark.parametrize("name", ["guard.yaml", "guard.yml"])
def test_a_yaml_error_names_the_file_and_the_place(tmp_path: Path, name: str) -> None:
    cfg = tmp_path / name
    cfg.write_text("deny:\n  - /submission\n record: [x\n")
    res = run("cdp", "--upstream", "http://127.0.0.1:1", "--config", str(cfg))
    line = res.one_line_error()
    assert res.code == 2 and "<unicode string>" not in line
    assert f"bad config {cfg}: line 3, column" in line and "not valid YAML" in line, line


def test_a_suite_yaml_error_names_the_file_too(tmp_path: Path) -> None:
    suite = tmp_path / "gauntlet.yaml"
    suite.write_text("version: 1\nagent: [unclosed\n")
    line = run("gauntlet", "run", str(suite)).one_line_error()
    assert str(suite) in line and "<unicode string>" not in line and "line 3" in line, line


def test_pass_and_fail_rows_line_up() -> None:
    e = expectation()
    runs = [score(result("baseline", *CORRECT_PATH, repetition=0), e),
            score(result("cookie_popup", ADD, repetition=1, status="failed"), e),
            score(result("expired_session", ADD, repetition=0, status="completed"), e)]
    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    with SuiteProgress(12, console, lines=True) as progress:
        for _ in range(4):
            for s in runs:
                progress.done(s)
    lines = console.export_text().splitlines()
    assert len(lines) == 12
    assert any("FAIL" in ln and "stopped_early/" in ln for ln in lines)  # the class is shown
    # The outcome, verdict, time and steps columns start at the same place on every row.
    outcome = {ln.index(" pass ") if " pass " in ln else ln.index(" FAIL ") for ln in lines}
    assert len(outcome) == 1
    assert len({ln.index(" steps") for ln in lines}) == 1
    assert len({re.search(r"\d+\.\ds", ln).start() for ln in lines}) == 1  # type: ignore[union-attr]


# "2 run(s)": a count that does not agree with its number. Every count goes through
# core/plurals.py's counted(); this finds the pattern in the text of src's strings and
# templates (code inside an f-string's braces, "f(s)", is not text; "http(s)" is a scheme).
_HEDGED = re.compile(r"[A-Za-z]+\(s\)")
_SCHEMES = re.compile(r"\b(?:http|ws)\(s\)")
SRC = Path(__file__).resolve().parents[2] / "src"


def _hedged(text: str) -> list[str]:
    return [m.group() for m in _HEDGED.finditer(_SCHEMES.sub("", text))]


def _string_texts(path: Path) -> list[tuple[int, str]]:
    out = []
    with path.open("rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type == tokenize.STRING:
                text = tok.string
                while re.search(r"\{[^{}]*\}", text):  # f-string fields are code
                    text = re.sub(r"\{[^{}]*\}", "", text)
                out.append((tok.start[0], text))
    return out


def test_the_hedge_finder_finds_a_hedged_count() -> None:
    assert _hedged("2 run(s) at a time") == ["run(s)"]
    assert _hedged("http(s)://host ws(s)://") == []


def test_no_count_in_src_is_hedged_with_s_in_parentheses() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        found += [f"{path.relative_to(SRC)}:{line}: {text}" for line, text in
                  _string_texts(path) if _hedged(text)
                  and '"request(s)"' not in text]  # plurals.py's docstring names it
    for path in sorted(SRC.rglob("*.j2")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if _hedged(re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", line)):
                found.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
