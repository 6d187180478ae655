"""One table of exit codes for every command (``EXIT_CODES`` in core/errors.py, which the
README's table and ``ajantik --help`` are generated from): 0 ok, 1 the verdict or gate
failed, 2 bad input, 3 no usable Chrome (none found, would not start, unreachable, lost),
4 something the rules deny got through (the guard), 130 interrupted, 70 a bug of ours.

``CONTRACT`` says which codes each command can give. Every command of the ``ajantik``
tree must be in it, and each of its codes is driven here (each row runs the command
in-process, through the console script's own ``main``) or by the named test elsewhere,
which must exist and assert that code (a real Chrome, a real skill, a signal). The
codes a command's --help names must be its own."""

from __future__ import annotations

import re
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from ajantik_cdp.gauntlet.suite.demo_suite import DEMO_SUITE_YAML, demo_suite
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
    demo_suite: Path  # a valid suite of the reference agent
    failing_agent: Path  # a suite whose command agent fails when tried
    config: Path  # an empty guard config

    @property
    def closed_port(self) -> int:
        with socket.socket() as sock:  # bound, then closed: nothing listens there
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])


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
    good_suite = tmp_path / "demo.yaml"
    good_suite.write_text(DEMO_SUITE_YAML)
    failing = tmp_path / "failing.yaml"
    (tmp_path / "agent.py").write_text("import sys\nsys.exit(4)\n")
    failing.write_text(f"version: 1\nagent: {{type: command, run: '{sys.executable} "
                       "agent.py'}\ntask: {name: T, description: Add Aurora Headphones to "
                       "cart}\n")
    config = tmp_path / "guard.json"
    config.write_text("{}")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield Files(tmp_path, record, damaged, not_a_record, honest, liar, phantom, before,
                    after, bad_suite, sock.getsockname()[1], good_suite, failing, config)


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
    # A Chrome given that is not there: said so, not as a raw "[Errno 2]" (issue 31).
    ("browser", lambda f: ["--executable", str(f.dir / "no-chrome"), "--port", "1"], None, 3,
     "no-chrome: no such file"),
    ("browser", lambda f: ["--executable", str(f.record), "--port", "1", "--profile",
                           str(f.dir / "p2")], None, 3, "cannot run"),
    ("cdp", lambda f: [], None, 2, "--upstream"),
    ("cdp", lambda f: ["--upstream", "http://127.0.0.1:1", "--port", "0",
                       "--record", str(f.dir / "c.jsonl")], None, 3, "cannot reach Chrome"),
    ("cdp", lambda f: ["--upstream", "127.0.0.1"], None, 2, "needs a port"),
    ("cdp", lambda f: ["--upstream", "http://[::1"], None, 2, "is not a URL"),  # was 70
    ("cdp", lambda f: ["--upstream", "http://127.0.0.1:1", "--fault", "x:/"], None, 2, ""),
    ("shop", lambda f: ["--variant", "nope"], None, 2, "nope"),
    ("shop", lambda f: ["--port", str(f.busy_port)], None, 2, "is in use"),
    ("record film", lambda f: [str(f.record)], None, 2, "holds no film"),
    ("test plan", lambda f: ["--record", str(f.record)], None, 0, ""),
    ("test plan", lambda f: [], None, 2, "--record"),
    ("test run", lambda f: ["--", "true"], None, 2, "--adapter"),
    # The shipped examples are configs here too; the next problem is the program.
    ("test run", lambda f: ["--adapter", str(ADAPTER), "--config", "example:portal",
                            "--upstream", "http://127.0.0.1:9", "--yes", "--",
                            "no-such-skill-program"], None, 2, "not on PATH"),
    ("test run", lambda f: ["--adapter", str(ADAPTER), "--config", str(f.config), "--upstream",
                            f"http://127.0.0.1:{f.closed_port}", "--yes", "--out",
                            str(f.dir / "t"), "--", "true"], None, 3, "cannot reach Chrome"),
    ("gauntlet run", lambda f: [str(f.demo_suite), "--out", str(f.dir / "g")], NO_CHROME, 3,
     "AJANTIK_CHROME"),
    ("gauntlet doctor", lambda f: [str(f.failing_agent), "--no-launch", "--try-agent"], None,
     2, "exited with code 4"),
    ("gauntlet matrix", lambda f: ["--out", str(f.dir)], None, 2, "is a directory"),
    ("walkthrough", lambda f: ["--out", str(f.record)], None, 2, "is a file"),
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


def test_the_codes_are_named_once_and_the_readme_shows_them() -> None:
    from ajantik_cdp.core import errors

    assert (errors.EXIT_OK, errors.EXIT_GATE, errors.EXIT_BAD_INPUT, errors.EXIT_CHROME,
            errors.EXIT_ESCAPED, errors.EXIT_INTERRUPTED,
            errors.EXIT_INTERNAL) == (0, 1, 2, 3, 4, 130, 70)
    assert [c.code for c in errors.EXIT_CODES] == [0, 1, 2, 3, 4, 130, 70]
    readme = (ROOT / "README.md").read_text()
    assert errors.exit_code_table() in readme  # generated, word for word
    assert readme.count("| Code | Meaning |") == 1
    assert errors.exit_code_line() in " ".join(run("--help").stdout.split())


# Which codes each command can give (the README's table, per command). A server's 0 is
# a stop by a signal; 130 is a command that runs to an end, interrupted.
CONTRACT: dict[str, set[int]] = {
    "browser": {0, 2, 3},
    "cdp": {0, 2, 3, 4},
    "demo": {0, 1, 2, 3, 130},
    "walkthrough": {0, 1, 2, 3},
    "shop": {0, 2},
    "record show": {0, 2},
    "record har": {0, 2},
    "record film": {0, 2},
    "test judge": {0, 1, 2},
    "test plan": {0, 2},
    "test run": {0, 1, 2, 3, 130},
    "gauntlet run": {0, 1, 2, 3, 130},
    "gauntlet demo": {1, 2, 3, 130},
    "gauntlet compare": {0, 1, 2},
    "gauntlet doctor": {0, 2, 3},
    "gauntlet matrix": {0, 2, 3},
    "gauntlet report": {0, 2},
}
# (command, code) driven by a test elsewhere: "file::function", whose body asserts it.
ELSEWHERE = {
    ("browser", 0): "tests/cli/test_browser_command.py::"
                    "test_it_starts_chrome_prints_the_command_and_stops_on_ctrl_c",
    ("cdp", 0): "tests/cli/test_output_paths.py::test_the_guard_creates_its_records_folder",
    ("cdp", 3): "tests/guard/test_fail_closed.py::",  # Chrome lost mid-run
    ("cdp", 4): "tests/guard/test_socket_escapes.py::"
                "test_a_denied_websocket_that_gets_through_is_ended_and_recorded_as_escaped",
    ("shop", 0): "tests/shop/test_shop_command.py::stop",
    ("record film", 0): "tests/film/test_pages.py::"
                        "test_record_film_writes_a_self_contained_player",
    ("test run", 0): "tests/testrun/test_run_on_the_portal.py::"
                     "test_the_verifying_skill_through_every_fault_on_its_last_upload",
    ("test run", 1): "tests/cli/test_output_paths.py::"
                     "test_test_run_makes_its_out_folder_with_its_parents",
    ("test run", 130): "tests/testrun/test_run_on_the_portal.py::"
                       "test_ctrl_c_keeps_and_reports_what_finished",
    ("gauntlet run", 1): "tests/cli/test_ci_outputs.py::"
                         "test_gauntlet_run_junit_and_actions_end_to_end",
    ("gauntlet run", 130): "tests/gauntlet/test_interrupted.py::"
                           "test_sigterm_after_one_run_writes_junit_with_the_rest_not_run",
    ("gauntlet demo", 1): "tests/gauntlet/test_demo_and_report.py::"
                          "test_the_demo_fails_its_threshold_where_the_reference_preset_gives_up",
    ("gauntlet doctor", 0): "tests/gauntlet/test_cli_errors.py::"
                            "test_doctor_says_what_is_installed_and_what_would_run",
    ("gauntlet report", 0): "tests/cli/test_output_paths.py::"
                            "test_gauntlet_report_creates_the_folder_or_names_the_path",
}
# (command, code) driven in this file by a test of its own (the outcome stubbed).
HERE = {("demo", 0), ("demo", 1), ("demo", 130), ("walkthrough", 0), ("walkthrough", 1)}
# What no test drives, and why: each is the same mapping as a code driven above.
NOT_DRIVEN = {
    ("gauntlet run", 0): "every threshold met takes a passing suite of real runs; the "
                         "same exit as gauntlet compare's 0 (summary.exit_code)",
    ("gauntlet demo", 130): "the same interrupt path as gauntlet run's 130",
    ("gauntlet matrix", 0): "measures every preset over every variant (minutes)",
}


def _leaves(group: click.Group, prefix: str = "") -> list[str]:
    found = []
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        assert command is not None
        if isinstance(command, click.Group):
            found += _leaves(command, f"{prefix}{name} ")
        else:
            found.append(prefix + name)
    return found


def _body(reference: str) -> str:
    path, _, function = reference.partition("::")
    text = (ROOT / path).read_text()
    if not function:
        return text
    match = re.search(rf"^(async )?def {re.escape(function)}\(.*?(?=^\S|\Z)", text,
                      re.M | re.S)
    assert match, f"{reference} does not exist"
    return match.group(0)


def test_every_command_is_driven_into_each_of_its_codes() -> None:
    from ajantik_cdp.cli.main import cli

    assert sorted(_leaves(cli)) == sorted(CONTRACT)
    driven = {(command, code) for command, _, _, code, _ in ROWS} | set(ELSEWHERE) | HERE
    for command, codes in CONTRACT.items():
        for code in codes:
            key = (command, code)
            assert key in driven or key in NOT_DRIVEN, f"no test drives {command} to {code}"
    assert not (driven | set(NOT_DRIVEN)) - {(c, k) for c, ks in CONTRACT.items() for k in ks}
    for (_, code), reference in ELSEWHERE.items():
        body = _body(reference)
        assert re.search(rf"(==|code) ?\(?{code}\b|EXIT_CHROME", body), reference


def test_every_help_names_only_its_own_codes() -> None:
    for command, codes in CONTRACT.items():
        text = " ".join(run(*command.split(), "--help").stdout.split())
        for sentence in re.findall(r"Exit codes?:? [^.]*(?:\.[^A-Z]*)*", text):
            named = {int(n) for n in re.findall(r"(?<![\w.-])(\d{1,3})(?= |,|;|\))", sentence)
                     if int(n) in (0, 1, 2, 3, 4, 70, 130)}
            assert named <= codes, (command, sentence, named - codes)


@pytest.mark.parametrize(("holds", "interrupted", "code"), [
    (True, False, 0), (False, False, 1), (True, True, 130)])
def test_demo_exit_follows_its_conclusions(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           holds: bool, interrupted: bool, code: int) -> None:
    from ajantik_cdp.cli import demo_command
    from ajantik_cdp.demo.plan import Conclusion
    from ajantik_cdp.testrun.run.runner import SessionResult

    async def no_runs(*args: object, **kwargs: object) -> SessionResult:
        return SessionResult([], 1.0, interrupted=interrupted)

    monkeypatch.setattr(demo_command, "find_chrome", lambda: "chromium")
    monkeypatch.setattr(demo_command, "run_demo", no_runs)
    monkeypatch.setattr(demo_command, "conclusions",
                        lambda outcome: [Conclusion(holds, "the blind skill is fooled")])
    monkeypatch.setattr(demo_command, "write_outputs",
                        lambda *a, **k: (tmp_path / "results.json", tmp_path / "report.html"))
    assert run("demo", "--out", str(tmp_path / "d")).code == code


@pytest.mark.parametrize(("ok", "code"), [(True, 0), (False, 1)])
def test_walkthrough_exit_follows_what_it_showed(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path, ok: bool, code: int) -> None:
    from ajantik_cdp.cli import walkthrough_command

    monkeypatch.setattr(walkthrough_command, "main_sync", lambda out, say: ok)
    assert run("walkthrough", "--out", str(tmp_path / "w")).code == code
