"""`ajantik shop` as a person runs it: a start URL on stdout, the evaluator's URL on
stderr, one-line errors (in-process), a clean stop on SIGTERM (the real process)."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.support.cli import Result, run

CLI = [sys.executable, "-c", "from ajantik_cdp.cli.main import main; main()", "shop"]


def run_cli(*args: str) -> Result:
    return run("shop", *args)


def one_line_error(result: Result, code: int, text: str) -> None:
    assert result.code == code, result.stderr
    line = result.one_line_error()
    assert line.startswith("ajantik shop: error:") and text in line, line


def test_help_explains_the_command() -> None:
    result = run_cli("--help")
    assert result.code == 0
    for words in ("start URL", "evaluator", "--variant", "--suite-run", "--repetition",
                  "--secret-file"):
        assert words in result.stdout


def test_list_variants_names_all_eleven() -> None:
    result = run_cli("--list-variants")
    assert result.code == 0 and len(result.stdout.strip().splitlines()) == 11
    assert result.stdout.startswith("baseline ")


def test_user_errors_are_one_line() -> None:
    one_line_error(run_cli("--variant", "nope"), 2, "'nope' is not one of")
    one_line_error(run_cli("--repetition", "-1"), 2, "--repetition")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        one_line_error(run_cli("--port", str(port)), 2, f"port {port} on 127.0.0.1 is in use")
    one_line_error(run_cli("--port", "0", "--secret-file", "/proc/no/such/secret"), 2,
                   "--secret-file /proc/no/such/secret: cannot create the folder /proc/no/such")


def start(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([*CLI, "--port", "0", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.stderr else ""
    return proc, url


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    return err


def read_state(url: str, secret: str) -> dict[str, object]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {secret}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


@pytest.mark.process
def test_it_serves_one_run_and_tells_the_operator_how_to_read_it() -> None:
    secret = "test-secret-" + os.urandom(8).hex()
    proc, url = start("--variant", "renamed_cta", "--suite-run", "cli", "--repetition", "1",
                      env={"AJANTIK_SHOP_SECRET": secret})
    try:
        with urllib.request.urlopen(url + "product/aurora-headphones", timeout=10) as page:
            assert b">Add</button>" in page.read()
        token = url.rstrip("/").rsplit("/", 1)[1]
        base = url.split("/r/")[0]
        state = read_state(f"{base}/harness/runs/{token}/state", secret)
        assert state["run"] == {"suite_run": "cli", "variant": "renamed_cta", "repetition": 1,
                                "seed": state["run"]["seed"]}  # type: ignore[index]
    finally:
        err = stop(proc)
    assert f"{base}/harness/runs/{token}/state" in err and "$AJANTIK_SHOP_SECRET" in err
    assert secret not in err
    assert "viewport 1280x720" in err


@pytest.mark.process
def test_a_secret_file_keeps_the_secret_off_the_terminal(tmp_path: Path) -> None:
    secret_file = tmp_path / "evaluator.secret"
    proc, url = start("--secret-file", str(secret_file))
    try:
        secret = secret_file.read_text().strip()
        assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
        token = url.rstrip("/").rsplit("/", 1)[1]
        state = read_state(f"{url.split('/r/')[0]}/harness/runs/{token}/state", secret)
        assert state["stage"] == "browsing"
    finally:
        err = stop(proc)
    assert secret not in err and f"$(cat {secret_file})" in err
