"""The example guard configs ship in the package and `--config example:NAME` uses them."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from ajantik_cdp.config_file import EXAMPLES, config_path, example_names, load_config_file
from ajantik_cdp.core.policy.config import ConfigError
from tests.support.cli import run

ROOT = Path(__file__).resolve().parents[2]


def test_the_examples_are_the_files_in_the_folder() -> None:
    assert example_names() == ["portal", "read-only", "record-only"]


@pytest.mark.parametrize("name", ["portal", "read-only", "record-only"])
def test_every_example_loads_and_blocks_what_it_says(name: str) -> None:
    config = load_config_file(config_path(f"example:{name}"))
    if name == "portal":
        assert config.deny and config.deny_clicks and config.allow_writes
    if name == "read-only":
        assert config.allow_writes is not None and not config.deny
    if name == "record-only":
        assert not config.deny and config.allow_writes is None and config.record


@pytest.mark.parametrize("spelling", ["example:portal", "example:portal.yaml"])
def test_example_name_spellings(spelling: str) -> None:
    assert config_path(spelling) == EXAMPLES / "portal.yaml"


@pytest.mark.parametrize("bad", ["example:nope", "example:../pyproject", "example:",
                                 "example:README"])
def test_an_unknown_example_lists_the_real_ones(bad: str) -> None:
    with pytest.raises(ConfigError, match="example:portal, example:read-only"):
        config_path(bad)
    res = run("cdp", "--upstream", "http://127.0.0.1:1", "--config", bad)
    assert res.code == 2 and "the examples are example:portal" in res.one_line_error()


def test_the_guard_starts_with_an_example_and_says_which_file() -> None:
    res = run("cdp", "--upstream", "http://127.0.0.1:1", "--port", "0", "--config",
              "example:read-only")
    first, second = res.stderr.strip().splitlines()
    assert first == f"ajantik cdp: config example:read-only is {EXAMPLES / 'read-only.yaml'}"
    assert res.code == 3 and "cannot reach Chrome" in second  # the config itself was fine


def test_help_lists_the_examples_and_their_folder() -> None:
    shown = " ".join(run("cdp", "--help").stdout.split())
    assert "example:portal, example:read-only, example:record-only" in shown
    # click wraps a long path where it likes (it depends on the checkout's path)
    assert "".join(str(EXAMPLES).split()) in "".join(run("cdp", "--help").stdout.split())


def test_the_wheel_ships_every_example() -> None:
    """The package-data globs in pyproject.toml cover every file in the folder (a new
    kind of file would otherwise be left out of the wheel without anyone noticing)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]["ajantik_cdp"]
    package = ROOT / "src" / "ajantik_cdp"
    for path in EXAMPLES.iterdir():
        relative = str(path.relative_to(package))
        assert any(fnmatch.fnmatch(relative, g) for g in globs), relative
