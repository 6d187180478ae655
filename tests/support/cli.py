"""Running the real `ajantik` command in a subprocess, as a user would."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

AJANTIK = [sys.executable, "-m", "ajantik_cdp"]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def one_line_error(self) -> str:
        lines = [ln for ln in self.stderr.strip().splitlines() if ln.strip()]
        assert "Traceback" not in self.stderr, self.stderr
        assert len(lines) == 1, f"expected one line on stderr, got: {self.stderr!r}"
        return lines[0]


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 60,
        cwd: Path | None = None) -> Result:
    proc = subprocess.run([*AJANTIK, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, cwd=cwd)
    return Result(proc.returncode, proc.stdout, proc.stderr)


@dataclass
class GuardProcess:
    proc: subprocess.Popen[str]
    port: int
    lines: list[str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait(self, timeout: float = 15) -> int:
        return self.proc.wait(timeout)

    def rest_of_stderr(self) -> str:
        assert self.proc.stderr is not None
        return "".join(self.lines) + self.proc.stderr.read()


READY = re.compile(r"skills connect to http://127\.0\.0\.1:(\d+)")


def start_guard(*args: str, timeout: float = 20) -> GuardProcess:
    proc = subprocess.Popen([*AJANTIK, "cdp", "--port", "0", *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        m = READY.search(line)
        if m:
            return GuardProcess(proc, int(m.group(1)), lines)
    proc.kill()
    raise AssertionError("guard did not start: " + "".join(lines))
