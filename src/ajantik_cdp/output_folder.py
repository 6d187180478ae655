"""The folder a command writes its results into (`ajantik demo`, `ajantik gauntlet`).

New, empty, or written earlier by the same command (a marker file says so), which is then
emptied and reused. A folder with anything else in it is refused: a command never deletes
files it did not write.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ajantik_cdp.core.errors import BadInput


class OutputFolderError(BadInput, ValueError):
    """An --out that is a file, or a folder this command did not write (exit code 2)."""


def marker_name(command: str) -> str:
    return f".ajantik-{command}"


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
    out_dir.mkdir(parents=True, exist_ok=True)
    marker.write_text(f"written by `ajantik {command}`; its next run with this --out "
                      "replaces this folder's contents\n")
