"""How commands report a failure: one line, the command's name first, a chosen exit code."""

from __future__ import annotations

import click


class CommandFailed(click.ClickException):
    def __init__(self, command: str, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.command = command
        self.code = exit_code

    def show(self, file: object = None) -> None:
        click.echo(f"{self.command}: error: {self.format_message()}", err=True)
