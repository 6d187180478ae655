"""Reading a suite file from disk, with the checks that need the file system (is the
command agent's program there?) or the environment (the ``${VARIABLE}``s of
``browsers``, so that endpoints, which are credentials, need not be written in the
file), all reported in the one ``SuiteError``."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import replace
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
    suite = parse_suite(text, str(path), base, find_program=find_program)
    if suite.browsers:
        suite = replace(suite, browsers=expand_browsers(suite.browsers, str(path)))
    return suite


VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_browsers(entries: tuple[str, ...], source: str,
                    env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """``${NAME}`` in a browser entry, from the environment. A variable that is not set
    is a problem named by the variable, never by a value."""
    values = os.environ if env is None else env
    problems: list[str] = []
    out: list[str] = []
    for i, entry in enumerate(entries):
        missing = [m.group(1) for m in VARIABLE.finditer(entry) if not values.get(m.group(1))]
        if missing:
            problems.append(f"browsers[{i}]: ${{{missing[0]}}} is not set")
            continue
        out.append(VARIABLE.sub(lambda m: values[m.group(1)], entry))
    if problems:
        raise SuiteError(source, problems)
    return tuple(out)
