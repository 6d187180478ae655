"""`ajantik browser`: where it finds Chrome, and that it really starts one."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from ajantik_cdp.browser import locate
from ajantik_cdp.browser.launch import merge_feature_flags


def fake_executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_ajantik_chrome_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = fake_executable(tmp_path / "my-chrome")
    monkeypatch.setenv("AJANTIK_CHROME", str(mine))
    assert locate.find_chrome() == str(mine)
    assert locate.candidates()[0] == str(mine)


def test_path_names_then_playwright_browsers(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AJANTIK_CHROME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "pw"))
    monkeypatch.setattr(locate.Path, "home", lambda: tmp_path / "home")
    with pytest.raises(locate.BrowserNotFound) as info:
        locate.find_chrome()
    assert "apt-get install chromium" in str(info.value)
    assert "AJANTIK_CHROME" in str(info.value)

    older = fake_executable(tmp_path / "pw" / "chromium-1100" / "chrome-linux" / "chrome")
    newer = fake_executable(tmp_path / "pw" / "chromium-1200" / "chrome-linux" / "chrome")
    assert locate.find_chrome() == str(newer) != str(older)

    on_path = fake_executable(tmp_path / "bin" / "chromium")
    assert locate.find_chrome() == str(on_path)


def test_feature_flags_are_merged_because_chromium_keeps_only_the_last() -> None:
    merged = merge_feature_flags(["--a", "--disable-features=X,Y", "--b",
                                  "--disable-features=Y,Z"])
    assert merged == ["--a", "--b", "--disable-features=X,Y,Z"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.browser
@pytest.mark.process
def test_it_starts_chrome_prints_the_command_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ajantik_cdp", "browser", "--port", str(port), "--headless",
         "--profile", str(tmp_path / "profile")], stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines = []
    try:
        for line in proc.stderr:
            lines.append(line)
            if "Chrome is ready" in line:
                break
        text = "".join(lines)
        assert f"--remote-debugging-port={port}" in text
        assert f"--user-data-dir={tmp_path / 'profile'}" in text
        version = subprocess.run(["curl", "-s", f"http://127.0.0.1:{port}/json/version"],
                                 capture_output=True, timeout=10).stdout
        assert "webSocketDebuggerUrl" in orjson.loads(version)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        time.sleep(0.3)
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0, "Chrome is still listening"
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)


# What Chromium 14x printed on this machine when it would not start (its shell wrapper's
# complaint included), each ending in the zygote line that says nothing.
NO_DISPLAY = """/usr/bin/chromium: 9: [: 25275990016: unexpected operator
[19706:19749:1201/132717.907182:ERROR:dbus/bus.cc:405] Failed to connect to the bus: Failed to connect to socket /run/dbus/system_bus_socket: No such file or directory
[19706:19706:1201/132718.208546:ERROR:ui/ozone/platform/x11/ozone_platform_x11.cc:257] Missing X server or $DISPLAY
[19706:19706:1201/132718.208581:ERROR:ui/aura/env.cc:253] The platform failed to initialize.  Exiting.
[19735:19735:0100/000000.191691:ERROR:content/zygote/zygote_linux.cc:662] write: Broken pipe (32)
"""  # noqa: E501
PROFILE_IN_USE = """[19477:19477:1201/132715.060076:ERROR:chrome/browser/process_singleton_posix.cc:349] Failed to create /p/SingletonLock: File exists (17)
[19477:19477:1201/132715.073407:ERROR:chrome/app/chrome_main_delegate.cc:624] Failed to create a ProcessSingleton for your profile directory. This means that running multiple instances would start multiple browser processes rather than opening a new window in the existing process. Aborting now to avoid profile corruption.
[19654:19654:0100/000000.300528:ERROR:content/zygote/zygote_linux.cc:662] write: Broken pipe (32)
"""  # noqa: E501
OTHER = """[1:1:0100/000000.1:ERROR:content/zygote/zygote_linux.cc:662] write: Broken pipe (32)
[1:1:1201/1.2:ERROR:chrome/app/x.cc:1] Something else went wrong
[1:1:0100/000000.3:ERROR:content/zygote/zygote_linux.cc:662] write: Broken pipe (32)
"""


@pytest.mark.parametrize(("stderr", "cause"), [
    (NO_DISPLAY, "no display to open a window on (Missing X server or $DISPLAY): add "
                 "--headless"),
    (PROFILE_IN_USE, "the profile /p is in use by another Chrome"),
    (OTHER, "Something else went wrong"),
    ("", "(nothing on stderr)"),
    ("just one line\n", "just one line"),
])
def test_the_cause_chrome_gave_not_its_last_line(stderr: str, cause: str) -> None:
    from ajantik_cdp.browser.launch import failure_cause

    found = failure_cause(stderr, Path("/p"))
    assert found.startswith(cause) and "zygote" not in found


def test_ajantik_browser_shows_the_cause(tmp_path: Path) -> None:
    from tests.support.cli import run

    (tmp_path / "stderr.txt").write_text(NO_DISPLAY)
    fake = fake_executable(tmp_path / "chrome")
    fake.write_text(f"#!/bin/sh\ncat {tmp_path / 'stderr.txt'} >&2\nexit 1\n")
    res = run("browser", "--executable", str(fake), "--port", str(free_port()),
              "--profile", str(tmp_path / "profile"))
    line = res.one_line_error()
    assert res.code == 3 and "add --headless" in line and "zygote" not in line, line


@pytest.mark.browser
def test_a_profile_in_use_is_named(chrome) -> None:
    from tests.support.cli import run

    res = run("browser", "--headless", "--port", str(free_port()), "--profile",
              str(chrome.profile))
    line = res.one_line_error()
    assert res.code == 3, line
    assert f"the profile {chrome.profile} is in use by another Chrome" in line


@pytest.mark.browser
def test_no_display_suggests_headless(tmp_path: Path) -> None:
    from tests.support.cli import run

    res = run("browser", "--port", str(free_port()), "--profile", str(tmp_path / "p"),
              env={"DISPLAY": None, "WAYLAND_DISPLAY": None})
    line = res.one_line_error()
    assert res.code == 3 and "Missing X server or $DISPLAY" in line and "--headless" in line


def _processes_of(profile: Path, sessions: set[int]) -> dict[int, str]:
    """Every process whose command line names ``profile`` or that is in one of
    ``sessions`` (Chrome's zygote and helpers may not name it), with its command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            sid = os.getsid(int(entry.name))
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, ProcessLookupError, IndexError):
            continue  # gone meanwhile
        if state in ("Z", "X"):
            continue  # dead, waiting for a parent to reap it: nothing runs
        if f"--user-data-dir={profile}" in cmdline or sid in sessions:
            found[int(entry.name)] = cmdline
    return found


# Where in its start `ajantik browser` is stopped: seconds after its Chrome's first
# process appeared (Chrome took about 0.3-1.5 s to open its port here), or None: as soon
# as the ajantik process is started, before it has started any Chrome.
MOMENTS = [(signal.SIGTERM, None), (signal.SIGINT, 0.0), (signal.SIGHUP, 0.02),
           (signal.SIGTERM, 0.08), (signal.SIGINT, 0.2), (signal.SIGTERM, 0.4),
           (signal.SIGHUP, 0.7), (signal.SIGTERM, 1.2)]


@pytest.mark.browser
@pytest.mark.process
def test_no_chrome_outlives_a_signal_at_any_moment_of_its_start(tmp_path: Path) -> None:
    """Issue 31: Chrome runs in a session of its own, and a signal that came before the
    command's handlers were in place (they came after the ready line) left it running
    (9 of 9 tries). Now no Chrome of the profile, nor any process of its session, is
    left once the command has exited, wherever in the start the signal falls."""
    outcomes = []
    for i, (sig, delay) in enumerate(MOMENTS):
        profile = tmp_path / f"profile-{i}"
        proc = subprocess.Popen([sys.executable, "-m", "ajantik_cdp", "browser", "--headless",
                                 "--port", str(free_port()), "--profile", str(profile)],
                                stderr=subprocess.PIPE, text=True)
        sessions: set[int] = set()
        try:
            if delay is not None:
                deadline = time.monotonic() + 60
                while not sessions and proc.poll() is None and time.monotonic() < deadline:
                    sessions = {os.getsid(pid) for pid in _processes_of(profile, set())
                                if pid != proc.pid}
                    time.sleep(0.005)
                assert sessions, f"no Chrome appeared: {proc.communicate()[1]}"
                time.sleep(delay)
            proc.send_signal(sig)
            code = proc.wait(60)
            err = proc.stderr.read() if proc.stderr else ""
        finally:
            if proc.poll() is None:
                proc.kill()
        left = _processes_of(profile, sessions)
        assert not left, (sig, delay, err, left)
        assert "Traceback" not in err, err
        # Stopped before its handlers were in place (Python still starting): killed by
        # the signal, or 130 as any command interrupted; from then on a clean stop.
        assert code == 0 or (delay is None and code in (130, -sig)), (sig, delay, code, err)
        outcomes.append("ready" if "Chrome is ready" in err else "starting")
    assert "starting" in outcomes  # the window was hit, not only the ready Chrome


@pytest.mark.browser
async def test_a_cancelled_start_leaves_no_chrome(tmp_path: Path) -> None:
    """A suite's browsers start in threads; a Ctrl-C that cancels the start cannot stop
    a thread, and the Chrome it returns would be dropped: it is closed instead."""
    import asyncio

    from ajantik_cdp.browser.launch import start_chrome_async

    profile = tmp_path / "profile"
    task = asyncio.ensure_future(start_chrome_async(profile=profile))
    for _ in range(3000):  # polled: /proc has no event to wait on
        if _processes_of(profile, set()):
            break
        await asyncio.sleep(0.01)
    assert _processes_of(profile, set()), "no Chrome appeared"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The thread goes on until Chrome is ready, then closes it.
    for _ in range(400):
        if not _processes_of(profile, set()):
            break
        await asyncio.sleep(0.1)
    assert not _processes_of(profile, set())
