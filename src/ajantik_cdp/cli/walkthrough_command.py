"""`ajantik walkthrough`: the guard stopping a write, end to end, on this machine."""

from __future__ import annotations

from pathlib import Path

import click

from ajantik_cdp.cli.logging_setup import configure
from ajantik_cdp.output_folder import make_folder
from ajantik_cdp.walkthrough import main_sync

NAME = "ajantik walkthrough"


@click.command("walkthrough")
@click.option("--out", "out_dir", default="ajantik-walkthrough", show_default=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Where the walkthrough's record is written.")
def walkthrough_command(out_dir: Path) -> int:
    """Start a local page and a headless Chromium, put the guard in front, and show a
    denied write failing while an allowed one lands. Offline; about ten seconds."""
    configure("ajantik cdp")
    make_folder(out_dir, "--out", out_dir)
    ok = main_sync(out_dir, lambda line: click.echo(line))
    return 0 if ok else 1
