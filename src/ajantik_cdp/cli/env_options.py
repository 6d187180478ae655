"""Options that can also come from the environment: `ajantik cdp --upstream URL` is
`AJANTIK_CDP_UPSTREAM=URL ajantik cdp` (a container, a CI job, a systemd unit set
environment variables more easily than arguments). The command line wins over the
environment, which wins over the default; `--help` names each variable.

The variable is named after the option's long flag, not its Python parameter:
``--fault-at`` of `ajantik cdp` is ``AJANTIK_CDP_FAULT_AT``. A repeatable option takes
several values separated by spaces; a flag takes 1/true/yes or 0/false/no. Click names
the variable in the error when a value from it is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

C = TypeVar("C", bound=click.Command)


def env_name(prefix: str, option: click.Option) -> str:
    longest = max(option.opts, key=len).lstrip("-")
    return f"{prefix}_{longest.upper().replace('-', '_')}"


def from_environment(prefix: str) -> Callable[[C], C]:
    def apply(command: C) -> C:
        for param in command.params:
            if isinstance(param, click.Option):
                param.envvar = env_name(prefix, param)
                param.show_envvar = True
        return command
    return apply
