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
from typing import Any

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


class StoppedWhileStarting(Exception):
    """A stop signal came while Chrome was starting: it was stopped, nothing is left."""


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
        end_chrome(self.proc)
        if self._own_profile:
            shutil.rmtree(self.profile, ignore_errors=True)


def end_chrome(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """SIGTERM to Chrome, SIGKILL if it has not gone within ``grace``; then SIGKILL to
    whatever is left of its process group (it is started in a session of its own, so
    the group is its zygote, renderers and helpers, and nothing else)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
    _kill_group(proc)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(10)


def start_chrome(*, executable: str | None = None, port: int = 0, profile: Path | None = None,
                 headless: bool = True, quiet: bool = True, extra: tuple[str, ...] = (),
                 timeout: float = 30.0, stop: StopOnSignals | None = None) -> ChromeProcess:
    """Start Chrome and wait until its debugging port answers. ``port=0`` picks a free one
    (read back from the profile's DevToolsActivePort file).

    Chrome runs in a session of its own (a Ctrl-C on the terminal reaches this process
    alone, which stops Chrome in order), so nothing would stop it if this process went
    away: whatever ends the wait early (an exception, a KeyboardInterrupt, a signal that
    ``stop`` caught) ends Chrome and its whole group first. ``StoppedWhileStarting`` says
    ``stop`` saw a signal."""
    exe = executable or find_chrome()
    own = profile is None
    prof = Path(tempfile.mkdtemp(prefix=PROFILE_PREFIX)) if profile is None else profile
    prof.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        (prof / "DevToolsActivePort").unlink()
    cmd = chrome_command(exe, port, prof, headless=headless, quiet=quiet, extra=extra)
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:  # a file that is not a program, or no permission to run it
        if own:
            shutil.rmtree(prof, ignore_errors=True)
        raise ChromeStartError(f"cannot run {exe}: {exc.strerror or exc}") from None
    try:
        if stop is not None:
            stop.adopt(proc)  # a signal from here on stops it, even one already caught
        return _wait_until_ready(proc, exe, port, prof, cmd, own, timeout, stop)
    except BaseException:
        end_chrome(proc, grace=5.0)
        if own:
            shutil.rmtree(prof, ignore_errors=True)
        raise


def _wait_until_ready(proc: subprocess.Popen[bytes], exe: str, port: int, prof: Path,
                      cmd: list[str], own: bool, timeout: float,
                      stop: StopOnSignals | None) -> ChromeProcess:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if stop is not None and stop.signum is not None:
            raise StoppedWhileStarting(signal.Signals(stop.signum).name)
        if proc.poll() is not None:
            err = (proc.stderr.read() if proc.stderr else b"").decode("utf-8", "replace")
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
    """``start_chrome`` in a thread. A task cancelled meanwhile (Ctrl-C on a suite that is
    starting its browsers) cannot stop the thread, and would drop the Chrome it returns:
    whichever of the two comes last closes that Chrome."""
    lock = threading.Lock()
    started: list[ChromeProcess] = []
    abandoned = False

    def start() -> ChromeProcess:
        chrome = start_chrome(**kwargs)  # type: ignore[arg-type]
        with lock:
            if not abandoned:
                started.append(chrome)
                return chrome
        chrome.close()
        raise ChromeStartError("the start was cancelled")

    try:
        return await asyncio.to_thread(start)
    except asyncio.CancelledError:
        with lock:
            abandoned = True
            dropped = list(started)
        for chrome in dropped:
            chrome.close()
        raise


STOP_SIGNALS = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None))
                     if s is not None)


class StopOnSignals:
    """Ctrl-C, SIGTERM and SIGHUP stop a foreground Chrome (`ajantik browser`), whatever
    moment they come at: installed before Chrome is started, the handler only notes the
    signal and, once there is a Chrome, sends it SIGTERM; ``start_chrome`` looks at the
    note after it starts Chrome and while it waits for the port. A second signal kills
    Chrome's whole group at once (a Chrome that does not stop on SIGTERM).

    The handler never raises: an exception thrown into ``subprocess.Popen`` between the
    fork and its return would lose the only handle on a Chrome nothing else stops."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._count = 0
        self._old: dict[int, Any] = {}

    def __enter__(self) -> StopOnSignals:
        for sig in STOP_SIGNALS:
            self._old[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    def adopt(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        if self.signum is not None:
            self._stop()

    def _on_signal(self, signum: int, _frame: object) -> None:
        if self.signum is None:
            self.signum = signum
        self._count += 1
        self._stop()

    def _stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if self._count > 1:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        elif proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
