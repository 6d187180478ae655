"""`--film/--no-film` and `--film-fps` for the commands that run many guards
(`ajantik test run`, `ajantik demo`): each run's guard films into the run's folder."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from ajantik_cdp.core.guard.film import DEFAULT_FPS, FILM_RUNS_BY_DEFAULT, MAX_FPS, FilmPolicy

F = TypeVar("F", bound=Callable[..., object])


def film_options(fn: F) -> F:
    fn = click.option("--film-fps", default=DEFAULT_FPS, show_default=True, metavar="N",
                      type=click.FloatRange(0, MAX_FPS, min_open=True),
                      help="Most screencast frames kept per second and page when filming.")(fn)
    return click.option("--film/--no-film", "film", default=FILM_RUNS_BY_DEFAULT,
                        show_default=True,
                        help="Film every run: its guard keeps the pages' frames in the "
                        "run's folder (film/), and the run's pages show a player. "
                        "Pages at a `redact` URL are never filmed.")(fn)


def film_policy(film: bool, fps: float) -> FilmPolicy | None:
    return FilmPolicy(fps=fps) if film else None
