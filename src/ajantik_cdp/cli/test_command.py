"""`ajantik test`: judge one run, or crash-test a skill on its own system.

``ajantik test plan`` shows what ``ajantik test run`` would run (from a clean run's record
or the adapter's own write points) and touches nothing; ``ajantik test run`` runs it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import click
from rich.console import Console

from ajantik_cdp.ci.judge_outputs import runs_outputs
from ajantik_cdp.cli.ci_publish import check_junit, junit_option, publish
from ajantik_cdp.cli.console import command_console
from ajantik_cdp.cli.errors import CommandFailed
from ajantik_cdp.cli.film_options import film_options, film_policy
from ajantik_cdp.cli.judge_command import judge_command
from ajantik_cdp.cli.logging_setup import configure
from ajantik_cdp.config_file import config_path as config_file
from ajantik_cdp.config_file import load_config_file
from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.config import ConfigError, GuardConfig
from ajantik_cdp.core.scoring.run_gate import GatePolicy
from ajantik_cdp.judge.adapter_api import Record, RecordUnusable
from ajantik_cdp.judge.adapter_loader import Adapter, AdapterError, load_adapter
from ajantik_cdp.output_folder import check_results_folder, prepare
from ajantik_cdp.proxy.upstream import GuardStartError, parse_upstream, reach_upstream
from ajantik_cdp.testrun.adapter_hooks import AdapterHooks
from ajantik_cdp.testrun.plan.run_plan import (
    CLEAN,
    At,
    Plan,
    PlanError,
    parse_kinds,
    plan_from_points,
    plan_from_writes,
)
from ajantik_cdp.testrun.plan.write_points import Write, WritePoint
from ajantik_cdp.testrun.report.outputs import write_outputs
from ajantik_cdp.testrun.report.results_file import exit_code
from ajantik_cdp.testrun.report.terminal import RunProgress, plan_lines, print_result
from ajantik_cdp.testrun.run.command_skill import CommandSkill
from ajantik_cdp.testrun.run.runner import (
    RunOptions,
    SessionResult,
    SkillTest,
    SkillTestResult,
    by_operator,
    operator_windows,
    run_tests,
)
from ajantik_cdp.testrun.run.workspace import CommandSystem

RUN = "ajantik test run"
PLAN = "ajantik test plan"
DEFAULT_DEADLINE = 600.0

_file = click.Path(path_type=Path, dir_okay=False)


@click.group("test")
def test_group() -> None:
    """Score a skill's runs from the guard's record, or crash-test it under every fault.

    \b
    ajantik test judge   verdicts per unit of work for one run: correct, silent wrong, ...
    ajantik test plan    what `test run` would run, from a clean run's record; runs nothing
    ajantik test run     a clean run, then one run per write point x fault kind, judged
    """


test_group.add_command(judge_command)


def _shared(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The options both commands take, so that swapping `run` for `plan` in a command
    line shows what it would run."""
    options = [
        click.option("--adapter", "adapter_path", type=_file, metavar="ADAPTER.py",
                     help="The skill's judge adapter (docs/adapter.md): units, what the "
                     "system holds, what the report claims; optionally report(), "
                     "write_points() and operator()."),
        click.option("--upstream", metavar="URL",
                     help="The Chrome the skill works in (a person logged in), e.g. "
                     "http://127.0.0.1:9335. Each run gets a fresh guard in front of it."),
        click.option("--config", "config_path", metavar="GUARD.json|example:NAME",
                     help="Guard rules (deny, deny_clicks, allow_writes, record, redact), "
                     "as for `ajantik cdp`, which names the shipped examples."),
        click.option("--before", metavar="COMMAND",
                     help="A shell command run before every run, the clean one too, to "
                     "reset the test workspace. If it fails, the test stops there, with "
                     "its output; nothing is judged on a workspace that was not reset."),
        click.option("--faults", "faults_text", metavar="KIND,...",
                     help="Fault kinds to test (default: all four): phantom_success, "
                     "transient_error, phantom_failure, session_drop."),
        click.option("--at", "at_text", default="first", show_default=True,
                     metavar="first|last|N",
                     help="Which write of each write point takes the fault. 'last' hits "
                     "late in the work, where it hurts."),
        click.option("--reps", default=1, show_default=True, type=click.IntRange(1, 100),
                     help="Runs per write point x fault kind. Above 1, every cell gets a "
                     "95% Wilson interval."),
        click.option("--only", "only_points", multiple=True, metavar="'METHOD /path/*'",
                     help="Fault only this write point (repeatable), as the plan prints "
                     "it, e.g. 'POST /api/filings/*/documents'."),
        click.option("--deadline", default=DEFAULT_DEADLINE, show_default=True,
                     type=click.FloatRange(1), metavar="SECONDS",
                     help="Per run: the skill (and the operator's work) is stopped at this "
                     "deadline and the run counts as timed out. --before gets as long."),
        click.option("--allow-unscorable", is_flag=True,
                     help="Let units the record or the report cannot show pass the gate "
                     "(the output says which); they are never counted as correct."),
        click.option("--allow-incomplete-record", is_flag=True,
                     help="Judge a run whose record disagrees with its own end line (a "
                     "recorded request without its line, an answer line missing) instead "
                     "of failing it as infrastructure; the output names each one."),
        click.option("--yes", "-y", is_flag=True,
                     help="Do not ask before the clean run and before the plan (for CI). "
                     "Without a terminal, --yes is required."),
        click.option("--out", "out_dir", default="ajantik-test-run", show_default=True,
                     type=click.Path(path_type=Path),
                     help="Folder for every run's record, report and verdicts, "
                     "results.json and report.html. A folder from an earlier test run is "
                     "replaced; any other non-empty folder is refused."),
        click.option("-v", "--verbose", is_flag=True, help="Show the guards' log lines."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


@click.command("plan", context_settings={"allow_interspersed_args": False})
@click.option("--record", "record_path", type=_file, metavar="CLEAN.jsonl",
              help="The record of a clean run of the skill (e.g. runs/00-clean/"
              "ajantik-cdp.jsonl of an earlier test run, or `ajantik cdp --record`).")
@_shared
@film_options
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def plan_command(record_path: Path | None, adapter_path: Path | None, upstream: str | None,
                 config_path: str | None, before: str | None, faults_text: str | None,
                 at_text: str, reps: int, only_points: tuple[str, ...], deadline: float,
                 allow_unscorable: bool, allow_incomplete_record: bool, yes: bool,
                 out_dir: Path, verbose: bool, film: bool, film_fps: float,
                 command: tuple[str, ...]) -> int:
    """Show what `ajantik test run` would run, without running or touching anything.

    \b
    ajantik test plan --record skill-test/runs/00-clean/ajantik-cdp.jsonl -- node step.js
    ajantik test plan --adapter adapter.py --config guard.json -- node step.js

    The write points come from a clean run's record (--record: exact, with how many
    writes each makes, so --at last and --at N are aimed exactly), or else from the
    adapter's write_points(). Prints each write point, the runs (write point x fault kind
    x --reps, the fault on the --at write), and about how many un-faulted writes would
    really reach the system. Takes every option of `test run`, so the same command line
    with `plan` shows its plan; --upstream, --before, --deadline, --yes, --out and the
    film's options are not used. Exit code 0, or 2 for bad input.
    """
    kinds, at, only = _plan_options(faults_text, at_text, only_points)
    if config_path is not None:
        _load_config(config_path)
    if record_path is not None:
        plan = _plan_from_record(record_path, kinds, reps, at, only)
    elif adapter_path is not None:
        hooks = AdapterHooks(_load_adapter(adapter_path))
        if not hooks.has_write_points:
            raise BadInput(f"adapter {adapter_path} defines no write_points(): give --record "
                           "with a clean run's record (or run `ajantik test run`, which "
                           "makes one)")
        try:
            plan = plan_from_points(_adapter_call(hooks.write_points), kinds, reps, at, only)
        except PlanError as exc:
            raise BadInput(str(exc)) from None
    else:
        raise BadInput("give --record with a clean run's record, or --adapter with "
                       "write_points(): the plan is made from one of them")
    skill = " ".join(command) if command else ""
    for line in plan_lines(plan, skill):
        click.echo(line)
    click.echo("Runs:")
    for r in plan.runs:
        click.echo(f"  {r.number:>3}. {r.label}  (guard: --fault {r.fault_text} "
                   f"--fault-at {r.guard_at})")
    if not plan.runs:
        click.echo("  none")
    click.echo(f"`{RUN}` makes a clean run first, then {_these(len(plan.runs))}.")
    return 0


@click.command("run", context_settings={"allow_interspersed_args": False})
@_shared
@junit_option("one testcase per unit of every run and one per run's gate (classname: "
              "test/run), <failure> for silent wrong, damage and what the gate fails on")
@film_options
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run_command(adapter_path: Path | None, upstream: str | None, config_path: str | None,
                before: str | None, faults_text: str | None, at_text: str, reps: int,
                only_points: tuple[str, ...], deadline: float, allow_unscorable: bool,
                allow_incomplete_record: bool, yes: bool, out_dir: Path, verbose: bool,
                junit_path: Path | None, film: bool, film_fps: float,
                command: tuple[str, ...]) -> int:
    """Crash-test a skill on your own system: a clean run, then every fault, judged.

    \b
    ajantik test run --upstream http://127.0.0.1:9335 --config guard.json \\
        --adapter adapter.py --before ./reset-test-account.sh --out skill-test \\
        -- node step.js

    \b
    1. A clean run: COMMAND runs once through a fresh guard (CDP_URL set, as with
       `ajantik cdp`) and is judged. Its record's writes are grouped into write points
       (method + path, ids as *, e.g. POST /api/filings/*/documents).
    2. The plan: per write point x fault kind x --reps one run, the fault on the --at
       write of that point. It is printed with how many writes will really reach the
       system, and you are asked to go on (--yes for CI). You are asked before the clean
       run too: its writes are real.
    3. Each run: --before, a fresh guard with that fault, COMMAND under --deadline, its
       report (stdout, unless the adapter's report() says otherwise), verdicts per unit
       from the run's own record, damage. A run whose fault never fired on its write
       point is shown as such and never counted.
    4. The verdict matrix (fault x write point x unit) on the terminal, results.json
       (versioned) and report.html (each cell links to its run's verdicts and record)
       in --out. With --reps > 1, Wilson intervals.

    COMMAND is any program (put it after --). If it prints an "ask" line (one JSON
    object {"ask": "sign_in", ...}), the adapter's operator(event) acts as a person
    would and the answer is written to its stdin; the same process goes on
    (docs/adapter.md). Env: CDP_URL, AJANTIK_RUN_DIR, AJANTIK_RUN, AJANTIK_DEADLINE.

    \b
    Exit code 0 only when every run passed the gate (no silent wrong, no damage, every
    unit scored, every fault fired on its write point); 1 otherwise (also when a
    --before fails or the plan is declined); 2 for bad input; 3 when the Chrome of
    --upstream cannot be reached; 130 when interrupted (Ctrl-C, SIGTERM: the runs that
    finished are kept and reported).
    """
    if adapter_path is None:
        raise BadInput("--adapter is required: the judge needs it to score every run")
    if upstream is None:
        raise BadInput("--upstream is required: the Chrome the skill works in, e.g. "
                       "http://127.0.0.1:9335 (start one with `ajantik browser`)")
    if config_path is None:
        raise BadInput("--config is required: the guard's rules for your system (deny the "
                       "irreversible step, allow writes only where the skill may write)")
    kinds, at, only = _plan_options(faults_text, at_text, only_points)
    try:
        upstream = parse_upstream(upstream)
    except GuardStartError as exc:
        raise BadInput(str(exc)) from None
    config = _load_config(config_path)
    adapter = _load_adapter(adapter_path)
    argv = _command(command)
    interactive = sys.stdin.isatty()
    if not yes and not interactive:
        raise BadInput("it runs your skill against your real system and asks first; with "
                       "no terminal to ask on, pass --yes (for CI)")
    check_results_folder(out_dir, "test-run")
    check_junit(junit_path)
    # Before anything is written: a Chrome that is not running (or a port that is not
    # Chrome's) is the usual first failure, and it is one line.
    _check_upstream(upstream)
    configure(RUN, verbose)
    if not verbose:
        logging.getLogger("ajantik").setLevel(logging.ERROR)  # the guards' FAULT lines
    prepare(out_dir, "test-run")
    test = SkillTest("", CommandSkill(argv), CommandSystem(config, before, deadline), adapter,
                     RunOptions(kinds, reps, at, only, deadline,
                                 GatePolicy(allow_unscorable=allow_unscorable,
                                            allow_incomplete_record=allow_incomplete_record),
                                 film_policy(film, film_fps)))
    console = command_console()
    click.echo(f"{RUN}: {test.skill.label}")
    click.echo("  first a clean run through a fresh guard: every write it makes really reaches "
               "the system (use a test account)" + ("; --before runs first" if before else ""))
    outcome = asyncio.run(_main(test, upstream, out_dir, console, yes))
    for t in outcome.tests:
        print_result(console, t)
        if t.stopped:
            if t.stopped_output.strip():
                click.echo(f"{RUN}: output of --before:", err=True)
                for line in t.stopped_output.rstrip().splitlines():
                    click.echo(f"  | {line}", err=True)
            click.echo(f"{RUN}: stopped: {t.stopped}", err=True)
    results, report = write_outputs(
        outcome, out_dir, title=f"ajantik test run: {test.skill.label}",
        intro=_intro(outcome), command=[Path(sys.argv[0]).name, *sys.argv[1:]])
    code = exit_code(outcome)
    publish(RUN, runs_outputs(RUN, [(f"{r.test}/{r.planned.label}", r.judgement, r.gate)
                                    for t in outcome.tests for r in t.all_runs],
                              outcome.tests[0].test.options.policy if outcome.tests
                              else GatePolicy(), seconds=outcome.seconds,
                              not_run=_not_run(outcome)), junit_path)
    _say_end(outcome, code, results, report)
    return code


def _not_run(outcome: SessionResult) -> list[tuple[str, str]]:
    """(run, why) of every run that was due and did not run: the clean run, or the
    planned runs that an interrupt, a declined plan or a stop left undone."""
    out = []
    for t in outcome.tests:
        why = ("interrupted" if outcome.interrupted else f"the test stopped: {t.stopped}"
               if t.stopped else "the plan was declined" if outcome.declined
               else "the test ended first")
        due = [CLEAN] if t.clean is None else []
        if t.plan is not None:
            ran = {r.planned.number for r in t.runs}
            due += [p for p in t.plan.runs if p.number not in ran]
        out += [(f"{t.test.name}/{p.label}", why) for p in due]
    return out


def _intro(outcome: SessionResult) -> str:
    runs = sum(len(t.all_runs) for t in outcome.tests)
    return (f"{counted(runs, 'run')} in {outcome.seconds:.0f}s: a clean run, then one run "
            "per write point x fault kind x repetition, each through a fresh guard and judged "
            "from its own record.")


def _these(runs: int) -> str:
    """What the plan's runs are called in a question or a sentence: "this run", "these 2
    runs"."""
    return "this run" if runs == 1 else f"these {runs} runs"


def _say_end(outcome: SessionResult, code: int, results: Path, report: Path) -> None:
    if outcome.interrupted:
        click.echo(f"{RUN}: interrupted: the runs that finished are kept and reported",
                   err=True)
    elif outcome.declined:
        click.echo(f"{RUN}: the plan was declined: only the clean run ran", err=True)
    for t in outcome.tests:
        failing = [f"{r.planned.label} ({r.gate.outcome.label})" for r in t.all_runs
                   if not r.gate.passed]
        if failing and not outcome.interrupted:
            click.echo(f"{RUN}: failing: " + "; ".join(failing), err=True)
        if t.plan is not None and not t.plan.runs and not t.stopped:
            click.echo(f"{RUN}: nothing was faulted (no run is planned): that is no pass",
                       err=True)
    click.echo(f"results: {results.resolve()}")
    click.echo(f"report: {report.resolve()}")
    click.echo(f"{RUN}: exit code {code}")


async def _main(test: SkillTest, upstream: str, out_dir: Path, console: Console,
                yes: bool) -> SessionResult:
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if task is not None:  # SIGTERM stops like Ctrl-C: what finished is kept
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
    if not yes:
        try:
            if not await _ask("Start the clean run? [y/N] "):
                click.echo(f"{RUN}: nothing ran")
                return SessionResult([SkillTestResult(test, stopped="you chose not to start")], 0.0,
                               declined=True)
        except asyncio.CancelledError:
            return SessionResult([SkillTestResult(test)], 0.0, interrupted=True)
    with RunProgress(console) as progress:
        async def confirm(results: list[SkillTestResult]) -> bool:
            progress.pause()
            for r in results:
                if r.plan is not None:
                    for line in plan_lines(r.plan):
                        console.print(line, highlight=False, markup=False)
            runs = sum(len(r.plan.runs) for r in results if r.plan)
            try:
                return yes or await _ask(f"Run {_these(runs)}? [y/N] ")
            finally:
                progress.resume()

        return await run_tests([test], [upstream], out_dir, progress, confirm)


async def _ask(prompt: str) -> bool:
    """A yes/no question on the terminal, read without blocking the loop (so Ctrl-C
    stops the test at once instead of waiting for a line)."""
    loop = asyncio.get_running_loop()
    line: asyncio.Future[str] = loop.create_future()
    fd = sys.stdin.fileno()

    def readable() -> None:
        if not line.done():
            line.set_result(os.read(fd, 1024).decode(errors="replace"))

    sys.stdout.write(prompt)
    sys.stdout.flush()
    loop.add_reader(fd, readable)
    try:
        answer = await line
    finally:
        loop.remove_reader(fd)
    return answer.strip().lower() in ("y", "yes")


def _plan_options(faults_text: str | None, at_text: str, only_points: tuple[str, ...]
                  ) -> tuple[Any, At, tuple[WritePoint, ...]]:
    try:
        kinds = parse_kinds(faults_text)
        at = At.parse(at_text)
        only = tuple(WritePoint.parse(p) for p in only_points)
    except (PlanError, ValueError) as exc:
        raise BadInput(str(exc).replace("a write point is", "--only: a write point is")
                       ) from None
    return kinds, at, only


def _plan_from_record(path: Path, kinds: Any, reps: int, at: At,
                      only: tuple[WritePoint, ...]) -> Plan:
    try:
        record = Record.read(path)
    except FileNotFoundError:
        raise BadInput(f"record {path} not found") from None
    except OSError as exc:
        raise BadInput(f"cannot read record {path}: {exc.strerror or exc}") from None
    except RecordUnusable as exc:
        raise BadInput(f"not a usable guard record: {exc}") from None
    # A record of `ajantik test run`'s clean run has the operator's log beside it: the
    # writes the operator made while the skill waited are no write points of the skill.
    windows = operator_windows(path.parent)
    writes = [Write(ex.method, ex.url, ex.line) for ex in record.exchanges()
              if ex.is_write and not by_operator(ex.request.started, windows)]
    if record.fault is not None:
        raise BadInput(f"{path} is the record of a run with a fault "
                       f"({record.fault.get('kind')}); the plan is made from a clean run")
    if not writes:
        raise BadInput(f"{path} holds no writes: there is nothing to fault")
    try:
        return plan_from_writes(writes, kinds, reps, at, only)
    except PlanError as exc:
        raise BadInput(str(exc)) from None


def _check_upstream(upstream: str) -> None:
    async def probe() -> None:
        async with aiohttp.ClientSession() as http:
            await reach_upstream(http, upstream)

    try:
        asyncio.run(probe())
    except GuardStartError as exc:  # exit 3 when Chrome cannot be reached, as everywhere
        raise CommandFailed(RUN, f"--upstream: {exc}", exc.exit_code) from None


def _load_config(text: str) -> GuardConfig:
    try:
        return load_config_file(config_file(text))
    except ConfigError as exc:
        raise BadInput(f"bad config {exc}") from None


def _load_adapter(path: Path) -> Adapter:
    try:
        return load_adapter(path)
    except AdapterError as exc:
        raise BadInput(str(exc)) from None


def _adapter_call(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except AdapterError as exc:
        raise BadInput(str(exc)) from None


def _command(command: tuple[str, ...]) -> tuple[str, ...]:
    """The skill's command line, refused at once when its program cannot be found."""
    program = command[0]
    if os.sep in program:
        if not Path(program).exists():
            raise BadInput(f"the skill's program {program} does not exist")
    elif shutil.which(program) is None:
        raise BadInput(f"the skill's program `{program}` is not on PATH")
    return command


test_group.add_command(plan_command)
test_group.add_command(run_command)

