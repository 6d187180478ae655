"""What `ajantik test run` and `ajantik demo` film when given no film option: stills
only (issue 16's default, within its 10% of the demo's time); suites keep the screencast,
and only the guard's commands accept a rate of 0."""

from __future__ import annotations

import click
import pytest

from ajantik_cdp.cli.cdp_command import cdp_command
from ajantik_cdp.cli.demo_command import demo_command
from ajantik_cdp.cli.film_options import film_policy
from ajantik_cdp.cli.gauntlet_command import gauntlet_run_command
from ajantik_cdp.cli.test_command import run_command
from ajantik_cdp.core.guard.film import DEFAULT_FPS, FilmPolicy
from tests.support.cli import run

CDP = ("--upstream", "http://127.0.0.1:9")


def defaults(command: click.Command, *args: str) -> dict[str, object]:
    with command.make_context(command.name or "x", list(args)) as ctx:
        return dict(ctx.params)


def policy_of(command: click.Command, *args: str) -> FilmPolicy | None:
    params = defaults(command, *args)
    return film_policy(bool(params["film"]), float(str(params["film_fps"])))


@pytest.mark.parametrize("command,args", [(demo_command, ()),
                                          (run_command, ("--", "true"))],
                         ids=["demo", "test run"])
def test_runs_film_stills_only_unless_told(command: click.Command,
                                           args: tuple[str, ...]) -> None:
    policy = policy_of(command, *args)
    assert policy is not None and not policy.screencast
    policy = policy_of(command, "--film-fps", "2", *args)
    assert policy is not None and policy.screencast and policy.fps == 2
    assert policy_of(command, "--no-film", *args) is None


def test_suites_and_the_guard_keep_the_screencast_by_default() -> None:
    assert defaults(gauntlet_run_command, "suite.yaml")["film_fps"] == DEFAULT_FPS > 0
    assert defaults(cdp_command, *CDP)["film_fps"] == DEFAULT_FPS


def test_a_suite_refuses_a_rate_of_0_and_the_guard_takes_it() -> None:
    refused = run("gauntlet", "run", "--film-fps", "0", "suite.yaml")
    assert refused.code == 2 and "--film-fps" in refused.one_line_error()
    assert defaults(cdp_command, "--film-fps", "0", *CDP)["film_fps"] == 0
