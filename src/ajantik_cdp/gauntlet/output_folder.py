"""The folder a suite writes into: new, empty, or an earlier gauntlet's, which is
replaced. A folder with anything else in it is refused: this command never deletes
files it did not write."""

from __future__ import annotations

import shutil
from pathlib import Path

MARKER = ".ajantik-gauntlet"


class OutputFolderError(ValueError):
    pass


def prepare(out_dir: Path) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputFolderError(f"--out {out_dir} is a file, not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        if not (out_dir / MARKER).is_file():
            raise OutputFolderError(f"--out {out_dir} holds files a gauntlet did not write; "
                                    "choose another folder")
        for child in out_dir.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MARKER).write_text("written by `ajantik gauntlet`; its next run with this "
                                  "--out replaces this folder's contents\n")
