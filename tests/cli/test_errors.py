"""What a new user gets wrong, and the one clear line they get back for it."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_help_explains() -> None:
    res = run("cdp", "--help")
    assert res.code == 0
    for words in ("--upstream", "--config", "--fault", "--record", "exits with code 3"):
        assert words in res.stdout


def test_missing_upstream() -> None:
    line = run("cdp").one_line_error()
    assert "ajantik cdp: error:" in line and "--upstream" in line


def test_unknown_flag() -> None:
    res = run("cdp", "--upstream", "http://127.0.0.1:1", "--bogus")
    assert res.code == 2
    assert "No such option '--bogus'" in res.one_line_error()


def test_chrome_not_running() -> None:
    res = run("cdp", "--upstream", "http://127.0.0.1:1", "--port", "0")
    assert res.code == 3
    line = res.one_line_error()
    assert "cannot reach Chrome at http://127.0.0.1:1" in line
    assert "ajantik browser --port 1" in line


def test_bad_upstream_url() -> None:
    res = run("cdp", "--upstream", "http://127.0.0.1", "--port", "0")
    assert res.code == 2 and "needs a port" in res.one_line_error()


def test_an_https_upstream_says_a_debugging_port_speaks_http() -> None:
    import http.server
    import threading

    class Quiet(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    # Any plain-HTTP server answers a TLS hello as Chrome's port does: with no TLS.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        res = run("cdp", "--upstream", f"https://127.0.0.1:{port}", "--port", "0")
    finally:
        server.shutdown()
        server.server_close()
    line = res.one_line_error()
    assert res.code == 2 and "()" not in line
    assert "speaks http:// and ws://" in line and f"--upstream http://127.0.0.1:{port}" in line


@pytest.mark.browser
def test_an_https_upstream_at_chrome_says_so_too(chrome) -> None:
    res = run("cdp", "--upstream", chrome.http_url.replace("http://", "https://"), "--port", "0")
    line = res.one_line_error()
    assert res.code == 2 and f"use --upstream {chrome.http_url}" in line, line


def test_bad_config_lists_every_problem(tmp_path: Path) -> None:
    cfg = tmp_path / "guard.json"
    cfg.write_text('{"deny": "submission", "record": ["(x"], "colour": 1}')
    res = run("cdp", "--upstream", "http://127.0.0.1:1", "--config", str(cfg))
    assert res.code == 2
    line = res.one_line_error()
    assert "'deny' must be a list" in line and "does not compile" in line
    assert "unknown key 'colour'" in line


@pytest.mark.parametrize(("name", "text", "expect"), [
    ("guard.json", "{not json", "not valid JSON"),
    ("guard.yaml", "deny: [unclosed", "not valid YAML"),
    ("missing.json", None, "file not found"),
])
def test_unreadable_configs(tmp_path: Path, name: str, text: str | None, expect: str) -> None:
    cfg = tmp_path / name
    if text is not None:
        cfg.write_text(text)
    res = run("cdp", "--upstream", "http://127.0.0.1:1", "--config", str(cfg))
    assert res.code == 2 and expect in res.one_line_error()


@pytest.mark.browser
def test_port_in_use(chrome, busy_port: int) -> None:
    res = run("cdp", "--upstream", chrome.http_url, "--port", str(busy_port))
    assert res.code == 2
    assert f"port {busy_port} on 127.0.0.1 is in use" in res.one_line_error()


def test_bad_fault() -> None:
    res = run("cdp", "--upstream", "http://127.0.0.1:1", "--fault", "explode:/api")
    assert res.code == 2 and "unknown fault kind 'explode'" in res.one_line_error()


def test_browser_not_found() -> None:
    res = run("browser", "--port", "9", env={"AJANTIK_CHROME": "/nonexistent/chrome"})
    assert res.code == 3 and "AJANTIK_CHROME" in res.one_line_error()


def test_browser_port_in_use(busy_port: int) -> None:
    res = run("browser", "--port", str(busy_port))
    assert res.code == 2 and "is in use" in res.one_line_error()


def test_walkthrough_without_a_browser(tmp_path: Path) -> None:
    res = run("walkthrough", "--out", str(tmp_path),
              env={"AJANTIK_CHROME": "/nonexistent/chrome"})
    assert res.code == 3 and "AJANTIK_CHROME" in res.one_line_error()


@pytest.mark.browser
@pytest.mark.process
@pytest.mark.parametrize("command", [["demo"], ["gauntlet", "demo"]])
def test_sigterm_closes_the_browsers_a_command_started(tmp_path: Path,
                                                      command: list[str]) -> None:
    """Without a handler, SIGTERM ends Python at once and leaves its Chromium running (it
    runs in a session of its own)."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "ajantik_cdp", *command, "--out",
                             str(tmp_path / "out")], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # once a run has finished, its browsers are up
        if line.lstrip().startswith("[") and line.split("/")[0].strip(" [") == "1":
            break  # "[1/4]" or, padded to line up, "[ 1/30]"
    out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
    children = [int(pid) for pid in out.stdout.split()]
    assert children, "the demo has no browser running"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 130

    def running(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().split(") ")[1][0] != "Z"  # a zombie has exited
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 10
    while any(running(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in children if running(pid)] == []


def test_errors_map_to_exit_codes_in_one_place(tmp_path: Path) -> None:
    # A user error: one line, named after the command that was run, its own exit code.
    res = run("record", "show", str(tmp_path / "none.jsonl"))
    assert res.code == 2 and res.one_line_error().startswith("ajantik record show: error: ")


def test_a_bug_is_exit_70_and_never_looks_like_a_user_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ajantik_cdp.cli import record_command

    def broken(path: Path) -> None:
        raise KeyError("a bug of ours")

    monkeypatch.setattr(record_command, "load_record", broken)
    monkeypatch.delenv("AJANTIK_DEBUG", raising=False)
    res = run("record", "show", "x.jsonl")
    line = res.one_line_error()
    assert res.code == 70
    assert line.startswith("ajantik: internal error: KeyError") and "AJANTIK_DEBUG=1" in line
    monkeypatch.setenv("AJANTIK_DEBUG", "1")
    from ajantik_cdp.cli.main import main

    with pytest.raises(KeyError):
        main(["record", "show", "x.jsonl"])


def test_the_command_path_of_an_error_line() -> None:
    from ajantik_cdp.cli.main import command_path

    assert command_path(["gauntlet", "run", "suite.yaml", "--workers", "2"]) == \
        "ajantik gauntlet run"
    assert command_path(["test", "judge", "--adapter", "a.py"]) == "ajantik test judge"
    assert command_path(["cdp", "--upstream", "demo"]) == "ajantik cdp"
    assert command_path(["--version"]) == "ajantik" == command_path(["nonsense"])
