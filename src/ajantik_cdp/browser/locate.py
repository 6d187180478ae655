"""Where a Chrome or Chromium executable is, in the order a person would expect."""

from __future__ import annotations

import glob
import os
import shutil
import sys
from pathlib import Path

from ajantik_cdp.core.errors import ChromeError

PATH_NAMES = (
    "google-chrome", "google-chrome-stable", "chromium", "chromium-browser", "chrome",
    "google-chrome-beta", "microsoft-edge",
)
MAC_APPS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "~/Applications/Chromium.app/Contents/MacOS/Chromium",
)
WINDOWS_PATHS = (
    r"%PROGRAMFILES%\Google\Chrome\Application\chrome.exe",
    r"%PROGRAMFILES(X86)%\Google\Chrome\Application\chrome.exe",
    r"%LOCALAPPDATA%\Google\Chrome\Application\chrome.exe",
)

HOW_TO_GET_ONE = (
    "no Chrome or Chromium found. Install one (Debian/Ubuntu: `sudo apt-get install "
    "chromium`; macOS: `brew install --cask google-chrome`; Windows: install Google Chrome), "
    "or set AJANTIK_CHROME to the executable's path"
)


class BrowserNotFound(ChromeError):
    pass


def _playwright_dirs() -> list[Path]:
    env = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    dirs = [Path(env)] if env and env != "0" else []
    home = Path.home()
    dirs += [
        home / ".cache" / "ms-playwright",
        home / "Library" / "Caches" / "ms-playwright",
        Path(os.environ.get("LOCALAPPDATA", str(home))) / "ms-playwright",
    ]
    return dirs


def _playwright_executables() -> list[str]:
    found: list[str] = []
    tails = (
        "chrome-linux*/chrome",
        "chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
        "chrome-mac*/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-win*/chrome.exe",
    )
    for base in _playwright_dirs():
        for tail in tails:
            # Newest revision first: directory names end in the revision number.
            found += sorted(glob.glob(str(base / "chromium-*" / tail)), reverse=True)
    return found


def candidates() -> list[str]:
    """Every place looked at, in order (for `ajantik gauntlet doctor` and errors)."""
    out: list[str] = []
    env = os.environ.get("AJANTIK_CHROME")
    if env:
        out.append(env)
    for name in PATH_NAMES:
        path = shutil.which(name)
        if path:
            out.append(path)
    if sys.platform == "darwin":
        out += [os.path.expanduser(p) for p in MAC_APPS]
    if sys.platform == "win32":
        out += [os.path.expandvars(p) for p in WINDOWS_PATHS]
    out += _playwright_executables()
    return out


def find_chrome() -> str:
    env = os.environ.get("AJANTIK_CHROME")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise BrowserNotFound(f"AJANTIK_CHROME={env!r} is not an executable file")
    for path in candidates():
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise BrowserNotFound(HOW_TO_GET_ONE)
