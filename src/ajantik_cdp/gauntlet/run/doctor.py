"""``ajantik gauntlet doctor``: what is installed, which browser would run, and what a
suite would do, before anything runs."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass

from ajantik_cdp import __version__
from ajantik_cdp.browser.launch import ChromeStartError, start_chrome
from ajantik_cdp.browser.locate import BrowserNotFound, candidates, find_chrome


@dataclass(frozen=True)
class Check:
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


def checks(*, launch: bool = True) -> list[Check]:
    found: list[Check] = [
        Check("ajantik", True, __version__),
        Check("python", sys.version_info >= (3, 11),
              f"{platform.python_version()} on {platform.platform(terse=True)}"),
        Check("playwright (python)", _version_of("playwright") != "not installed",
              _version_of("playwright")),
        Check("cpus", True, str(os.cpu_count() or "unknown")),
    ]
    looked = candidates()
    try:
        exe = find_chrome()
    except BrowserNotFound as exc:
        found.append(Check("browser", False, str(exc)))
        return found
    found.append(Check("browser", True, f"{exe} ({browser_version(exe)})"))
    others = [c for c in looked if c != exe and os.path.isfile(c)]
    if others:
        found.append(Check("other browsers", True, ", ".join(others)))
    if launch:
        try:
            chrome = start_chrome(executable=exe)
        except ChromeStartError as exc:
            found.append(Check("headless start", False, str(exc)))
        else:
            chrome.close()
            found.append(Check("headless start", True, "started and stopped"))
    node = shutil.which("node")
    found.append(Check("node (for Node command agents)", True,
                       node or "not on PATH (only needed by agents written for Node)"))
    return found
