"""`--film/--no-film` and `--film-fps` for the commands that run many runs: each run is
filmed into its folder, and the run's pages show a player. `ajantik test run` and
`ajantik demo` film with each run's guard; `ajantik gauntlet run` and `demo` with the
guard of a fault variant's run and with the harness's own camera in every other run."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from ajantik_cdp.core.guard.film import (
    DEFAULT_FPS,
    FILM_RUNS_BY_DEFAULT,
    FILM_SUITE_RUNS_BY_DEFAULT,
    MAX_FPS,
    RUNS_DEFAULT_FPS,
    FilmPolicy,
)

F = TypeVar("F", bound=Callable[..., object])

GUARD_FILMS = ("Film every run: its guard keeps pictures of the pages in the run's folder "
               "(film/), and the run's pages show a player. By default a still right after "
               "each write, block and fault; --film-fps N adds up to N screencast frames a "
               "second. Pages at a `redact` URL are never filmed.")
SUITE_FILMS = ("Film every run into its folder (runs/<id>/film/): a fault variant's guard "
               "films, any other run the harness's own camera; report.html shows a player "
               "per run.")
GUARD_FPS = ("Most screencast frames kept per second and page when filming; 0: no "
             "screencast, only the stills after writes, blocks and faults (the default: "
             "a screencast costs the demo 8-19% of its wall time on Chrome 156, stills "
             "nothing measurable).")
SUITE_FPS = "Most screencast frames kept per second and page when filming."


def _options(default: bool, what: str, fps: float, stills_only: bool,
             fps_help: str) -> Callable[[F], F]:
    def decorate(fn: F) -> F:
        fn = click.option("--film-fps", default=fps, show_default=True, metavar="N",
                          type=click.FloatRange(0, MAX_FPS, min_open=not stills_only),
                          help=fps_help)(fn)
        return click.option("--film/--no-film", "film", default=default, show_default=True,
                            help=what)(fn)
    return decorate


# A suite run without a fault has no guard, so no record lines to take stills after: the
# harness's camera films by screencast only, and a rate of 0 would film nothing.
film_options = _options(FILM_RUNS_BY_DEFAULT, GUARD_FILMS, RUNS_DEFAULT_FPS, True, GUARD_FPS)
suite_film_options = _options(FILM_SUITE_RUNS_BY_DEFAULT, SUITE_FILMS, DEFAULT_FPS, False,
                              SUITE_FPS)


def film_policy(film: bool, fps: float) -> FilmPolicy | None:
    """What the two options ask for: the film's policy, or None for no film."""
    return FilmPolicy(fps=fps) if film else None
