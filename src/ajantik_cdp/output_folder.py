"""Where a command writes: its results folder (`--out` of `demo`, `test run`, `gauntlet`,
`walkthrough`, `gauntlet matrix --keep`), the guard's `--film` folder, and the folder of
any output file (`--record`, `--out`, `--html`, `-o`, `--junit`, `--secret-file`).

One rule for every command and every output path:

- A folder that does not exist is made, with its parents.
- A file where a folder is wanted (the folder itself, or one of its parents) is one
  line naming both, exit 2.
- A folder of results that is not empty must be ours: written earlier by the same
  command (a marker file says so; a film folder holds nothing but frames), and is then
  reused. Anything else in it is refused, exit 2: a command never deletes, moves or
  mixes its files with files it did not write.

Each check comes in two halves, so a command refuses a bad path before it starts work
(``check_*``) and creates nothing until it writes (``prepare``, ``make_*``): a command that
fails on the way (Chrome not running) leaves no empty folder behind.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from ajantik_cdp.core.errors import BadInput


class OutputFolderError(BadInput, ValueError):
    """An output path that cannot be written: a file where a folder must be, a folder
    this command did not write, no permission (exit code 2)."""


# What the guard names a film's frames (proxy/film.py): a film folder holding only these
# is one a guard wrote.
FRAME_FILE = re.compile(r"\d{6}-(screencast|still)\.jpg")


def marker_name(command: str) -> str:
    return f".ajantik-{command}"


def _file_in_the_way(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return None if candidate.is_dir() else candidate
    return None


def check_folder(folder: Path, flag: str, given: Path | None = None) -> None:
    """What making ``folder`` for ``flag`` would refuse, refused now, nothing created:
    a file in the way."""
    blocker = _file_in_the_way(folder)
    if blocker is not None:
        shown = given or folder
        where = "" if blocker == shown else f": {blocker}"
        raise OutputFolderError(f"{flag} {shown}{where} is a file, not a folder")


def make_folder(folder: Path, flag: str, given: Path | None = None) -> None:
    """Create ``folder`` (and its parents) for the output path ``given`` of ``flag``."""
    if folder.is_dir():
        return
    check_folder(folder, flag, given)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputFolderError(f"{flag} {given or folder}: cannot create the folder "
                                f"{folder}: {exc.strerror or exc}") from None


def check_parent(path: Path, flag: str) -> None:
    """What ``make_parent`` would refuse, refused now, with nothing created: for a file
    written only once the work has started (the guard's record once Chrome answers), so
    a command that fails before that leaves no empty folder behind."""
    if path.is_dir():
        raise OutputFolderError(f"{flag} {path} is a folder; give a file name")
    check_folder(path.parent, flag, path)


def make_parent(path: Path, flag: str) -> Path:
    """The folder an output file goes into exists (created when it did not); ``path`` is
    returned for chaining."""
    check_parent(path, flag)
    make_folder(path.parent, flag, path)
    return path


def _ours(folder: Path, command: str) -> bool:
    return (folder / marker_name(command)).is_file()


def check_results_folder(out_dir: Path, command: str, flag: str = "--out") -> None:
    """What ``prepare`` would refuse, refused now, nothing created or emptied."""
    check_folder(out_dir, flag)
    if out_dir.is_dir() and any(out_dir.iterdir()) and not _ours(out_dir, command):
        raise OutputFolderError(f"{flag} {out_dir} holds files `ajantik {command}` did not "
                                "write; choose another folder, or empty this one")


def prepare(out_dir: Path, command: str, flag: str = "--out") -> None:
    """The results folder of ``command``, made (with its parents) or emptied if an earlier
    run of the same command wrote it, and marked as this command's."""
    check_results_folder(out_dir, command, flag)
    if out_dir.is_dir():
        for child in out_dir.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    make_folder(out_dir, flag)
    (out_dir / marker_name(command)).write_text(
        f"written by `ajantik {command}`; its next run with this {flag} replaces this "
        "folder's contents\n")


def check_film_folder(folder: Path, flag: str = "--film") -> None:
    """A film folder that is not empty must hold a guard's frames alone (an earlier film,
    which the guard moves aside): a folder of anything else is refused."""
    check_folder(folder, flag)
    if folder.is_dir():
        strangers = [p.name for p in folder.iterdir() if not FRAME_FILE.fullmatch(p.name)]
        if strangers:
            raise OutputFolderError(f"{flag} {folder} holds files that are not a film's "
                                    f"frames ({strangers[0]}, ...); choose another folder, "
                                    "or empty this one")
