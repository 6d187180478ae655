"""`ajantik test`: commands that score a skill's runs. Subcommands attach to this group."""

from __future__ import annotations

import click

from ajantik_cdp.cli.judge_command import judge_command


@click.group("test")
def test_group() -> None:
    """Score a skill's runs from the guard's record.

    \b
    ajantik test judge   verdicts per unit of work: correct, silent wrong, ...
    """


test_group.add_command(judge_command)
