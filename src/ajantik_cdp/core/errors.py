"""The one base of every failure a person can cause and put right, with its exit code.

A bad suite, config or results file, a flag that makes no sense, a browser that is
missing or will not start, a port in use, an output folder that is not ours: each is an
``AjantikError``, and ``cli/main.py`` (the one place that maps errors to exit codes)
shows it as one line, ``<command>: error: <message>``, and exits with its
``exit_code``. Anything else that escapes a command is our own bug: exit 70, with a
hint to set AJANTIK_DEBUG=1 for the traceback. Keeping the two apart is the point: a
user error never prints a traceback, and a bug is never dressed up as a user error.

Every command uses the same codes (the README's table), so a CI step can tell a gate
that failed from a broken setup without knowing which command ran.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_GATE = 1  # the work ran and its verdict is "no": silent wrong, a threshold missed
EXIT_BAD_INPUT = 2  # what was handed in is wrong: a file, a flag, a folder, a port
EXIT_CHROME = 3  # Chrome: none found, it would not start, cannot be reached, or was lost
EXIT_INTERNAL = 70  # a bug of ours (EX_SOFTWARE)
EXIT_INTERRUPTED = 130  # Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, as shells report it)


class AjantikError(Exception):
    exit_code: int = EXIT_BAD_INPUT


class BadInput(AjantikError):
    """A file, flag or folder the person gave is wrong; fixing it is up to them."""

    exit_code = EXIT_BAD_INPUT


class ChromeError(AjantikError):
    """No usable Chrome: none found, it would not start, it cannot be reached, or the
    connection to it was lost."""

    exit_code = EXIT_CHROME
