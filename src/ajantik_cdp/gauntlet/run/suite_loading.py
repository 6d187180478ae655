"""Reading a suite file from disk, with the checks that need the file system (is the
command agent's program there?), all reported in the one ``SuiteError``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ajantik_cdp.gauntlet.suite.suite_file import Suite, SuiteError, parse_suite


def find_program(program: str, folder: str) -> str | None:
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(program) if Path(program).is_absolute() else Path(folder) / program
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(program)


def load_suite(path: Path) -> Suite:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError(str(path), ["no such file"]) from None
    except IsADirectoryError:
        raise SuiteError(str(path), ["is a folder, not a suite file"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(str(path), [f"cannot be read: {exc}"]) from None
    base = str(path.resolve().parent)
    return parse_suite(text, str(path), base, find_program=find_program)
