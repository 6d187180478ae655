"""What the wheel puts in a user's site-packages: only packages named for the project
(a generic top-level name, such as the example's former `ajantik_portal_pilot`, can shadow or be
shadowed by a package of the user's). Read from pyproject's own package discovery."""

from __future__ import annotations

import tomllib
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
