"""`ajantik demo`: `ajantik test run` on the bundled portal, offline, in under a minute."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import click

from ajantik_cdp.browser.locate import find_chrome
from ajantik_cdp.cli.console import command_console
from ajantik_cdp.cli.film_options import film_options, film_policy
from ajantik_cdp.cli.logging_setup import configure
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.demo.plan import OPTIONS, SKILLS, UPLOADS, conclusions
from ajantik_cdp.demo.runner import run_demo
from ajantik_cdp.output_folder import prepare
from ajantik_cdp.testrun.report.outputs import write_outputs
from ajantik_cdp.testrun.report.results_file import EXIT_INTERRUPTED
from ajantik_cdp.testrun.report.terminal import RunProgress, print_result

NAME = "ajantik demo"
CAPTION = (f"Each fault fires on write {OPTIONS.at.text} of {UPLOADS.label} (R-102's "
           "accounts upload). Verdicts come from each run's own record; damage is shown "
           "next to the verdict. The gate is the rule of ajantik test run: a run passes "
           "only when every unit was scored and none is silent wrong or damaged.")


@click.command("demo")
@click.option("--out", "out_dir", default="ajantik-demo", show_default=True,
              type=click.Path(path_type=Path),
              help="Folder for the records, reports, verdicts, results.json and report.html. "
              "A folder from an earlier demo is replaced; any other non-empty folder is "
              "refused.")
@click.option("--workers", default=min(2, os.cpu_count() or 1), show_default=True,
              type=click.IntRange(1, 4),
              help="Runs at a time, each on a headless Chromium of its own.")
# The old spelling, before `--workers` was the one name (as in `ajantik gauntlet`).
@click.option("--jobs", "old_jobs", type=click.IntRange(1, 4), hidden=True)
@film_options
@click.option("-v", "--verbose", is_flag=True, help="Show the guards' log lines.")
def demo_command(out_dir: Path, workers: int, old_jobs: int | None, film: bool,
                 film_fps: float, verbose: bool) -> int:
    """Crash-test two scripted skills on a local registry portal: `ajantik test run` on
    the bundled example.

    Starts the portal-pilot example (a registry portal on loopback), headless Chromium
    and, per run, a fresh guard. A blind skill (trusts every answer) and a verifying
    skill (reads its writes back) each get what `ajantik test run` gives any skill: a
    clean run, its write points, then one run per fault kind (phantom_success,
    transient_error, phantom_failure, session_drop) on the second write of POST
    /api/filings/*/documents (R-102's upload). Every run is judged from its own record
    with the example's adapter, then checked against the portal's own state. Prints the
    verdict matrices and writes results.json and report.html. No network, no API key.

    Exit code 0 when the demo showed what it claims (the conclusions it prints: the
    verifying skill passes the gate of `ajantik test run`, the blind one fails it where
    it is fooled or leaves damage, and the verdicts agree with the portal), 1 otherwise.
    """
    if old_jobs is not None:
        click.echo(f"{NAME}: note: --jobs is now --workers", err=True)
        workers = old_jobs
    configure("ajantik cdp", verbose)
    if not verbose:
        # The guards log every fault they inject; the matrix already says so.
        logging.getLogger("ajantik").setLevel(logging.ERROR)
    find_chrome()  # before anything is written: a missing browser is the usual failure
    prepare(out_dir, "demo")
    console = command_console()
    click.echo(f"{NAME}: {counted(len(SKILLS), 'skill')}, a clean run each, then "
               f"{counted(len(OPTIONS.kinds), 'fault')} each "
               f"({counted(workers, 'run')} at a time), writing to {out_dir}/")
    with RunProgress(console) as progress:
        outcome = asyncio.run(run_demo(out_dir, progress, workers=workers,
                                       film=film_policy(film, film_fps)))
    found = conclusions(outcome)
    for t in outcome.tests:
        print_result(console, t)
    click.echo(CAPTION)
    for c in found:
        click.echo(("  ok   " if c.holds else "  FAIL ") + c.text)
    runs = sum(len(t.all_runs) for t in outcome.tests)
    _, report = write_outputs(
        outcome, out_dir, title="ajantik demo: two skills, four faults, verdicts from the "
        "record",
        intro=(f"{counted(runs, 'run')} in {outcome.seconds:.0f}s. A blind skill trusts "
               "every answer the portal's page shows; a verifying skill reads its writes "
               "back. Each got what ajantik test run gives any skill: a clean run, then one "
               "run per fault on R-102's accounts upload, each through a fresh guard, judged "
               "from its own record only, then checked against the portal's own state. " + CAPTION),
        command=["ajantik", "demo"], conclusions=tuple((c.holds, c.text) for c in found))
    click.echo(f"{counted(runs, 'run')} in {outcome.seconds:.0f}s. Report: {report.resolve()}")
    if outcome.interrupted:
        click.echo(f"{NAME}: interrupted: the runs that finished are kept and reported",
                   err=True)
        return EXIT_INTERRUPTED
    return 0 if found and all(c.holds for c in found) else 1
