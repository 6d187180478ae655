"""Entry point of the `ajantik` command.

Every error a person can cause (a wrong flag, a bad config, Chrome not running, a port in
use) is an ``AjantikError`` (core/errors.py) and ends here, in one place, as one line on
stderr and its exit code, never as a traceback. Anything else is a bug of ours: exit 70
and a hint, so the two never look alike.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

import click

from ajantik_cdp import __version__
from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.core.errors import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    AjantikError,
    exit_code_line,
)

# Each command is imported when it is run: `ajantik cdp` need not load Playwright, Jinja
# and the gauntlet to start a guard (or to refuse a bad flag), which halves its start.
COMMANDS = {
    "browser": ("ajantik_cdp.cli.browser_command", "browser_command"),
    "cdp": ("ajantik_cdp.cli.cdp_command", "cdp_command"),
    "demo": ("ajantik_cdp.cli.demo_command", "demo_command"),
    "gauntlet": ("ajantik_cdp.cli.gauntlet_command", "gauntlet_group"),
    "record": ("ajantik_cdp.cli.record_command", "record_command"),
    "shop": ("ajantik_cdp.cli.shop_command", "shop_command"),
    "test": ("ajantik_cdp.cli.test_command", "test_group"),
    "walkthrough": ("ajantik_cdp.cli.walkthrough_command", "walkthrough_command"),
}


class Commands(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, name = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), name)
        return command


@click.group(cls=Commands,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=exit_code_line() + " The same for every command (the README's table).")
@click.version_option(__version__, prog_name="ajantik")
def cli() -> None:
    """Crash-test AI agents that drive real browsers.

    \b
    ajantik demo            two scripted skills under four write faults, judged
    ajantik walkthrough     see the guard stop a write, offline
    ajantik browser         start Chrome with a debugging port and its own profile
    ajantik cdp             put the guard between a skill and that Chrome
    ajantik record          read a guard's record: a table, or HAR for DevTools
    ajantik test judge      verdicts per unit from a record and the skill's report
    ajantik shop            the bundled storefront, for perturbation suites
    ajantik gauntlet        run an agent many times per perturbation, with intervals
    """


def command_path(args: list[str]) -> str:
    """The command an argument list names ("ajantik gauntlet run"), for an error's line.
    No group takes an option with a value, so every word not starting with "-" is a
    command name until a command that is not a group."""
    words = ["ajantik"]
    group: click.Group = cli
    for arg in args:
        if arg.startswith("-"):
            continue
        found = group.get_command(click.Context(group), arg)
        if found is None:
            break
        words.append(arg)
        if not isinstance(found, click.Group):
            break
        group = found
    return " ".join(words)


def _stop_like_ctrl_c(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main(argv: list[str] | None = None) -> None:
    # SIGTERM and SIGHUP would otherwise end Python without running any cleanup, leaving
    # the Chromium processes a command started (in their own sessions) running. Raised as
    # KeyboardInterrupt, they unwind like Ctrl-C: finally blocks close every browser.
    # (`ajantik cdp` and `ajantik gauntlet` install their own handlers on top.)
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, _stop_like_ctrl_c)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        code = cli.main(args=args, prog_name="ajantik", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        # `ajantik` or `ajantik gauntlet` alone: show what there is, as --help does.
        click.echo(exc.ctx.get_help() if exc.ctx else cli.get_help(click.Context(cli)))
        sys.exit(EXIT_OK)
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "ajantik"
        click.echo(f"{where}: error: {exc.format_message()} (see `{where} --help`)", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except AjantikError as exc:  # every error a person can cause, mapped here alone
        where = exc.command if isinstance(exc, CommandFailed) else command_path(args)
        click.echo(f"{where}: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # click.FileError and kin: what was handed in
        click.echo(f"{command_path(args)}: error: {exc.format_message()}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except (click.Abort, KeyboardInterrupt):  # click turns Ctrl-C into Abort
        click.echo("ajantik: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:  # a bug: still one line, with a way to see the traceback
        if os.environ.get("AJANTIK_DEBUG"):
            raise
        click.echo(f"ajantik: internal error: {exc!r} (set AJANTIK_DEBUG=1 for the traceback)",
                   err=True)
        sys.exit(EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else EXIT_OK)
