"""Where a command writes: its results folder (`ajantik demo`, `ajantik gauntlet`), and
the folder of any output file (`--record`, `--out`, `--html`, `-o`, `--secret-file`).

One rule for every output path: a folder that does not exist is created; a path that
cannot be one (a file in the way, no permission) is one line naming the path, exit 2.

A results folder is new, empty, or written earlier by the same command (a marker file
says so), which is then emptied and reused. A folder with anything else in it is refused:
a command never deletes files it did not write.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ajantik_cdp.core.errors import BadInput


class OutputFolderError(BadInput, ValueError):
    """An output path that cannot be written: a file where a folder must be, a folder
    this command did not write, no permission (exit code 2)."""


def marker_name(command: str) -> str:
    return f".ajantik-{command}"


def _file_in_the_way(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return None if candidate.is_dir() else candidate
    return None


def make_folder(folder: Path, flag: str, given: Path) -> None:
    """Create ``folder`` (and its parents) for the output path ``given`` of ``flag``."""
    if folder.is_dir():
        return
    blocker = _file_in_the_way(folder)
    if blocker is not None:
        raise OutputFolderError(f"{flag} {given}: {blocker} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputFolderError(f"{flag} {given}: cannot create the folder {folder}: "
                                f"{exc.strerror or exc}") from None


def make_parent(path: Path, flag: str) -> Path:
    """The folder an output file goes into exists (created when it did not); ``path`` is
    returned for chaining."""
    check_parent(path, flag)
    make_folder(path.parent, flag, path)
    return path


def check_parent(path: Path, flag: str) -> None:
    """What ``make_parent`` would refuse, refused now, with nothing created: for a file
    written only once the work has started (the guard's record once Chrome answers), so
    a command that fails before that leaves no empty folder behind."""
    if path.is_dir():
        raise OutputFolderError(f"{flag} {path} is a folder; give a file name")
    blocker = _file_in_the_way(path.parent)
    if blocker is not None:
        raise OutputFolderError(f"{flag} {path}: {blocker} is a file, not a folder")


def prepare(out_dir: Path, command: str) -> None:
    marker = out_dir / marker_name(command)
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputFolderError(f"--out {out_dir} is a file, not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        if not marker.is_file():
            raise OutputFolderError(f"--out {out_dir} holds files `ajantik {command}` did "
                                    "not write; choose another folder")
        for child in out_dir.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    make_folder(out_dir, "--out", out_dir)
    marker.write_text(f"written by `ajantik {command}`; its next run with this --out "
                      "replaces this folder's contents\n")
