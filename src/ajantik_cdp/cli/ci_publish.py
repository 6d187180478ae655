"""Hands a command's CI outputs over: the ``--junit`` file, and under GitHub Actions
(``GITHUB_ACTIONS=true``) the annotations on stdout and the markdown appended to
``$GITHUB_STEP_SUMMARY``. Nothing to turn on: a runner sets both variables itself."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from ajantik_cdp.ci.outputs import CiOutputs
from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.core.errors import EXIT_BAD_INPUT
from ajantik_cdp.output_folder import make_parent

F = TypeVar("F", bound=Callable[..., Any])
JUNIT_FLAG = "--junit"
JUNIT_HELP = ("Also write a JUnit XML report (GitHub, GitLab, Jenkins): {what}. "
              "Under GitHub Actions, silent wrong and missed thresholds are also "
              "::error:: annotations, and the verdict matrix goes to the step summary.")


def junit_option(what: str) -> Callable[[F], F]:
    return click.option(JUNIT_FLAG, "junit_path", metavar="FILE.xml",
                        type=click.Path(path_type=Path, dir_okay=False),
                        help=JUNIT_HELP.format(what=what))


def check_junit(path: Path | None) -> None:
    """Before the work starts: a JUnit path that cannot be written fails now, not after
    a suite has run for ten minutes."""
    if path is not None:
        make_parent(path, JUNIT_FLAG)


def under_github_actions(env: Mapping[str, str]) -> bool:
    return env.get("GITHUB_ACTIONS") == "true"


def publish(command: str, outputs: CiOutputs, junit_path: Path | None,
            env: Mapping[str, str] | None = None) -> None:
    env = os.environ if env is None else env
    if junit_path is not None:
        make_parent(junit_path, JUNIT_FLAG)
        # Whole or not at all: a second Ctrl-C while an interrupted suite writes it must
        # not leave half a file that a CI reads as a broken report.
        tmp = junit_path.with_name(f".{junit_path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(outputs.junit(now=datetime.now(UTC).isoformat(),
                                          hostname=socket.gethostname()))
            os.replace(tmp, junit_path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise CommandFailed(command, f"cannot write {JUNIT_FLAG} {junit_path}: "
                                f"{exc.strerror or exc}", EXIT_BAD_INPUT) from None
        click.echo(f"junit: {junit_path}")
    if not under_github_actions(env):
        return
    for line in outputs.annotations:
        click.echo(line)
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as f:
                f.write(outputs.summary + "\n")
        except OSError as exc:
            # The verdict stands without its summary: say so, keep the exit code.
            click.echo(f"{command}: warning: cannot append to $GITHUB_STEP_SUMMARY "
                       f"{summary}: {exc.strerror or exc}", err=True)
