"""One table of exit codes for every command (the README's): 0 ok, 1 the verdict or gate
failed, 2 bad input, 3 no usable Chrome (none found, would not start, unreachable, lost),
130 interrupted, 70 a bug of ours. Each row runs the command in-process, through the
console script's own ``main``; the rows that need Chrome running are in the browser
tests (exit 3 when Chrome is lost: tests/guard/test_fail_closed.py)."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite
from tests.gauntlet.test_claims_summary_compare import results_bytes, scored_runs
from tests.support.cli import run
from tests.support.records import RecordBuilder

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "docs" / "adapter-template.py"
APPROVED = {"record": {"status": "approved"}}
PENDING = {"record": {"status": "pending"}}


@dataclass
class Files:
    dir: Path
    record: Path  # A-1 approved and read back
    damaged: Path  # a bad line in the middle
    not_a_record: Path
    honest: Path  # a report the record bears out
    liar: Path  # a report claiming A-1 done over a phantom success
    phantom: Path  # the record behind `liar`
    before: Path
    after: Path  # cookie_popup regressed
    bad_suite: Path
    busy_port: int


@pytest.fixture
def files(tmp_path: Path) -> Iterator[Files]:
    rec = RecordBuilder(tmp_path / "record.jsonl")
    for unit in ("A-1", "A-2"):  # the template's units
        rec.exchange("PUT", f"/api/records/{unit}", sent={"status": "approved"},
                     answer=APPROVED)
    record = rec.close()
    ph = RecordBuilder(tmp_path / "phantom.jsonl")
    ph.exchange("GET", "/api/records/A-1", answer=PENDING)
    ph.exchange("PUT", "/api/records/A-1", sent={"status": "approved"}, reached=False,
                fault="phantom_success", client_status=204)
    phantom = ph.close()
    lines = record.read_bytes().splitlines(keepends=True)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(lines[0] + b'{"v": 1, "kind": "request", oops\n' + b"".join(lines[1:]))
    not_a_record = tmp_path / "notes.jsonl"
    not_a_record.write_bytes(b"\xff\xfe not a record\n")
    honest = tmp_path / "honest.txt"
    honest.write_text("A-1: done - approved\nA-2: done - approved\n")
    liar = tmp_path / "liar.txt"
    liar.write_text("A-1: done - saved\n")
    suite = demo_suite()
    variants = ["baseline", "cookie_popup"]
    before = tmp_path / "before.json"
    before.write_bytes(results_bytes(scored_runs(
        {"baseline": [(True, 7)] * 3, "cookie_popup": [(True, 8)] * 3}), variants, suite))
    after = tmp_path / "after.json"
    after.write_bytes(results_bytes(scored_runs(
        {"baseline": [(True, 7)] * 3, "cookie_popup": [(False, 2)] * 3}), variants, suite))
    bad_suite = tmp_path / "suite.yaml"
    bad_suite.write_text("version: 1\nagent: {type: reference, preset: clever}\n")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield Files(tmp_path, record, damaged, not_a_record, honest, liar, phantom, before,
                    after, bad_suite, sock.getsockname()[1])


Args = Callable[[Files], list[str]]
NO_CHROME: dict[str, str | None] = {"AJANTIK_CHROME": "/nonexistent/chrome"}

# (command words, arguments built from Files, environment, exit code, words in the output)
ROWS = [
    ("record show", lambda f: [str(f.record)], None, 0, ""),
    ("record show", lambda f: [str(f.dir / "none.jsonl")], None, 2, "no such file"),
    ("record show", lambda f: [str(f.damaged)], None, 2, "line 2"),
    ("record show", lambda f: [str(f.not_a_record)], None, 2, "not an ajantik record"),
    ("record har", lambda f: [str(f.record), "-o", str(f.dir / "r.har")], None, 0, ""),
    ("record har", lambda f: [str(f.damaged)], None, 2, "line 2"),
    ("test judge", lambda f: ["--adapter", str(ADAPTER), "--record", str(f.record),
                              "--message", str(f.honest)], None, 0, ""),
    ("test judge", lambda f: ["--adapter", str(ADAPTER), "--record", str(f.phantom),
                              "--message", str(f.liar)], None, 1, "silent wrong"),
    ("test judge", lambda f: ["--adapter", str(ADAPTER), "--record", str(f.damaged),
                              "--message", str(f.honest)], None, 2, "line 2"),
    ("test judge", lambda f: ["--adapter", str(ADAPTER), "--record", str(f.not_a_record),
                              "--message", str(f.honest)], None, 2, "not an ajantik record"),
    ("gauntlet compare", lambda f: [str(f.before), str(f.before)], None, 0, ""),
    ("gauntlet compare", lambda f: [str(f.before), str(f.after)], None, 1, "cookie_popup"),
    ("gauntlet compare", lambda f: [str(f.before), str(f.record)], None, 2, ""),
    ("gauntlet report", lambda f: [str(f.record)], None, 2, ""),
    ("gauntlet run", lambda f: [str(f.bad_suite)], None, 2, "agent.preset"),
    ("gauntlet run", lambda f: [str(f.bad_suite.with_name("none.yaml"))], None, 2, ""),
    ("gauntlet doctor", lambda f: [str(f.bad_suite), "--no-launch"], None, 2, ""),
    ("gauntlet doctor", lambda f: [], NO_CHROME, 3, "AJANTIK_CHROME"),
    ("gauntlet demo", lambda f: ["--out", str(f.dir / "g")], NO_CHROME, 3, "AJANTIK_CHROME"),
    ("gauntlet demo", lambda f: ["--workers", "99"], None, 2, "--workers"),
    ("gauntlet matrix", lambda f: [], NO_CHROME, 3, "AJANTIK_CHROME"),
    ("demo", lambda f: ["--out", str(f.dir / "d")], NO_CHROME, 3, "AJANTIK_CHROME"),
    ("demo", lambda f: ["--out", str(f.record)], None, 2, "is a file"),
    ("walkthrough", lambda f: ["--out", str(f.dir / "w")], NO_CHROME, 3, "AJANTIK_CHROME"),
    ("browser", lambda f: ["--port", "9"], NO_CHROME, 3, "AJANTIK_CHROME"),
    # The test session's stand-in Chromium exits at once: Chrome would not start.
    ("browser", lambda f: ["--port", "1", "--headless", "--profile", str(f.dir / "p")],
     None, 3, "exited with code 97"),
    ("browser", lambda f: ["--port", str(f.busy_port)], None, 2, "is in use"),
    ("cdp", lambda f: [], None, 2, "--upstream"),
    ("cdp", lambda f: ["--upstream", "http://127.0.0.1:1", "--port", "0",
                       "--record", str(f.dir / "c.jsonl")], None, 3, "cannot reach Chrome"),
    ("cdp", lambda f: ["--upstream", "127.0.0.1"], None, 2, "needs a port"),
    ("cdp", lambda f: ["--upstream", "http://127.0.0.1:1", "--fault", "x:/"], None, 2, ""),
    ("shop", lambda f: ["--variant", "nope"], None, 2, "nope"),
    ("shop", lambda f: ["--port", str(f.busy_port)], None, 2, "is in use"),
]


@pytest.mark.parametrize(("command", "args", "env", "code", "words"), ROWS,
                         ids=[f"{r[0]}-{r[3]}-{i}" for i, r in enumerate(ROWS)])
def test_every_command_uses_the_one_table(files: Files, command: str, args: Args,
                                          env: dict[str, str] | None, code: int,
                                          words: str) -> None:
    res = run(*command.split(), *args(files), env=env)
    assert res.code == code, (res.stdout, res.stderr)
    if code == 2 or code == 3:
        line = res.one_line_error()
        assert line.startswith(f"ajantik {command}: error: ") and words in line, line
    else:
        assert "Traceback" not in res.stderr and words in res.stdout + res.stderr


def test_interrupted_is_130(monkeypatch: pytest.MonkeyPatch, files: Files) -> None:
    from ajantik_cdp.cli import record_command

    def ctrl_c(path: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(record_command, "load_record", ctrl_c)
    res = run("record", "show", str(files.record))
    assert res.code == 130 and res.one_line_error() == "ajantik: interrupted"


def test_the_codes_are_named_once() -> None:
    from ajantik_cdp.core import errors

    assert (errors.EXIT_OK, errors.EXIT_GATE, errors.EXIT_BAD_INPUT, errors.EXIT_CHROME,
            errors.EXIT_INTERRUPTED, errors.EXIT_INTERNAL) == (0, 1, 2, 3, 130, 70)
    readme = (ROOT / "README.md").read_text()
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |", "| 70 |"):
        assert code in readme
