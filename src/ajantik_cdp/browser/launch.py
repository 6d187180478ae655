"""Starting Chrome with a debugging port: for people (`ajantik browser`) and for the
walkthrough, demo and tests (headless, on a free port, in a throwaway profile)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from ajantik_cdp.browser.locate import find_chrome
from ajantik_cdp.core.errors import ChromeError

# Without these, Chromium on a machine with no internet keeps dialling Google's hosts.
QUIET_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-default-apps",
    "--metrics-recording-only",
)
PROFILE_PREFIX = "ajantik-chrome-"  # throwaway profiles, so leftovers can be told apart
HEADLESS_FLAGS = ("--headless=new", "--disable-gpu", "--hide-scrollbars", "--mute-audio")


class ChromeStartError(ChromeError):
    pass


# What Chrome says when it will not start, put the way a person can act on. Its last line
# is usually a child process's "zygote_linux.cc: write: Broken pipe": an effect, not the
# cause, so the cause is looked for first.
KNOWN_CAUSES = (
    ("Missing X server or $DISPLAY",
     "no display to open a window on (Missing X server or $DISPLAY): add --headless, or "
     "run it in a desktop session"),
    ("Failed to create a ProcessSingleton",
     "the profile {profile} is in use by another Chrome (Failed to create a "
     "ProcessSingleton): close that Chrome, or choose another --profile"),
)
# Lines Chromium prints on every start on a server, whatever happens next.
NOISE = ("zygote_linux.cc", "dbus/bus.cc", "unexpected operator")
_LOG_PREFIX = re.compile(r"^\[[\d:/.]+:(?:ERROR|FATAL|WARNING|INFO):([^\]]+)\]\s*")


def failure_cause(stderr: str, profile: Path) -> str:
    """The one line that says why Chrome exited, from everything it wrote to stderr."""
    for needle, cause in KNOWN_CAUSES:
        if needle in stderr:
            return cause.format(profile=profile)
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    telling = [ln for ln in lines if not any(n in ln for n in NOISE)]
    errors = [ln for ln in telling if ":ERROR:" in ln or ":FATAL:" in ln]
    line = (errors or telling or lines or ["(nothing on stderr)"])[0 if errors else -1]
    return _LOG_PREFIX.sub("", line)


def merge_feature_flags(flags: list[str]) -> list[str]:
    """Chromium honours only the last --disable-features= (and --enable-features=):
    fold every occurrence into one."""
    merged: dict[str, list[str]] = {"--disable-features=": [], "--enable-features=": []}
    out: list[str] = []
    for flag in flags:
        prefix = next((p for p in merged if flag.startswith(p)), None)
        if prefix is None:
            out.append(flag)
        else:
            merged[prefix] += [f for f in flag[len(prefix):].split(",") if f]
    for prefix, features in merged.items():
        if features:
            out.append(prefix + ",".join(dict.fromkeys(features)))
    return out


def chrome_command(executable: str, port: int, profile: Path, *, headless: bool,
                   quiet: bool, extra: tuple[str, ...] = ()) -> list[str]:
    flags = [f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
             "--no-first-run", "--no-default-browser-check"]
    if quiet:
        flags += QUIET_FLAGS
    if headless:
        flags += HEADLESS_FLAGS
    if getattr(os, "geteuid", lambda: -1)() == 0:
        flags.append("--no-sandbox")  # Chrome refuses to start as root with its sandbox
    flags += extra
    return [executable, *merge_feature_flags(flags), "about:blank"]


def read_active_port(profile: Path) -> int | None:
    try:
        first = (profile / "DevToolsActivePort").read_text().splitlines()[0]
        return int(first)
    except (FileNotFoundError, IndexError, ValueError):
        return None


@dataclass
class ChromeProcess:
    proc: subprocess.Popen[bytes]
    port: int
    profile: Path
    command: list[str]
    _own_profile: bool = field(default=False, repr=False)

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL, as a crash would (the fail-closed tests use this)."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait(10)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self._own_profile:
            shutil.rmtree(self.profile, ignore_errors=True)


def start_chrome(*, executable: str | None = None, port: int = 0, profile: Path | None = None,
                 headless: bool = True, quiet: bool = True, extra: tuple[str, ...] = (),
                 timeout: float = 30.0) -> ChromeProcess:
    """Start Chrome and wait until its debugging port answers. ``port=0`` picks a free one
    (read back from the profile's DevToolsActivePort file)."""
    exe = executable or find_chrome()
    own = profile is None
    prof = Path(tempfile.mkdtemp(prefix=PROFILE_PREFIX)) if profile is None else profile
    prof.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        (prof / "DevToolsActivePort").unlink()
    cmd = chrome_command(exe, port, prof, headless=headless, quiet=quiet, extra=extra)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = (proc.stderr.read() if proc.stderr else b"").decode("utf-8", "replace")
            if own:
                shutil.rmtree(prof, ignore_errors=True)
            raise ChromeStartError(f"{exe} exited with code {proc.returncode}: "
                                   f"{failure_cause(err, prof)}")
        # Chrome writes DevToolsActivePort only when it chose the port itself (port 0);
        # with a fixed port, ask the port.
        active = read_active_port(prof) if port == 0 else (port if _answers(port) else None)
        if active:
            if proc.stderr is not None:
                _drain_in_background(proc)
            return ChromeProcess(proc, active, prof, cmd, own)
        time.sleep(0.05)
    proc.kill()
    raise ChromeStartError(f"{exe} did not open its debugging port within {timeout:g}s")


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=1) as r:
            return bool(r.status == 200)
    except (OSError, ValueError):
        return False


def _drain_in_background(proc: subprocess.Popen[bytes]) -> None:
    """Chrome writes warnings to stderr for as long as it runs; a full pipe would stall it."""
    def drain() -> None:
        assert proc.stderr is not None
        for _ in iter(lambda: proc.stderr.read(65536) if proc.stderr else b"", b""):
            pass

    threading.Thread(target=drain, daemon=True).start()


async def start_chrome_async(**kwargs: object) -> ChromeProcess:
    return await asyncio.to_thread(lambda: start_chrome(**kwargs))  # type: ignore[arg-type]


def stop_on_signals(proc: subprocess.Popen[bytes]) -> None:
    """Forward Ctrl-C and SIGTERM to a foreground Chrome and wait for it."""
    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, forward)
