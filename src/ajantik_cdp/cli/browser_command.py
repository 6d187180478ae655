"""`ajantik browser`: Chrome with a debugging port and a profile of its own."""

from __future__ import annotations

import shlex
import signal
import socket
from pathlib import Path

import click

from ajantik_cdp.browser.launch import (
    StopOnSignals,
    StoppedWhileStarting,
    end_chrome,
    start_chrome,
)
from ajantik_cdp.browser.locate import find_chrome
from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.core.errors import EXIT_BAD_INPUT, EXIT_CHROME
from ajantik_cdp.output_folder import make_folder

NAME = "ajantik browser"
DEFAULT_PROFILE = Path("~/.ajantik/chrome-profile")


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@click.command("browser")
@click.option("--port", default=9335, show_default=True, type=click.IntRange(1, 65535),
              help="Chrome's remote-debugging port. Give it to `ajantik cdp --upstream`, not "
              "to the skill.")
@click.option("--profile", type=click.Path(path_type=Path, file_okay=False),
              default=DEFAULT_PROFILE, show_default=True,
              help="Profile directory. Chrome 136+ needs one other than your everyday profile "
              "before it opens a debugging port. Log in to the portal in this profile.")
@click.option("--headless", is_flag=True, help="No window (for servers and CI).")
@click.option("--executable", type=click.Path(path_type=Path, dir_okay=False),
              help="Chrome or Chromium to run. Default: $AJANTIK_CHROME, then chrome/chromium "
              "on PATH, the macOS application, then Playwright's browsers.")
def browser_command(port: int, profile: Path, headless: bool, executable: Path | None) -> int:
    """Start Chrome or Chromium with a debugging port and its own profile.

    It runs in the foreground; Ctrl-C (or SIGTERM, SIGHUP) closes it, at any moment,
    while it starts too: no Chrome outlives the command. Log in to the portal in the
    window it opens, then put `ajantik cdp --upstream http://127.0.0.1:PORT` in front
    of it. Exit codes: 0 Chrome was closed (or stopped before it was ready), 2 the port
    is in use, 3 no Chrome found or it would not start.
    """
    # First of all: a signal from here on is noted, and stops Chrome once there is one.
    with StopOnSignals() as stop:
        return _run(port, profile, headless, executable, stop)


def _run(port: int, profile: Path, headless: bool, executable: Path | None,
         stop: StopOnSignals) -> int:
    if executable is not None and not executable.is_file():
        raise CommandFailed(NAME, f"--executable {executable}: no such file", EXIT_CHROME)
    exe = str(executable) if executable else find_chrome()
    if _port_in_use(port):
        raise CommandFailed(NAME, f"port {port} is in use (is Chrome already running there? "
                            "check http://127.0.0.1:%d/json/version)" % port, EXIT_BAD_INPUT)
    profile = profile.expanduser()
    make_folder(profile, "--profile", profile)
    if stop.signum is not None:
        return _stopped(stop, "before Chrome was started")
    try:
        chrome = start_chrome(executable=exe, port=port, profile=profile, headless=headless,
                              quiet=headless, stop=stop)
    except StoppedWhileStarting:
        return _stopped(stop, "while Chrome was starting; it was closed")
    click.echo(f"{NAME}: ran {shlex.join(chrome.command)}", err=True)
    click.echo(f"{NAME}: Chrome is ready at http://127.0.0.1:{chrome.port} "
               f"(profile {profile}); Ctrl-C to close it", err=True)
    code = chrome.proc.wait()
    end_chrome(chrome.proc)  # its helpers too, should any outlive it
    click.echo(f"{NAME}: Chrome exited with code {code}", err=True)
    return 0


def _stopped(stop: StopOnSignals, when: str) -> int:
    name = signal.Signals(stop.signum).name if stop.signum is not None else "a signal"
    click.echo(f"{NAME}: stopped by {name} {when}", err=True)
    return 0
