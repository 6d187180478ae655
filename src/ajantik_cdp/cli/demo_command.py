"""`ajantik demo`: the whole loop on this machine, offline, in under a minute."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

import click
import orjson
from rich.console import Console

from ajantik_cdp.browser.locate import find_chrome
from ajantik_cdp.cli.logging_setup import configure
from ajantik_cdp.demo.plan import RunOutcome, conclusions, plan
from ajantik_cdp.demo.runner import run_demo
from ajantik_cdp.demo.summary import CAPTION, demo_data, demo_page, matrix_table
from ajantik_cdp.judge.verdict_page import render_page
from ajantik_cdp.output_folder import prepare

NAME = "ajantik demo"


@click.command("demo")
@click.option("--out", "out_dir", default="ajantik-demo", show_default=True,
              type=click.Path(path_type=Path),
              help="Folder for the records, reports, verdicts and report.html. A folder "
              "from an earlier demo is replaced; any other non-empty folder is refused.")
@click.option("--workers", default=min(2, os.cpu_count() or 1), show_default=True,
              type=click.IntRange(1, 4),
              help="Runs at a time, each on a headless Chromium of its own.")
# The old spelling, before `--workers` was the one name (as in `ajantik gauntlet`).
@click.option("--jobs", "old_jobs", type=click.IntRange(1, 4), hidden=True)
@click.option("-v", "--verbose", is_flag=True, help="Show the guards' log lines.")
def demo_command(out_dir: Path, workers: int, old_jobs: int | None, verbose: bool) -> int:
    """Crash-test two scripted skills on a local registry portal and judge every run.

    Starts the portal-pilot example (a registry portal on loopback), headless Chromium
    and the guard. A blind skill (trusts every answer) and a verifying skill (reads its
    writes back) each run once clean and once per fault kind: phantom_success,
    transient_error, phantom_failure, session_drop. Every run is judged from its own
    record by `ajantik test judge`'s code and the example's adapter, then checked
    against the portal's own state. Prints the verdict matrix and writes an HTML report.
    No network, no API key.

    Exit code 0 when the demo showed what it claims (see the conclusions it prints),
    1 otherwise.
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
    specs = plan()
    console = Console(highlight=False)
    click.echo(f"{NAME}: {len(specs)} runs ({workers} at a time), writing to {out_dir}/")
    done: list[RunOutcome] = []

    def progress(o: RunOutcome) -> None:
        done.append(o)
        verdicts = ", ".join(f"{u.unit} {u.verdict.label}" for u in o.judgement.units)
        damage = f"; damage: {', '.join(d.kind for d in o.judgement.damage)}" if (
            o.judgement.damage) else ""
        gate = "pass" if o.gate().passed else f"FAIL ({o.gate().outcome.label})"
        click.echo(f"  [{len(done)}/{len(specs)}] {o.spec.label:<28} {verdicts}{damage}; "
                   f"gate {gate} ({o.seconds:.1f}s)")

    started = time.monotonic()
    outcomes = asyncio.run(run_demo(specs, out_dir, progress, workers=workers))
    seconds = time.monotonic() - started
    found = conclusions(outcomes)
    console.print(matrix_table(outcomes))
    click.echo(CAPTION)
    for c in found:
        click.echo(("  ok   " if c.holds else "  FAIL ") + c.text)
    report = out_dir / "report.html"
    report.write_text(render_page(demo_page(outcomes, found, seconds)), encoding="utf-8")
    (out_dir / "demo.json").write_bytes(orjson.dumps(demo_data(outcomes, found, seconds),
                                                     option=orjson.OPT_INDENT_2) + b"\n")
    click.echo(f"{len(outcomes)} runs in {seconds:.0f}s. Report: {report.resolve()}")
    return 0 if all(c.holds for c in found) else 1
