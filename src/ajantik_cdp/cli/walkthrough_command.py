"""`ajantik walkthrough`: the guard stopping a write, end to end, on this machine."""

from __future__ import annotations

from pathlib import Path

import click

from ajantik_cdp.cli.logging_setup import configure
from ajantik_cdp.output_folder import prepare
from ajantik_cdp.walkthrough import main_sync

NAME = "ajantik walkthrough"


@click.command("walkthrough")
@click.option("--out", "out_dir", default="ajantik-walkthrough", show_default=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Where the walkthrough's record is written. A folder from an earlier "
              "walkthrough is replaced; any other non-empty folder is refused.")
def walkthrough_command(out_dir: Path) -> int:
    """Start a local page and a headless Chromium, put the guard in front, and show a
    denied write failing while an allowed one lands. Offline; 13-32 s on a busy
    two-core machine (README, "Install").

    Exit code 0 when it behaved as described, 1 when it did not, 2 for a bad --out, 3
    when no Chrome is found or it will not start."""
    configure("ajantik cdp")
    prepare(out_dir, "walkthrough")
    ok = main_sync(out_dir, lambda line: click.echo(line))
    return 0 if ok else 1
