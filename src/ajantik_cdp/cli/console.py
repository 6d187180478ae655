"""The console a command prints its tables on.

On a terminal, the terminal's width. Off one (a CI log, a pipe, a file) there is no
width to ask for, and rich's 80 columns cut cells short ("phantom_suc…") or wrap a table
into a column of fragments; so the console is as wide as the widest table needs: no
table here expands to the console's width, each is as wide as its content, so a wide
console costs a short table nothing. ``$COLUMNS``, when set, wins, as rich's own rule.
"""

from __future__ import annotations

import os

from rich.console import Console

LOG_WIDTH = 1000  # off a terminal: wider than any table's content needs


def command_console(*, width: int | None = None, log_width: int = LOG_WIDTH,
                    **options: object) -> Console:
    """A console for a command's output on stdout. ``width``: the user's choice (a
    command's --width); ``log_width``: the width off a terminal, for a table that does
    expand to its console (``record show``'s folds its long cells instead)."""
    console = Console(highlight=False, width=width, **options)  # type: ignore[arg-type]
    if width is None and not console.is_terminal and not os.environ.get("COLUMNS"):
        console = Console(highlight=False, width=log_width, **options)  # type: ignore[arg-type]
    return console
