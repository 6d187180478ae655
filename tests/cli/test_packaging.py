"""What the wheel puts in a user's site-packages: only packages named for the project
(a generic top-level name, such as the example's former `ajantik_portal_pilot`, can shadow or be
shadowed by a package of the user's), read from pyproject's own package discovery; and
the licence, in the wheel that is really built."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def top_level_packages() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found: set[str] = set()
    for where in config["packages"]["find"]["where"]:
        found |= {name.split(".")[0] for name in find_packages(where=str(ROOT / where))}
    return found


def test_every_top_level_package_is_named_for_the_project() -> None:
    names = top_level_packages()
    assert {"ajantik_cdp", "ajantik_shop", "ajantik_portal_pilot"} <= names
    assert {n for n in names if not n.startswith("ajantik_")} == set()


def test_the_example_ships_its_skill_files_under_its_own_name() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]
    assert set(data) <= top_level_packages()
    skill = ROOT / "examples" / "portal-pilot" / "ajantik_portal_pilot" / "skill"
    assert (skill / "guard.json").is_file() and (skill / "adapter.py").is_file()


def built_wheel(tmp: Path) -> Path:
    """The wheel, built as `pip wheel .` builds it, from a copy of what it is made of (so
    no build/ folder in the checkout can slip a stale file in), without an isolated
    environment (the dev extra brings the setuptools pyproject asks for): about 1 s."""
    src = tmp / "src"
    for part in ("pyproject.toml", "README.md", "LICENSE"):
        src.mkdir(exist_ok=True)
        shutil.copy(ROOT / part, src / part)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    for where in config["packages"]["find"]["where"]:
        shutil.copytree(ROOT / where, src / where,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp / "dist"
    subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                    "build_meta.build_wheel(sys.argv[1])", str(out)], cwd=src, check=True,
                   capture_output=True, timeout=120)
    (wheel,) = out.glob("*.whl")
    return wheel


def test_the_wheel_carries_the_licence(tmp_path: Path) -> None:
    """The Apache-2.0 text at the root, and in the wheel: named in its metadata
    (License-Expression, License-File) and shipped in its dist-info."""
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text) > 11000  # the whole text
    wheel = built_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as z:
        info = next(n.split("/")[0] for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = z.read(f"{info}/METADATA").decode()
        assert z.read(f"{info}/licenses/LICENSE").decode() == text
        names = z.namelist()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()
    # What the README says of the wheel stays true: its size, and what it carries.
    kb = wheel.stat().st_size / 1024
    quoted = re.search(r"the wheel \(about (\d+) KB", (ROOT / "README.md").read_text())
    assert quoted is not None and abs(int(quoted.group(1)) - kb) <= 0.15 * kb, (quoted, kb)
    assert any(n.startswith("ajantik_shop/") for n in names)
    assert any(n.startswith("ajantik_portal_pilot/") for n in names)
    assert any(n.startswith("ajantik_cdp/example_guards/") for n in names)
