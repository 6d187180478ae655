"""The one base of every failure a person can cause and put right, with its exit code.

A bad suite, config or results file, a flag that makes no sense, a browser that is
missing or will not start, a port in use, an output folder that is not ours: each is an
``AjantikError``, and ``cli/main.py`` (the one place that maps errors to exit codes)
shows it as one line, ``<command>: error: <message>``, and exits with its
``exit_code``. Anything else that escapes a command is our own bug: exit 70, with a
hint to set AJANTIK_DEBUG=1 for the traceback. Keeping the two apart is the point: a
user error never prints a traceback, and a bug is never dressed up as a user error.

Every command uses the same codes, so a CI step can tell a gate that failed from a
broken setup without knowing which command ran. ``EXIT_CODES`` is that table: the
README's copy of it and ``ajantik --help``'s line are generated from it, and
tests/cli/test_exit_codes.py drives every command into each of its conditions.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_GATE = 1  # the work ran and its verdict is "no": silent wrong, a threshold missed
EXIT_BAD_INPUT = 2  # what was handed in is wrong: a file, a flag, a folder, a port
EXIT_CHROME = 3  # Chrome: none found, it would not start, cannot be reached, or was lost
EXIT_ESCAPED = 4  # the guard ran, but something its rules deny got through (escaped)
EXIT_INTERNAL = 70  # a bug of ours (EX_SOFTWARE)
EXIT_INTERRUPTED = 130  # Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, as shells report it)


@dataclass(frozen=True)
class ExitCode:
    code: int
    short: str  # for a one-line summary (``ajantik --help``)
    meaning: str  # the README's cell: every condition, by command where it differs


EXIT_CODES = (
    ExitCode(EXIT_OK, "done",
             "done: the judge's gate passed (every unit scored, none silent wrong or "
             "damaged), every threshold met, the demo's conclusions hold, a server "
             "(`cdp`, `shop`, `browser`) stopped by Ctrl-C, SIGTERM or SIGHUP"),
    ExitCode(EXIT_GATE, "the verdict or the gate failed",
             "the verdict or the gate failed: a unit silent wrong, damaged or unscorable, "
             "or a fault that never fired (`test judge`, `test run`, which also fails on a "
             "`--before` that fails, a declined plan or nothing to fault), a threshold "
             "missed (`gauntlet run`, `gauntlet demo`), a regression (`gauntlet "
             "compare`), the demo's or the walkthrough's conclusions do not hold"),
    ExitCode(EXIT_BAD_INPUT, "bad input",
             "bad input: a flag, a config, suite, adapter, record or results file, an "
             "output path (a file in the way, a folder that is not ours), a port in use, "
             "a skill or agent program that cannot be found or does not start (`gauntlet "
             "doctor --try-agent`), a missing part (Playwright, the `ray` extra)"),
    ExitCode(EXIT_CHROME, "no usable Chrome",
             "no usable Chrome: none found, it would not start, it cannot be reached "
             "(`--upstream`, a suite's remote browser), or it was lost"),
    ExitCode(EXIT_ESCAPED, "something denied got through",
             "something the rules deny got through: the guard (`cdp`) stopped cleanly, but "
             "its record has an `escaped` line (a WebSocket whose handshake Chrome sent "
             "although the rules refuse it; the guard ended it at once)"),
    ExitCode(EXIT_INTERRUPTED, "interrupted",
             "interrupted (Ctrl-C, SIGTERM, SIGHUP) in a command that runs to an end; what "
             "finished is kept"),
    ExitCode(EXIT_INTERNAL, "a bug of ours",
             "a bug of ours: one line, and `AJANTIK_DEBUG=1` shows the traceback"),
)


def exit_code_table() -> str:
    """The table as Markdown, as the README shows it."""
    rows = [f"| {c.code} | {c.meaning} |" for c in EXIT_CODES]
    return "\n".join(["| Code | Meaning |", "|---|---|", *rows]) + "\n"


def exit_code_line() -> str:
    """The table on one line, for ``--help``."""
    return "Exit codes: " + ", ".join(f"{c.code} {c.short}" for c in EXIT_CODES) + "."


class AjantikError(Exception):
    exit_code: int = EXIT_BAD_INPUT


class BadInput(AjantikError):
    """A file, flag or folder the person gave is wrong; fixing it is up to them."""

    exit_code = EXIT_BAD_INPUT


class ChromeError(AjantikError):
    """No usable Chrome: none found, it would not start, it cannot be reached, or the
    connection to it was lost."""

    exit_code = EXIT_CHROME
