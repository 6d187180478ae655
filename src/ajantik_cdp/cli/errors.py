"""A failure a command words itself: one line, the command's name first, its own exit
code. Everything else a person can cause is an ``AjantikError`` raised where it happens
and shown by ``cli/main.py``; this is for the messages no error class carries."""

from __future__ import annotations

from ajantik_cdp.core.errors import EXIT_BAD_INPUT, AjantikError


class CommandFailed(AjantikError):
    def __init__(self, command: str, message: str, exit_code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.command = command
        self.exit_code = exit_code
