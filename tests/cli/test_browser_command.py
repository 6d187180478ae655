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
