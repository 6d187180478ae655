"""Running the `ajantik` command as a user would: in this process, or as a real process.

``run`` calls ``ajantik_cdp.cli.main.main(argv)``, the function the console script calls,
so a test sees the same error lines and exit codes a person does, without paying a Python
start-up and the imports for every check (about a second each on this machine). It puts
back what a command changes in the process: the signal handlers ``main`` installs, the
``ajantik`` logger, the environment and the working folder.

``run_process`` and ``start_guard`` start the real program; keep them for what is about
processes (signals, exit on Chrome loss, a server that keeps running). Tests that do so
carry the ``process`` mark (still part of the default run).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
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


def _text_buffer() -> io.TextIOWrapper:
    # A real binary buffer underneath: `record har -o -` writes to sys.stdout.buffer.
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)


def _read(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


@contextlib.contextmanager
def _restored_process_state(env: dict[str, str | None], cwd: Path | None) -> Iterator[None]:
    signals = [s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None))
               if s is not None]
    handlers = {s: signal.getsignal(s) for s in signals}
    logger = logging.getLogger("ajantik")
    saved_logger = (list(logger.handlers), logger.level, logger.propagate)
    saved_env = {k: os.environ.get(k) for k in env}
    saved_cwd = os.getcwd()
    try:
        for key, value in env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(saved_cwd)
        for key, old in saved_env.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
        logger.handlers[:], logger.level, logger.propagate = saved_logger
        for s, handler in handlers.items():
            signal.signal(s, handler)


def run(*args: str, env: dict[str, str | None] | None = None, cwd: Path | None = None) -> Result:
    """`ajantik ARGS` in this process. ``env`` values of None unset a variable."""
    from ajantik_cdp.cli.main import main

    out, err = _text_buffer(), _text_buffer()
    code: int
    with _restored_process_state(env or {}, cwd), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        else:
            raise AssertionError("main() returned without sys.exit")
    return Result(code, _read(out), _read(err))


def run_process(*args: str, env: dict[str, str] | None = None, timeout: float = 60,
                cwd: Path | None = None, program: list[str] | None = None) -> Result:
    """The real program, in a process of its own (``program`` defaults to
    ``python -m ajantik_cdp``; pass the console script to test that)."""
    proc = subprocess.run([*(program or AJANTIK), *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, cwd=cwd)
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
