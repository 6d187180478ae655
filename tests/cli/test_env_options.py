"""Every option of `ajantik cdp` and `ajantik gauntlet run` can come from an AJANTIK_*
environment variable named after its flag, shown in --help; the command line wins."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from ajantik_cdp.cli.cdp_command import cdp_command
from ajantik_cdp.cli.gauntlet_command import gauntlet_run_command
from ajantik_cdp.gauntlet.suite.demo_suite import DEMO_SUITE_YAML
from tests.support.cli import run

# A value from the environment for every option, and what the command then receives.
CDP_VALUES = {
    "AJANTIK_CDP_UPSTREAM": ("http://127.0.0.1:9", "upstream", "http://127.0.0.1:9"),
    "AJANTIK_CDP_PORT": ("9444", "port", 9444),
    "AJANTIK_CDP_HOST": ("127.0.0.2", "host", "127.0.0.2"),
    "AJANTIK_CDP_CONFIG": ("example:portal", "config_text", "example:portal"),
    "AJANTIK_CDP_RECORD": ("r.jsonl", "record_path", Path("r.jsonl")),
    "AJANTIK_CDP_FAULT": ("phantom_success:/x", "fault_text", "phantom_success:/x"),
    "AJANTIK_CDP_FAULT_AT": ("2", "fault_at", 2),
    "AJANTIK_CDP_ALLOW_ORIGIN": ("http://a.test http://b.test", "allow_origins",
                                 ("http://a.test", "http://b.test")),
    "AJANTIK_CDP_HOLD_TIMEOUT": ("2.5", "hold_timeout", 2.5),
    "AJANTIK_CDP_FILM": ("frames", "film_dir", Path("frames")),
    "AJANTIK_CDP_FILM_FPS": ("4", "film_fps", 4.0),
    "AJANTIK_CDP_VERBOSE": ("1", "verbose", True),
}
RUN_VALUES = {
    "AJANTIK_GAUNTLET_RUN_OUT": ("elsewhere", "out_dir", Path("elsewhere")),
    "AJANTIK_GAUNTLET_RUN_WORKERS": ("3", "workers", 3),
    "AJANTIK_GAUNTLET_RUN_SHOP": ("http://127.0.0.1:8080", "shop_url",
                                  "http://127.0.0.1:8080"),
    "AJANTIK_GAUNTLET_RUN_JUNIT": ("ci/junit.xml", "junit_path", Path("ci/junit.xml")),
    "AJANTIK_GAUNTLET_RUN_EXECUTOR": ("ray", "executor", "ray"),
    "AJANTIK_GAUNTLET_RUN_RAY_ADDRESS": ("10.0.0.5:6379", "ray_address", "10.0.0.5:6379"),
    "AJANTIK_GAUNTLET_RUN_SHOP_HOST": ("10.0.0.9", "shop_host", "10.0.0.9"),
    "AJANTIK_GAUNTLET_RUN_BROWSER": ("http://a.test:1 http://b.test:2", "browser_urls",
                                     ("http://a.test:1", "http://b.test:2")),
    "AJANTIK_GAUNTLET_RUN_RETRIES": ("2", "retries", 2),
    "AJANTIK_GAUNTLET_RUN_RESUME": ("old-results", "resume_dir", Path("old-results")),
    "AJANTIK_GAUNTLET_RUN_FILM": ("false", "film", False),  # on by default
    "AJANTIK_GAUNTLET_RUN_FILM_FPS": ("4", "film_fps", 4.0),
    "AJANTIK_GAUNTLET_RUN_VERBOSE": ("true", "verbose", True),
}
COMMANDS = [(cdp_command, ["cdp"], CDP_VALUES, []),
            (gauntlet_run_command, ["gauntlet", "run"], RUN_VALUES, ["suite.yaml"])]


@pytest.mark.parametrize(("command", "words", "values", "args"), COMMANDS,
                         ids=["cdp", "gauntlet run"])
def test_every_option_has_a_variable_and_help_names_it(
        command: click.Command, words: list[str], values: dict[str, tuple[str, str, object]],
        args: list[str]) -> None:
    options = [p for p in command.params if isinstance(p, click.Option)]
    assert sorted(str(p.envvar) for p in options) == sorted(values)
    shown = "".join(run(*words, "--help").stdout.split())
    for name in values:
        assert name in shown


@pytest.mark.parametrize(("command", "words", "values", "args"), COMMANDS,
                         ids=["cdp", "gauntlet run"])
def test_each_variable_sets_its_option(monkeypatch: pytest.MonkeyPatch,
                                       command: click.Command, words: list[str],
                                       values: dict[str, tuple[str, str, object]],
                                       args: list[str]) -> None:
    for name, (text, _, _) in values.items():
        monkeypatch.setenv(name, text)
    ctx = command.make_context(" ".join(words), list(args))
    for _, (_, param, expected) in values.items():
        assert ctx.params[param] == expected, param


def test_the_command_line_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AJANTIK_CDP_PORT", "9444")
    monkeypatch.setenv("AJANTIK_CDP_ALLOW_ORIGIN", "http://a.test")
    ctx = cdp_command.make_context("cdp", ["--upstream", "x:1", "--port", "0",
                                           "--allow-origin", "http://c.test"])
    assert ctx.params["port"] == 0 and ctx.params["allow_origins"] == ("http://c.test",)


def test_ajantik_cdp_runs_from_the_environment(tmp_path: Path) -> None:
    env = {"AJANTIK_CDP_UPSTREAM": "http://127.0.0.1:1", "AJANTIK_CDP_PORT": "0",
           "AJANTIK_CDP_RECORD": str(tmp_path / "r.jsonl")}
    res = run("cdp", env=env)
    assert res.code == 3 and "cannot reach Chrome at http://127.0.0.1:1" in res.one_line_error()
    res = run("cdp", "--upstream", "http://127.0.0.1:2", env=env)
    assert res.code == 3 and "cannot reach Chrome at http://127.0.0.1:2" in res.one_line_error()
    res = run("cdp", env={**env, "AJANTIK_CDP_FAULT": "explode:/x"})
    assert res.code == 2 and "unknown fault kind 'explode'" in res.one_line_error()
    res = run("cdp", env={**env, "AJANTIK_CDP_PORT": "port"})
    line = res.one_line_error()
    assert res.code == 2 and "AJANTIK_CDP_PORT" in line and "'port'" in line


def test_gauntlet_run_runs_from_the_environment(tmp_path: Path) -> None:
    suite = tmp_path / "gauntlet.yaml"
    suite.write_text(DEMO_SUITE_YAML)
    taken, other = tmp_path / "taken.txt", tmp_path / "other.txt"
    taken.write_text("x")
    other.write_text("x")
    # The folder named in the environment is the one refused: the variable was read.
    res = run("gauntlet", "run", str(suite), env={"AJANTIK_GAUNTLET_RUN_OUT": str(taken)})
    assert res.code == 2 and f"--out {taken} is a file" in res.one_line_error()
    res = run("gauntlet", "run", str(suite), "--out", str(other),
              env={"AJANTIK_GAUNTLET_RUN_OUT": str(taken)})
    assert res.code == 2 and f"--out {other} is a file" in res.one_line_error()
    res = run("gauntlet", "run", str(suite), env={"AJANTIK_GAUNTLET_RUN_WORKERS": "99"})
    line = res.one_line_error()
    assert res.code == 2 and "AJANTIK_GAUNTLET_RUN_WORKERS" in line and "99" in line
    res = run("gauntlet", "run", str(suite), env={"AJANTIK_GAUNTLET_RUN_SHOP": "http://x:1",
                                                  "AJANTIK_SHOP_SECRET": None})
    assert res.code == 2 and "$AJANTIK_SHOP_SECRET" in res.one_line_error()
