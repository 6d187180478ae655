"""`ajantik gauntlet`: run an agent many times per variant, judge every run from the
shop's own state, and report reliability with intervals."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import tempfile
from collections.abc import Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from ajantik_cdp.browser.endpoints import EndpointScrubber
from ajantik_cdp.browser.locate import find_chrome
from ajantik_cdp.ci.gauntlet_outputs import gauntlet_outputs
from ajantik_cdp.cli.ci_publish import check_junit, junit_option, publish
from ajantik_cdp.cli.console import command_console
from ajantik_cdp.cli.env_options import from_environment
from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.cli.film_options import film_policy, suite_film_options
from ajantik_cdp.cli.logging_setup import configure
from ajantik_cdp.core.errors import (
    EXIT_BAD_INPUT,
    EXIT_CHROME,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    AjantikError,
)
from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.gauntlet.report.preset_table import MatrixRun, preset_markdown
from ajantik_cdp.gauntlet.report.progress_display import SuiteProgress
from ajantik_cdp.gauntlet.report.report_page import render_report
from ajantik_cdp.gauntlet.report.terminal_tables import (
    agent_failure_lines,
    comparison_table,
    summary_headline,
    summary_table,
)
from ajantik_cdp.gauntlet.run.doctor import TRY_MODES, agent_checks, checks
from ajantik_cdp.gauntlet.run.executor import ShopAccess
from ajantik_cdp.gauntlet.run.placement import Placement, resolve_placement
from ajantik_cdp.gauntlet.run.resume import Resumed, resume_from
from ajantik_cdp.gauntlet.run.suite_loading import load_suite
from ajantik_cdp.gauntlet.run.suite_session import (
    REPORT,
    RESULTS,
    SessionOutcome,
    result_order,
    run_session,
)
from ajantik_cdp.gauntlet.score.comparison import compare
from ajantik_cdp.gauntlet.score.results_file import load_results, read_results
from ajantik_cdp.gauntlet.score.scoring import Scored, score
from ajantik_cdp.gauntlet.score.suite_summary import summarise_suite
from ajantik_cdp.gauntlet.suite.demo_suite import DEMO_SUITE_YAML, demo_suite
from ajantik_cdp.gauntlet.suite.suite_file import MAX_RETRIES, PRESETS, CommandAgentSpec, Suite
from ajantik_cdp.gauntlet.suite.variant_set import FAULT_VARIANTS, UI_VARIANTS
from ajantik_cdp.output_folder import make_parent, prepare

T = TypeVar("T")
NAME = "ajantik gauntlet"
DEFAULT_WORKERS = 4


def _console() -> Console:
    return command_console()


def _quiet_guards(verbose: bool) -> None:
    configure(NAME, verbose)
    if not verbose:
        # Every fault run's guard logs its fault and its lack of deny rules; the report
        # already says both.
        logging.getLogger("ajantik").setLevel(logging.ERROR)


def _shop_access(command: str, shop_url: str | None) -> ShopAccess | None:
    if shop_url is None:
        return None
    secret = os.environ.get("AJANTIK_SHOP_SECRET")
    if not secret:
        raise CommandFailed(command, "--shop needs the shop's evaluator secret in "
                            "$AJANTIK_SHOP_SECRET", 2)
    return ShopAccess(shop_url.rstrip("/"), secret)


async def _stoppable(work: Coroutine[Any, Any, T]) -> T:
    """Ctrl-C or SIGTERM cancel the suite: runs in flight are torn down (their browsers,
    guards and agents with them) and the runs that finished are still written. Set here
    because a shell starts background jobs with SIGINT ignored."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    signals = (signal.SIGINT, signal.SIGTERM)
    for sig in signals:
        loop.add_signal_handler(sig, task.cancel)
    try:
        return await work
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)


def _where(placement: Placement, count: int) -> str:
    if placement.browsers:
        return f"{counted(len(placement.browsers), 'remote browser')}"
    if placement.executor == "ray":
        cluster = (f"the Ray cluster at {placement.ray_address}" if placement.ray_address
                   else "a Ray instance of this machine's own")
        return f"{counted(count, 'worker')} on {cluster}"
    return counted(count, "worker")


def execute(command: str, suite: Suite, out_dir: Path, workers: int | None,
            shop: ShopAccess | None = None, *, quiet: bool = False,
            placement: Placement | None = None, resume: Resumed | None = None,
            junit_path: Path | None = None, film: FilmPolicy | None = None
            ) -> SessionOutcome:
    """Run a suite with progress on the terminal; the errors a person can cause become
    one line (with every remote browser's endpoint scrubbed from it). The CI outputs
    (``--junit``, GitHub's annotations and step summary) follow the results file."""
    placement = placement or Placement()
    check_junit(junit_path)  # first: a refused path leaves no results folder behind
    if resume is None:
        prepare(out_dir, "gauntlet")
    console = _console()
    count = min(workers or suite.workers, suite.run_count)
    if placement.browsers:
        count = len(placement.browsers)  # one run at a time each
    for warning in suite.warnings:
        click.echo(f"note: {warning}")
    if placement.shop_host and placement.shop_host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"note: the shop listens on {placement.shop_host}: anyone who reaches it "
                   "can shop there; its evaluator endpoints need the secret")
    click.echo(f"{command}: {suite.name}: {suite.agent.describe()}, "
               f"{counted(len(suite.variants), 'variant')} x {suite.repetitions} = "
               f"{counted(suite.run_count, 'run')} on {_where(placement, count)}; "
               f"writing to {out_dir}/")
    todo = suite.run_count - (len(resume.kept) if resume else 0)
    if resume is not None:
        click.echo(f"resuming: {counted(len(resume.kept), 'finished run')} kept, {todo} to run")
    progress = SuiteProgress(todo, console, lines=None if not quiet else True)
    scrub = EndpointScrubber(placement.browsers).scrub
    # What finished, for the CI outputs of a suite that is interrupted (the session then
    # raises, after writing its files): the kept runs of a resumed one count too.
    finished = [score(r, suite.task.expect) for r in resume.kept] if resume else []

    def done(s: Scored) -> None:
        finished.append(s)
        progress.done(s)

    try:
        with progress:
            outcome = asyncio.run(_stoppable(run_session(
                suite, out_dir, workers=count, on_done=done, shop=shop,
                placement=placement, resume=resume, film=film)))
    except asyncio.CancelledError:
        _publish_interrupted(command, suite, finished, junit_path)
        raise CommandFailed(command, _interrupted(out_dir, len(finished), suite.run_count),
                            EXIT_INTERRUPTED) from None
    except OSError as exc:  # the shop could not bind, the folder vanished...
        raise CommandFailed(command, scrub(str(exc)), EXIT_BAD_INPUT) from None
    except AjantikError as exc:  # no Ray, a cluster or a browser that cannot be reached
        raise CommandFailed(command, scrub(str(exc)), exc.exit_code) from None
    except Exception as exc:
        if not placement.browsers or os.environ.get("AJANTIK_DEBUG"):
            raise
        # A bug of ours, but its text may quote an endpoint: scrubbed like the rest.
        raise CommandFailed(command, f"internal error: {scrub(repr(exc))} (set "
                            "AJANTIK_DEBUG=1 for the traceback)", EXIT_INTERNAL) from None
    console.print(summary_table(outcome.summary, suite.repetitions))
    click.echo(summary_headline(outcome.summary))
    for line in agent_failure_lines(outcome.runs):
        click.echo(f"  {line}")
    for c in outcome.summary.failed_checks:
        click.echo(f"  not met: {c.scope}: {c.detail}")
    if not outcome.summary.failed_checks:
        click.echo("  every threshold met" if outcome.summary.checks else
                   "  no thresholds set")
    lost = [n for n in outcome.data.get("notes", []) if "lost to infrastructure" in n]
    for n in lost:
        click.echo(f"  infrastructure: {n}")
    click.echo(f"{counted(len(outcome.runs), 'run')} in {outcome.seconds:.0f}s. "
               f"Results: {outcome.results}  Report: {outcome.report.resolve()}")
    publish(command, gauntlet_outputs(suite.name, outcome.runs, outcome.summary,
                                      seconds=outcome.seconds,
                                      timestamp=outcome.data.get("started_at")), junit_path)
    return outcome


def _publish_interrupted(command: str, suite: Suite, finished: list[Scored],
                         junit_path: Path | None) -> None:
    """The CI outputs of an interrupted suite: the runs that finished as they are, every
    other run an error (not run), the thresholds undecided."""
    runs = result_order(suite, finished)
    summary = summarise_suite(runs, suite.variants, suite.repetitions, suite.confidence,
                              suite.thresholds)
    ids = {s.result.run_id for s in runs}
    unfinished = [(v, run) for v, _, run in suite.planned_runs if run not in ids]
    try:
        publish(command, gauntlet_outputs(suite.name, runs, summary, unfinished=unfinished),
                junit_path)
    except CommandFailed as exc:  # the interrupt is the news; the junit trouble is a note
        click.echo(f"{command}: {exc}", err=True)


def _interrupted(out_dir: Path, done: int, planned: int) -> str:
    """What an interrupted suite left: the files are written for whatever finished (zero
    runs included), so say where; if they could not be written, say that instead."""
    results = out_dir / RESULTS
    if not results.is_file():
        return f"interrupted after {done} of {counted(planned, 'run')}; nothing was written"
    if done == 0:
        return (f"interrupted before any run finished; {results} and {out_dir / REPORT} "
                "say so (0 runs, interrupted)")
    return (f"interrupted after {done} of {counted(planned, 'run')}; what finished is in "
            f"{results} "
            f"(carry on with --resume {out_dir})")


@click.group("gauntlet")
def gauntlet_group() -> None:
    """Perturbation suites: run an agent many times per variant of the bundled shop,
    judge every run from the shop's own state, report reliability with intervals.

    \b
    ajantik gauntlet demo                  the bundled suite: reference agent, no API key
    ajantik gauntlet run gauntlet.yaml     your suite (docs/gauntlet.md)
    ajantik gauntlet compare a.json b.json did reliability move, and which variant moved it
    ajantik gauntlet doctor [SUITE]        what is installed, which browser, what would run
    ajantik gauntlet matrix                the preset x variant table for the docs
    ajantik gauntlet report results.json   the HTML report again, from a results file

    Exit codes: 0 every threshold met, 1 one is not (or a regression, for compare),
    2 a bad suite file or bad arguments, 3 no usable Chrome, 130 interrupted.
    """


OUT = click.option("--out", "out_dir", default="gauntlet-results", show_default=True,
                   type=click.Path(path_type=Path),
                   help="Folder for results.json, report.html and each run's screenshot, "
                   "record, film and agent output. A folder from an earlier gauntlet is replaced; "
                   "any other non-empty folder is refused.")
WORKERS = click.option("--workers", type=click.IntRange(1, 16), default=None,
                       help="Runs at a time, each on a headless Chromium of its own "
                       "[default: the suite's workers].")
VERBOSE = click.option("-v", "--verbose", is_flag=True, help="Show the guards' log lines.")
JUNIT = junit_option("one testcase per run and per threshold (<failure> for a run that "
                     "failed, silent wrong and damage among them, and for a missed "
                     "threshold; <error> for a run our side could not judge)")


@from_environment("AJANTIK_GAUNTLET_RUN")
@gauntlet_group.command("run")
@click.argument("suite_file", type=click.Path(path_type=Path, dir_okay=False))
@OUT
@WORKERS
@click.option("--shop", "shop_url", metavar="URL",
              help="Use a shop already running (`ajantik shop`) instead of one in this "
              "process; its evaluator secret comes from $AJANTIK_SHOP_SECRET.")
@click.option("--executor", type=click.Choice(("local", "ray")), default=None,
              help="Where runs run: headless Chromiums on this machine, or on every node "
              "of a Ray cluster (pip install 'ajantik-cdp[ray]'; docs/scale.md) "
              "[default: the suite's executor, else local].")
@click.option("--ray-address", metavar="ADDR",
              help="Join the Ray cluster at ADDR (e.g. 10.0.0.5:6379, or auto) instead of "
              "starting a Ray instance of this machine's own; implies --executor ray.")
@click.option("--shop-host", metavar="HOST",
              help="Address the in-process shop listens on, one the browsers can reach "
              "[default: loopback; with Ray, the address the nodes reach this machine at].")
@click.option("--browser", "browser_urls", metavar="URL", multiple=True,
              help="A remote browser's DevTools endpoint (http://host:port or ws://...), "
              "used instead of local Chromium, one run at a time; repeat for more. An "
              "endpoint is a credential: it is never written anywhere.")
@click.option("--retries", type=click.IntRange(0, MAX_RETRIES), default=None,
              help="Times a run lost with its browser or node is run again on another "
              "worker [default: the suite's retries, else 1].")
@click.option("--resume", "resume_dir", metavar="OUT", type=click.Path(path_type=Path),
              help="Carry on an interrupted suite in its folder OUT: the runs in "
              "OUT/results.json are kept, the rest (and any lost to infrastructure) run, "
              "the summary covers all. A suite file changed since is refused.")
@suite_film_options
@JUNIT
@VERBOSE
def gauntlet_run_command(suite_file: Path, out_dir: Path, workers: int | None,
                         shop_url: str | None, executor: str | None, ray_address: str | None,
                         shop_host: str | None, browser_urls: tuple[str, ...],
                         retries: int | None, resume_dir: Path | None, film: bool,
                         film_fps: float, junit_path: Path | None, verbose: bool) -> int:
    """Run the suite in SUITE_FILE (YAML, version 1; see docs/gauntlet.md).

    Every run gets a fresh shop run and a fresh browser context set up as its variant
    requires; the agent works under the suite's deadline; the shop's own state is then
    judged against the task. Fault variants put a guard with that fault in front of the
    browser. Every run is filmed into its folder unless --no-film is given (by its
    guard, or by the harness's own camera where there is none; pages at the suite's
    `redact` URLs never), and report.html shows a player per run.
    The browsers are headless Chromiums on this machine, remote browsers
    (--browser), or Chromiums on the nodes of a Ray cluster (--executor ray); where a
    run ran never changes how it is judged. A run lost with its browser or node is
    infrastructure, run again on another worker (--retries). Exit code 0 when every
    threshold is met, 1 when one is not, 2 for a bad suite file (every problem in one
    message) or options that do not fit together, 3 when no browser can be used, 130
    when interrupted (what finished is kept and reported).

    Every option can also be set in the environment variable named after it (below);
    the command line wins.
    """
    name = f"{NAME} run"
    suite = load_suite(suite_file)
    resume = None
    if resume_dir is not None:
        if click.get_current_context().get_parameter_source("out_dir") is \
                click.core.ParameterSource.COMMANDLINE and out_dir != resume_dir:
            raise CommandFailed(name, "--resume OUT writes into OUT; leave --out out", 2)
        out_dir = resume_dir
        resume = resume_from(resume_dir, suite)
    shop = _shop_access(name, shop_url)
    placement = resolve_placement(suite, executor=executor, ray_address=ray_address,
                                  browsers=browser_urls, shop_host=shop_host, retries=retries)
    if shop is not None and shop_host is not None:
        raise CommandFailed(name, "--shop-host is for the shop this command starts; with "
                            "--shop the shop is already listening", 2)
    _quiet_guards(verbose)
    if placement.executor == "ray":
        from ajantik_cdp.gauntlet.run.ray_executor import (
            check_installed,
            check_reachable,
            import_ray,
        )

        # Before anything is written: is the extra there, does the cluster answer, does
        # Ray import? In that order: the first two take no time, Ray's import a second.
        check_installed()
        if placement.ray_address:
            check_reachable(placement.ray_address)
        import_ray(own_instance=placement.ray_address is None)
    elif not placement.browsers:
        find_chrome()  # before anything is written: a missing browser is the usual failure
    return execute(name, suite, out_dir, workers, shop, placement=placement,
                   resume=resume, junit_path=junit_path,
                   film=film_policy(film, film_fps)).summary.exit_code


@gauntlet_group.command("demo")
@OUT
@WORKERS
@click.option("--preset", type=click.Choice(PRESETS), default="reference", show_default=True,
              help="The reference agent's capability.")
@click.option("--repetitions", type=click.IntRange(1, 20), default=2, show_default=True)
@click.option("--print-suite", is_flag=True,
              help="Print the demo's suite file (a starting point for yours) and exit.")
@suite_film_options
@JUNIT
@VERBOSE
def gauntlet_demo_command(out_dir: Path, workers: int | None, preset: str, repetitions: int,
                 print_suite: bool, film: bool, film_fps: float, junit_path: Path | None,
                 verbose: bool) -> int:
    """The bundled suite: the reference agent over all 15 variants (11 UI, 4 write
    faults), twice each, against the 0.9 reliability threshold. No network, no API key.

    With the default preset it fails that threshold on purpose (exit code 1): the
    reference preset stops and says so where a capable agent recovers (an expired
    session, a phantom add, a 503 on the coupon, a save that answered 500), and an
    honest give-up is not the task done. The headline says how often the shop was done
    right. `--preset resilient` recovers from all of them.
    """
    if print_suite:
        click.echo(DEMO_SUITE_YAML, nl=False)
        return 0
    name = f"{NAME} demo"
    _quiet_guards(verbose)
    find_chrome()  # before anything is written: a missing browser is the usual failure
    suite = demo_suite(preset, repetitions)
    return execute(name, suite, out_dir, workers or DEFAULT_WORKERS,
                   junit_path=junit_path, film=film_policy(film, film_fps)).summary.exit_code


@gauntlet_group.command("compare")
@click.argument("before", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("after", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--tolerance", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="A drop in reliability up to this much is not a regression.")
@click.option("--only-significant", is_flag=True,
              help="Count a drop only when its Newcombe interval excludes 0 (rare with a "
              "few repetitions).")
def compare_command(before: Path, after: Path, tolerance: float,
                    only_significant: bool) -> int:
    """Compare two results.json files: per variant, before against after, with the
    interval of the change. Only the variants both files ran are compared; anything else
    that differs (variants, agent, task, repetitions) is said in one line. A results
    file of version 1 is scored again from its evidence under today's rules, and the
    output says so.

    Exit code 1 when a variant regressed (its reliability fell, or it has more silent
    wrongs or more damage), naming the variants; 0 otherwise; 2 for a file that is not a
    results file, or two files with no variant in common."""
    name = f"{NAME} compare"
    views = []
    for path in (before, after):
        try:
            views.append(read_results(path.read_bytes(), str(path)))
        except OSError as exc:
            raise CommandFailed(name, f"cannot read {path}: {exc.strerror or exc}", 2) \
                from None
    result = compare(views[0], views[1], tolerance=tolerance,
                     only_significant=only_significant)
    for note in result.notes:
        click.echo(f"note: {note}")
    differs = result.differences_line()
    if differs:
        click.echo(f"note: {differs}")
    _console().print(comparison_table(result))
    if result.overall is not None:
        o = result.overall
        a, b = (v.pooled(result.compared) for v in (result.before, result.after))
        click.echo(f"overall ({counted(len(result.moves), 'variant')} both ran): reliability "
                   f"{o.estimate * 100:+.0f} points ({o.low * 100:+.0f} to "
                   f"{o.high * 100:+.0f}); silent failures {a.silent_failures}/{a.scored} "
                   f"-> {b.silent_failures}/{b.scored}")
    if result.regressions:
        moved = "; ".join(f"{m.variant} ({', '.join(m.reasons)})" for m in result.regressions)
        click.echo(f"regressed: {moved}")
        return 1
    improved = [m.variant for m in result.moves if m.improved]
    click.echo("no regression" + (f"; improved: {', '.join(improved)}" if improved else ""))
    return 0


@gauntlet_group.command("doctor")
@click.argument("suite_file", required=False, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--no-launch", is_flag=True, help="Do not start the browser to check it.")
@click.option("--try-agent", "try_agent", type=click.Choice(TRY_MODES), is_flag=False,
              flag_value="dry", default=None,
              help="For a command agent: start it once. `version` runs its program with "
              "--version; `dry` (the default of the bare flag) runs the whole command as a "
              "run would, with AJANTIK_DRY_RUN=1 and no browser behind CDP_URL, so a "
              "missing import shows here rather than in every run.")
def doctor_command(suite_file: Path | None, no_launch: bool, try_agent: str | None) -> int:
    """What is installed, which browser would run, and, given a SUITE_FILE, what it
    would run: the expected state, the runs, and for a command agent which program its
    `run` resolves to (and, with --try-agent, whether it starts). Exit code 0 when a
    suite could run, 2 for a bad suite file, a missing part (Python, Playwright) or a
    tried agent that fails, 3 when the browser is missing or does not start."""
    name = f"{NAME} doctor"
    suite = None
    if suite_file is not None:
        suite = load_suite(suite_file)
    if try_agent is not None and not (suite is not None
                                      and isinstance(suite.agent, CommandAgentSpec)):
        raise CommandFailed(name, "--try-agent needs a SUITE_FILE with a command agent", 2)
    found = checks(launch=not no_launch)
    if suite is not None and isinstance(suite.agent, CommandAgentSpec):
        found += agent_checks(suite.agent, task_name=suite.task.name,
                              task_text=suite.task.description, deadline=suite.deadline,
                              try_mode=try_agent)
    for c in found:
        click.echo(f"  {'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    click.echo(f"  variants: {len(UI_VARIANTS)} of the shop ({', '.join(UI_VARIANTS)}) and "
               f"{len(FAULT_VARIANTS)} write faults ({', '.join(FAULT_VARIANTS)})")
    if suite is not None:
        e = suite.task.expect
        click.echo(f"suite {suite.source}: {suite.name}")
        click.echo(f"  agent: {suite.agent.describe()}")
        if isinstance(suite.agent, CommandAgentSpec) and try_agent is None:
            click.echo("  (--try-agent starts it once, without a browser)")
        click.echo(f"  expected state ({suite.task.expect_source}): cart "
                   f"{dict(e.cart)}, coupon {e.coupon}, checkout {dict(e.checkout)}, "
                   f"stage {e.stage}, no purchase; total {e.total_cents() / 100:.2f} EUR")
        click.echo(f"  {counted(len(suite.variants), 'variant')} x "
                   f"{counted(suite.repetitions, 'repetition')} = "
                   f"{counted(suite.run_count, 'run')}, {suite.workers} at a time, "
                   f"{suite.deadline:g}s each at most")
        for w in suite.warnings:
            click.echo(f"  note: {w}")
    if not all(c.ok for c in found):
        failed = next(c for c in found if not c.ok)
        code = EXIT_CHROME if failed.name in ("browser", "headless start") else EXIT_BAD_INPUT
        raise CommandFailed(name, f"{failed.name}: {failed.detail}", code)
    return 0


@gauntlet_group.command("matrix")
@click.option("--out", "out_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the Markdown table here (e.g. docs/presets.md) instead of stdout.")
@click.option("--repetitions", type=click.IntRange(1, 20), default=2, show_default=True)
@WORKERS
@click.option("--keep", "keep_dir", type=click.Path(path_type=Path, file_okay=False),
              help="Keep each preset's results and report in this folder.")
def matrix_command(out_file: Path | None, repetitions: int, workers: int | None,
                   keep_dir: Path | None) -> int:
    """Measure every reference-agent preset (naive, reference, resilient) over every
    variant, and write the preset x variant table as Markdown. Every number comes from
    runs made by this command."""
    name = f"{NAME} matrix"
    _quiet_guards(False)
    find_chrome()  # before anything is written: a missing browser is the usual failure
    runs: list[MatrixRun] = []
    if out_file is not None:
        make_parent(out_file, "--out")
    if keep_dir is not None:
        prepare(keep_dir, "gauntlet-matrix", "--keep")
    base = keep_dir or Path(tempfile.mkdtemp(prefix="ajantik-matrix-"))
    browser = "unknown"
    load_at_start = os.getloadavg()[0]
    for preset in PRESETS:
        suite = demo_suite(preset, repetitions)
        outcome = execute(name, suite, base / preset, workers or DEFAULT_WORKERS, quiet=True)
        browser = str(outcome.data["environment"]["browser"])
        runs.append(MatrixRun(preset, outcome.summary, outcome.seconds))
    suite = demo_suite("reference", repetitions)
    command = "ajantik gauntlet matrix" + (f" --out {out_file}" if out_file else "") + (
        f" --repetitions {repetitions}" if repetitions != 2 else "")
    text = preset_markdown(
        runs, suite.variants, command=command,
        generated=datetime.now(UTC).strftime("%Y-%m-%d"),
        environment={"browser": browser, "workers": str(workers or DEFAULT_WORKERS),
                     "cpus": str(os.cpu_count()),
                     "load average": f"{load_at_start:.0f} at start, "
                                     f"{os.getloadavg()[0]:.0f} at end"},
        repetitions=repetitions)
    if out_file is None:
        click.echo(text)
    else:
        try:
            out_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            click.echo(text)  # hours of runs are not lost to a full disk
            raise CommandFailed(name, f"cannot write {out_file}: {exc.strerror or exc}") \
                from None
        click.echo(f"wrote {out_file}")
    return 0


@gauntlet_group.command("report")
@click.argument("results_file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--out", "out_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Where to write the page [default: report.html next to the results].")
def report_command(results_file: Path, out_file: Path | None) -> int:
    """Write the HTML report again from a results.json (screenshots are read from the
    runs/ folder next to it). A version 1 file is scored again under today's rules."""
    from ajantik_cdp.gauntlet.run.run_films import films_for
    from ajantik_cdp.gauntlet.run.suite_session import screenshots_for

    name = f"{NAME} report"
    try:
        loaded = load_results(results_file.read_bytes(), str(results_file))
    except OSError as exc:
        raise CommandFailed(name, f"cannot read {results_file}: {exc.strerror or exc}", 2) \
            from None
    note = loaded.note(str(results_file))
    if note:
        click.echo(f"note: {note}")
    data = loaded.data
    target = make_parent(out_file or results_file.with_name("report.html"), "--out")
    page = render_report(data, screenshots_for(results_file.parent, data),
                         films_for(results_file.parent, data, target.parent))
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise CommandFailed(name, f"cannot write {target}: {exc.strerror or exc}") from None
    click.echo(f"wrote {target}")
    return 0
