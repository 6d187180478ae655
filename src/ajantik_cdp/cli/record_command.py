"""`ajantik record show` and `ajantik record har`: reading what the guard recorded."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

import click
import orjson

from ajantik_cdp.cli.console import command_console
from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.output_folder import make_parent
from ajantik_cdp.player.page import render_film_page
from ajantik_cdp.player.view import film_view
from ajantik_cdp.record.har import to_har
from ajantik_cdp.record.reader import LoadedRecord, load_record
from ajantik_cdp.record.table import render


def _load(name: str, path: Path) -> LoadedRecord:
    record = load_record(path)
    for note in record.notes():
        click.echo(f"{name}: warning: {note}", err=True)
    return record


@click.group("record")
def record_command() -> None:
    """Read a guard's record (ajantik-cdp.jsonl): as a table, or as a HAR file.

    \b
    ajantik record show ajantik-cdp.jsonl
    ajantik record har ajantik-cdp.jsonl -o run.har     # DevTools: Network > Import HAR
    ajantik record film ajantik-cdp.jsonl -o film.html  # a guard run with --film

    A record whose guard was killed is still read: its cut-short last line is reported
    and skipped.
    """


@record_command.command("show")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=True))
@click.option("--writes", "writes_only", is_flag=True,
              help="Leave recorded reads out; show writes and blocks only.")
@click.option("--full", is_flag=True, help="Show whole request bodies instead of the first "
              "120 characters.")
@click.option("--width", type=click.IntRange(60), metavar="COLUMNS",
              help="Table width. Default: the terminal's, or 200 when output is not a "
              "terminal.")
@click.option("--film", "film_dir", type=click.Path(path_type=Path, file_okay=False),
              metavar="DIR", help="Add each line's frame: its JPEG in DIR, the guard's "
              "--film folder.")
def show_command(path: Path, writes_only: bool, full: bool, width: int | None,
                 film_dir: Path | None) -> None:
    """Print the record at PATH as a table: each write (and recorded read) with its
    request body, what the system answered, the fault applied and what the client was
    given; each block with its rule. Withheld bodies show their reason, length and
    fingerprint, never their content."""
    record = _load("ajantik record show", path)
    # Its table expands to the console and folds long cells: 200 columns off a terminal.
    console = command_console(width=width, log_width=200, soft_wrap=False)
    if film_dir is not None and not record.frames:
        click.echo("ajantik record show: warning: this record holds no film (the guard "
                   "ran without --film)", err=True)
    render(record, console, body_limit=None if full else 120, writes_only=writes_only,
           film=film_dir)


@record_command.command("film")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=True))
@click.option("--film", "film_dir", type=click.Path(path_type=Path, file_okay=False),
              metavar="DIR", help="The guard's --film folder. Default: the one named in "
              "the record (relative to the record's folder).")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Where to write the page. Default: PATH with the suffix .film.html.")
def film_command(path: Path, film_dir: Path | None, output: Path | None) -> None:
    """Write a self-contained HTML player for a filmed run: the frames with a scrubber,
    the client's actions and the record lines on one timeline (click a line to see its
    frame). Frames are embedded: the page needs no server and no network."""
    name = "ajantik record film"
    record = _load(name, path)
    view = film_view(record, "run", film_dir)
    if view is None:
        raise CommandFailed(name, f"{path} holds no film: run the guard with --film DIR", 2)
    target = output or path.with_suffix(".film.html")
    for note in view.notes:
        click.echo(f"{name}: warning: {note}", err=True)
    make_parent(target, "-o")
    try:
        _write_atomically(target, render_film_page(f"Film of {path.name}", view).encode())
    except OSError as exc:
        raise CommandFailed(name, f"cannot write {target}: {exc.strerror or exc}", 2) from None
    click.echo(f"wrote {target} ({counted(len(view.frames), 'frame')}, "
               f"{counted(len(view.entries), 'timeline entry', 'timeline entries')})", err=True)


@record_command.command("har")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=True))
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
              help="Where to write the HAR file; '-' for standard output. Default: PATH "
              "with the suffix .har.")
def har_command(path: Path, output: Path | None) -> None:
    """Export the record at PATH as a HAR 1.2 file that Chrome DevTools imports (Network
    panel, "Import HAR file"). Entries show what the client was given; a fault's effect
    and the system's own answer are in each entry's comment and `_ajantik` field.
    Withheld bodies appear as a marker with their reason, length and fingerprint."""
    name = "ajantik record har"
    record = _load(name, path)
    data = orjson.dumps(to_har(record), option=orjson.OPT_INDENT_2) + b"\n"
    if output is not None and str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    target = output or path.with_suffix(".har")
    if target.resolve() == path.resolve():
        raise CommandFailed(name, f"{target} is the record itself; choose another -o", 2)
    make_parent(target, "-o")
    try:
        _write_atomically(target, data)
    except OSError as exc:
        raise CommandFailed(name, f"cannot write {target}: {exc.strerror or exc}") from None
    click.echo(f"wrote {target} ({counted(len(record.requests), 'request')}, "
               f"{counted(len(record.blocks), 'block')})", err=True)


def _write_atomically(target: Path, data: bytes) -> None:
    """A reader never sees half a HAR file, and a failed export leaves the old one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
