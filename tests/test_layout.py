"""The layout's rules, read from the source: the pure folders import no I/O, no class name is
defined twice, and the gauntlet reaches the shop only through its package's public names.

Purity is a property of a folder, not of a list of modules: a module added to a pure
folder is checked without anyone remembering to add it here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "ajantik_cdp"

# Folders (below src/ajantik_cdp) whose modules import no I/O library: plain functions and
# small state machines over dataclasses, tested without a browser or a server. The
# reference agent is here too: it acts only through the Playwright page it is handed.
PURE_FOLDERS = (
    "core",
    "gauntlet/suite",
    "gauntlet/evidence",
    "gauntlet/score",
    "gauntlet/reference",
    "gauntlet/report",
    "testrun/plan",
    "testrun/score",
)
# Single modules that pure folders may use: the one Jinja environment reads templates from
# the package itself, as an import reads code; the live bar only draws on the console it
# is handed, as the reports' tables do.
PURE_MODULES = ("ajantik_cdp.html_pages", "ajantik_cdp.versioned_file", "ajantik_cdp.live_bar")
# Modules that do I/O, or exist to: networking, processes, threads, signals, files.
IO_MODULES = frozenset({
    "asyncio", "aiohttp", "websockets", "playwright", "socket", "ssl", "select",
    "selectors", "subprocess", "multiprocessing", "threading", "concurrent", "signal",
    "os", "shutil", "pathlib", "tempfile", "glob", "io", "http", "urllib.request",
    "ray", "ajantik_cdp.proxy", "ajantik_cdp.browser", "ajantik_cdp.record",
})


def modules_in(folder: Path) -> Iterator[Path]:
    yield from sorted(folder.rglob("*.py"))


def imports_of(path: Path) -> Iterator[tuple[int, str]]:
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    yield from imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(text: str, package: str) -> Iterator[tuple[int, str]]:
    """Every module name an import names, with its line; relative imports resolved."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield node.lineno, base
            for alias in node.names:  # `from ajantik_cdp.gauntlet import run` names a module
                yield node.lineno, f"{base}.{alias.name}"


def is_under(name: str, prefixes: frozenset[str] | tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def pure_packages() -> tuple[str, ...]:
    return (*("ajantik_cdp." + f.replace("/", ".") for f in PURE_FOLDERS), *PURE_MODULES)


@pytest.mark.parametrize("folder", PURE_FOLDERS)
def test_a_pure_folder_imports_no_io(folder: str) -> None:
    where = SRC / folder
    assert (where / "__init__.py").is_file(), f"{folder} is not a package"
    bad = []
    for path in modules_in(where):
        for line, name in imports_of(path):
            # Our own modules count by where they live: a pure folder may use another
            # pure folder, never a module that does I/O.
            ours = name.startswith("ajantik_cdp.")
            if (ours and not is_under(name, pure_packages()) and name != "ajantik_cdp") \
                    or (not ours and is_under(name, IO_MODULES)):
                bad.append(f"{path.relative_to(SRC)}:{line} imports {name}")
    assert not bad, "\n".join(bad)


def test_the_check_sees_every_spelling_of_an_import() -> None:
    # The check above must be able to fail: plain, from- and relative imports are seen.
    text = "import asyncio\nfrom os import path\nfrom ..proxy import server\n"
    found = {name for _, name in imports_in(text, "ajantik_cdp.core")}
    assert {"asyncio", "os", "ajantik_cdp.proxy", "ajantik_cdp.proxy.server"} <= found
    assert all(is_under(n, IO_MODULES) for n in ("asyncio", "os.path", "ajantik_cdp.proxy"))
    assert not is_under("osmosis", IO_MODULES)


def test_the_gauntlet_uses_only_the_shops_public_names() -> None:
    bad = [f"{path.relative_to(SRC)}:{line} imports {name}"
           for path in modules_in(SRC / "gauntlet") for line, name in imports_of(path)
           if name.startswith("ajantik_shop.") and name.count(".") == 1
           and name.split(".")[1] not in _shop_public_names()]
    assert not bad, "\n".join(bad)


def _shop_public_names() -> set[str]:
    import ajantik_shop

    return set(ajantik_shop.__all__)


def classes_defined_twice(root: Path) -> dict[str, list[str]]:
    """Top-level class names defined in more than one module below ``root``."""
    where: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(path.relative_to(root)))
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def test_one_name_per_idea_no_class_name_is_defined_twice() -> None:
    """A reader who meets ``Check`` or ``RunResult`` should not have to ask which one."""
    assert classes_defined_twice(SRC) == {}


def test_the_name_check_finds_a_second_definition(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Row:\n    pass\n")
    (tmp_path / "b.py").write_text("class Row:\n    pass\nclass Other:\n    pass\n")
    assert classes_defined_twice(tmp_path) == {"Row": ["a.py", "b.py"]}
