"""``ajantik gauntlet doctor``: what is installed, which browser would run, and what a
suite would do, before anything runs; for a command agent, which program its ``run``
resolves to, and, when asked, whether it starts (``--version``, or a dry start with
``AJANTIK_DRY_RUN=1`` and no browser, docs/agent-contract.md)."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass

from ajantik_cdp import __version__
from ajantik_cdp.browser.launch import ChromeStartError, start_chrome
from ajantik_cdp.browser.locate import BrowserNotFound, candidates, find_chrome
from ajantik_cdp.core.record.secret_detection import mask_tokens
from ajantik_cdp.gauntlet.evidence.claim_line import parse_claim
from ajantik_cdp.gauntlet.run.command_agent import agent_env
from ajantik_cdp.gauntlet.run.suite_loading import find_program
from ajantik_cdp.gauntlet.suite.suite_file import CommandAgentSpec

TRY_MODES = ("version", "dry")
TRY_TIMEOUT = 20.0  # seconds a tried agent gets before it is stopped


def _closed_port() -> int:
    """A loopback port nothing listens on: a dry start's CDP_URL points there, so an
    agent that ignores AJANTIK_DRY_RUN fails at connecting rather than driving some
    other browser."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class DoctorCheck:
    name: str
    ok: bool
    detail: str


def _version_of(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def browser_version(executable: str) -> str:
    try:
        out = subprocess.run([executable, "--version"], capture_output=True, text=True,
                             timeout=15, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) \
        else "unknown"


def checks(*, launch: bool = True) -> list[DoctorCheck]:
    found: list[DoctorCheck] = [
        DoctorCheck("ajantik", True, __version__),
        DoctorCheck("python", sys.version_info >= (3, 11),
              f"{platform.python_version()} on {platform.platform(terse=True)}"),
        DoctorCheck("playwright (python)", _version_of("playwright") != "not installed",
              _version_of("playwright")),
        DoctorCheck("cpus", True, str(os.cpu_count() or "unknown")),
    ]
    looked = candidates()
    try:
        exe = find_chrome()
    except BrowserNotFound as exc:
        found.append(DoctorCheck("browser", False, str(exc)))
        return found
    found.append(DoctorCheck("browser", True, f"{exe} ({browser_version(exe)})"))
    others = [c for c in looked if c != exe and os.path.isfile(c)]
    if others:
        found.append(DoctorCheck("other browsers", True, ", ".join(others)))
    if launch:
        try:
            chrome = start_chrome(executable=exe)
        except ChromeStartError as exc:
            found.append(DoctorCheck("headless start", False, str(exc)))
        else:
            chrome.close()
            found.append(DoctorCheck("headless start", True, "started and stopped"))
    node = shutil.which("node")
    found.append(DoctorCheck("node (for Node command agents)", True,
                       node or "not on PATH (only needed by agents written for Node)"))
    return found


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def _try(argv: list[str], cwd: str, env: dict[str, str] | None, what: str) -> DoctorCheck:
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=TRY_TIMEOUT, stdin=subprocess.DEVNULL, check=False,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return DoctorCheck(what, False, f"still running after {TRY_TIMEOUT:g}s; stopped (an "
                     "agent that ignores AJANTIK_DRY_RUN may be waiting for a browser)")
    except OSError as exc:
        return DoctorCheck(what, False, f"cannot start: {exc.strerror or exc}")
    err = mask_tokens(_last_line(proc.stderr), "[withheld]")
    if proc.returncode != 0:
        return DoctorCheck(what, False, f"exited with code {proc.returncode}"
                     + (f": {err}" if err else " and said nothing on stderr"))
    if what.endswith("--version"):
        return DoctorCheck(what, True, _last_line(proc.stdout) or err or "exited 0")
    claim = parse_claim(proc.stdout)
    said = f"claim {claim.status}: {claim.summary}" if claim.status else \
        f"no claim ({claim.problem})"
    return DoctorCheck(what, True, f"exited 0; {said}")


def agent_checks(agent: CommandAgentSpec, *, task_name: str, task_text: str,
                 deadline: float, try_mode: str | None = None) -> list[DoctorCheck]:
    """Which program the agent's ``run`` starts, and, when asked, whether it starts:
    ``version`` runs that program with --version (which Python, which Node), ``dry``
    runs the whole command once, as a run would, with AJANTIK_DRY_RUN=1 and no browser
    behind CDP_URL."""
    program = agent.argv[0]
    resolved = find_program(program, agent.cwd)
    found = [DoctorCheck("agent program", resolved is not None,
                   f"`{program}` is {resolved} (started in {agent.cwd})" if resolved
                   else f"`{program}` is not on PATH or in {agent.cwd}")]
    if resolved is None or try_mode is None:
        return found
    if try_mode == "version":
        found.append(_try([resolved, "--version"], agent.cwd, None, f"{program} --version"))
        return found
    nowhere = f"http://127.0.0.1:{_closed_port()}"
    env = agent_env(agent, cdp_url=nowhere, start_url=f"{nowhere}/r/dry-run/",
                    task_name=task_name, task_text=task_text, deadline=deadline)
    env["AJANTIK_DRY_RUN"] = "1"
    found.append(_try(list(agent.argv), agent.cwd, env, f"dry start of `{agent.run}`"))
    return found
