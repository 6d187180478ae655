"""Running a test: the clean run, the plan from its record, then every planned run, each
through a fresh guard and judged from its own record.

Several tests can share the browsers (the demo tests two skills): every clean run
first, then every planned run. A lane is one browser: runs on one browser never overlap,
because a guard holds a session on every target of its browser and would fault the
other run's writes. A Ctrl-C (a cancel) stops the run in flight, its skill and guard
included, and returns what finished; a ``Stop`` (``--before`` failed, the browser is
gone, the adapter is broken) ends the test the same way, with its reason.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import orjson

from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.faults import FaultKind, parse_fault
from ajantik_cdp.core.record.record_schema import now_iso
from ajantik_cdp.core.scoring.run_gate import DEFAULT_POLICY, GatePolicy, GateResult, gate_run
from ajantik_cdp.judge.adapter_api import Record, Report
from ajantik_cdp.judge.adapter_loader import Adapter, AdapterError
from ajantik_cdp.judge.judging import Judgement, judge
from ajantik_cdp.judge.verdict_file import (
    InputFile,
    InputFiles,
    encode_verdicts,
    gate_data,
    verdicts_data,
)
from ajantik_cdp.judge.verdict_page import Page, RunView, render_page
from ajantik_cdp.player.view import REPORT_FRAMES, FilmView, film_view
from ajantik_cdp.proxy.film import FilmSettings
from ajantik_cdp.proxy.preloading import held_off_on
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions, GuardStartError
from ajantik_cdp.record.reader import RecordReadError, load_record
from ajantik_cdp.testrun.adapter_hooks import AdapterHooks, OperatorEvent, SkillOutput
from ajantik_cdp.testrun.plan.run_plan import (
    CLEAN,
    At,
    Plan,
    PlanError,
    PlannedRun,
    plan_from_writes,
)
from ajantik_cdp.testrun.plan.write_points import Write, WritePoint
from ajantik_cdp.testrun.run.ask_lines import Answer, Ask
from ajantik_cdp.testrun.run.skill import Skill, SkillContext, SkillRun
from ajantik_cdp.testrun.run.workspace import Stop, System, SystemCheck
from ajantik_cdp.testrun.score.matrix import Firing, RunMark, UnitMark, firing

RECORD = "ajantik-cdp.jsonl"
FILM = "film"  # the run's frames, beside its record
OPERATOR_LOG = "operator.jsonl"  # beside the record: each ask, answer and when
FIRST = At("first")
NO_OPERATOR = "no operator: the adapter defines no operator(event), so no one can do this"


@dataclass(frozen=True)
class RunOptions:
    kinds: tuple[FaultKind, ...]
    reps: int = 1
    at: At = FIRST
    only: tuple[WritePoint, ...] = ()
    deadline: float = 600.0
    policy: GatePolicy = DEFAULT_POLICY
    # Each run's guard films into the run's folder (docs/record.md, "The film"); None: no
    # film (--no-film).
    film: FilmPolicy | None = None


@dataclass(frozen=True)
class SkillTest:
    name: str  # the skill's name in the output; also its folder when a run holds several
    skill: Skill
    system: System
    adapter: Adapter
    options: RunOptions


@dataclass(frozen=True)
class JudgedRun:
    test: str
    planned: PlannedRun
    folder: str  # relative to the output folder
    judgement: Judgement
    gate: GateResult
    firing: Firing
    skill: SkillRun
    seconds: float
    check: SystemCheck | None = None
    notes: tuple[str, ...] = ()
    # When the operator was at work (UTC ISO, as the record's ``started``): the skill
    # waits for its answer then, so the writes started in these windows are the operator's.
    operator_windows: tuple[tuple[str, str], ...] = ()

    def mark(self) -> RunMark:
        units = tuple(UnitMark(u.unit, u.verdict, tuple(d.kind for d in u.damage))
                      for u in self.judgement.units)
        loose = tuple(d.kind for d in self.judgement.damage if d.unit is None)
        return RunMark(self.planned, units, self.firing, self.gate.outcome, self.gate.passed,
                       loose)


@dataclass
class SkillTestResult:
    test: SkillTest
    clean: JudgedRun | None = None
    plan: Plan | None = None
    runs: list[JudgedRun] = field(default_factory=list)
    stopped: str | None = None  # why it ended early
    stopped_output: str = ""  # what to show with it (a failing --before's output)
    stop_code: int = 1

    @property
    def all_runs(self) -> list[JudgedRun]:
        return ([self.clean] if self.clean else []) + sorted(
            self.runs, key=lambda r: r.planned.number)

    @property
    def passed(self) -> bool:
        """Every run planned ran and passed the gate, and at least one fault was tested."""
        if self.stopped or self.clean is None or self.plan is None or not self.plan.runs:
            return False
        return len(self.runs) == len(self.plan.runs) and all(r.gate.passed
                                                              for r in self.all_runs)


class Progress(Protocol):
    def planned(self, result: SkillTestResult, total: int) -> None: ...

    def finished(self, run: JudgedRun, done: int, total: int) -> None: ...


Confirm = Callable[[list[SkillTestResult]], Awaitable[bool]]


@dataclass
class SessionResult:
    tests: list[SkillTestResult]
    seconds: float
    interrupted: bool = False
    declined: bool = False


# -- one run -----------------------------------------------------------------------------


class OperatorDesk:
    """Answers one run's asks with the adapter's operator, and logs each exchange."""

    def __init__(self, hooks: AdapterHooks, cdp_url: str, run: PlannedRun, folder: Path,
                 env: dict[str, str]) -> None:
        self.hooks, self.cdp_url, self.run, self.folder, self.env = (
            hooks, cdp_url, run, folder, env)
        self.windows: list[tuple[str, str]] = []

    async def __call__(self, ask: Ask) -> Answer:
        if self.hooks.has_operator:
            began = now_iso()
            try:
                answer = await self.hooks.operator(OperatorEvent(
                    ask.kind, ask.message, ask.data, self.cdp_url, self.run.label,
                    self.folder, self.env))
            finally:
                self.windows.append((began, now_iso()))
        else:
            answer = Answer(False, NO_OPERATOR)
        window = self.windows[-1] if self.hooks.has_operator else None
        with (self.folder / OPERATOR_LOG).open("ab") as log:
            log.write(orjson.dumps({"ask": ask.data, "window": window, "answer": {
                "ok": answer.ok, "message": answer.message, "data": answer.data}},
                default=str) + b"\n")
        return answer


def _faulted(judgement: Judgement) -> list[tuple[str, str]]:
    return [(ex.method, ex.url) for ex in judgement.record.exchanges() if ex.fault]


async def run_one(test: SkillTest, planned: PlannedRun, upstream: str, out_dir: Path,
                  prefix: str) -> JudgedRun:
    started = time.monotonic()
    rel = f"runs/{prefix}{planned.slug}"
    folder = out_dir / rel
    folder.mkdir(parents=True, exist_ok=True)
    hooks = AdapterHooks(test.adapter)
    record_path, report_path = folder / RECORD, folder / "report.txt"
    fault = parse_fault(planned.fault_text, planned.guard_at) if planned.fault_text else None
    async with test.system.workspace(planned, folder) as ws:
        try:
            async with running_guard(GuardOptions(
                    upstream=upstream, config=ws.config, port=0, record_path=record_path,
                    install_signal_handlers=False, fault=fault,
                    film=(FilmSettings(folder / FILM, test.options.film)
                          if test.options.film is not None else None)),
                    "run finished") as guard:
                desk = OperatorDesk(hooks, guard.url, planned, folder, dict(ws.env))
                skill_run = await test.skill.run(SkillContext(
                    guard.url, ws.env, folder, test.options.deadline, planned.label, desk))
        except GuardStartError as exc:
            raise Stop(f"the guard could not start for the {planned.label} run: {exc}"
                       ) from None
        text = hooks.report(SkillOutput(skill_run.stdout, skill_run.stderr_tail,
                                        skill_run.exit_code, folder))
        report_path.write_text(text, encoding="utf-8")
        judgement = judge(test.adapter, Record.read(record_path), Report(text, report_path))
        check = await ws.check(judgement) if ws.check is not None else None
    fired = firing(planned.point, _faulted(judgement))
    notes = []
    if fired is Firing.ELSEWHERE:
        method, url = _faulted(judgement)[0]
        notes.append(f"the fault fired on {method} {url}, not on a write of "
                     f"{planned.point.label if planned.point else '?'}: this run is no "
                     "test of its cell")
    gate = gate_run([u.score() for u in judgement.units],
                    [(d.kind, d.unit) for d in judgement.damage],
                    fault_fired=None if fired is Firing.NO_FAULT else fired is Firing.ON_POINT,
                    crashed=skill_run.crashed, timed_out=skill_run.timed_out,
                    incomplete=judgement.record.problems, policy=test.options.policy)
    result = JudgedRun(test.name, planned, rel, judgement, gate, fired, skill_run,
                       time.monotonic() - started, check, tuple(notes), tuple(desk.windows))
    _write_verdicts(test, result, folder)
    return result


def run_facts(r: JudgedRun) -> tuple[tuple[str, str], ...]:
    """What a run's page says beside its verdicts: how the skill ended, its asks."""
    s = r.skill
    ended = (s.timed_out or s.crashed or f"exit code {s.exit_code}")
    facts = [("skill", f"{ended} after {s.seconds:.1f}s"), ("fault fired", r.firing.label)]
    for a in s.asks:
        facts.append(("operator", f"asked {a.ask.kind!r}: {a.ask.message or '-'} -> "
                      f"{'ok' if a.answer.ok else 'not ok'}: {a.answer.message or '-'}"))
    facts.extend(("note", n) for n in r.notes)
    if r.check is not None:
        facts.extend(r.check.facts)
    return tuple(facts)


def run_film(r: JudgedRun, slug: str, linked: str) -> FilmView | None:
    """The run's player, when its guard filmed: frames linked from the page (``linked``:
    the run's film folder as the page finds it), so a report of many runs stays small."""
    path = r.judgement.record.path
    if path is None:
        return None
    try:
        record = load_record(path)
    except RecordReadError:
        return None  # the judge already said why this record cannot be read
    return film_view(record, slug, path.parent / FILM, limit=REPORT_FRAMES, linked=linked)


def _write_verdicts(test: SkillTest, r: JudgedRun, folder: Path) -> None:
    sources = InputFiles(InputFile.of(test.adapter.path), InputFile.of(folder / RECORD),
                         InputFile.of(folder / "report.txt"))
    data = verdicts_data(r.judgement, sources, test.options.policy)
    # The test's gate knows how the skill ended and where the fault fired.
    data["gate"] = gate_data(r.gate, test.options.policy)
    (folder / "verdicts.json").write_bytes(encode_verdicts(data))
    view = RunView("run", r.planned.label, r.judgement, sources, test.options.policy,
                   run_facts(r), r.gate, film=run_film(r, "run", FILM))
    title = f"Verdicts: {test.name + ' · ' if test.name else ''}{r.planned.label}"
    (folder / "verdicts.html").write_text(render_page(Page(title, (view,))),
                                          encoding="utf-8")


# -- the plan ----------------------------------------------------------------------------


def operator_windows(folder: Path) -> tuple[tuple[str, str], ...]:
    """The operator's windows from a run folder's operator log (none when it has none)."""
    try:
        lines = (folder / OPERATOR_LOG).read_bytes().splitlines()
    except OSError:
        return ()
    out = []
    for line in lines:
        try:
            window = orjson.loads(line).get("window")
        except (orjson.JSONDecodeError, AttributeError):
            continue
        if isinstance(window, list) and len(window) == 2 and all(
                isinstance(t, str) for t in window):
            out.append((window[0], window[1]))
    return tuple(out)


def by_operator(started: str | None, windows: Sequence[tuple[str, str]]) -> bool:
    # Same ISO format (UTC, milliseconds, Z) on both sides: strings order as times.
    return started is not None and any(a <= started <= b for a, b in windows)


def clean_writes(clean: JudgedRun) -> tuple[list[Write], int]:
    """The clean run's writes made by the skill, and how many the operator made (signing
    in again is the person's write, not a write point of the skill)."""
    writes, operator = [], 0
    for ex in clean.judgement.record.exchanges():
        if not ex.is_write:
            continue
        if by_operator(ex.request.started, clean.operator_windows):
            operator += 1
        else:
            writes.append(Write(ex.method, ex.url, ex.line))
    return writes, operator


def plan_test(result: SkillTestResult) -> None:
    """The plan from the clean run, or why there is none."""
    clean = result.clean
    assert clean is not None
    if clean.skill.crashed or clean.skill.timed_out:
        result.stopped = (f"the clean run {'timed out' if clean.skill.timed_out else 'crashed'}"
                          f" ({clean.skill.timed_out or clean.skill.crashed}): faulting a "
                          "skill that fails without faults tests nothing; fix it first "
                          f"(its output: {clean.folder}/)")
        return
    writes, by_operator = clean_writes(clean)
    if not writes:
        result.stopped = ("the clean run made no writes, so there is nothing to fault "
                          f"(its record: {clean.folder}/{RECORD})")
        return
    o = result.test.options
    try:
        result.plan = plan_from_writes(writes, o.kinds, o.reps, o.at, o.only)
        if by_operator:
            result.plan = dataclasses.replace(result.plan, notes=(*result.plan.notes, (
                f"{counted(by_operator, 'write')} of the clean run were the operator's (made while "
                "the skill waited for its answer): no write point of the skill")))
    except PlanError as exc:
        result.stopped, result.stop_code = str(exc), 2


# -- everything --------------------------------------------------------------------------


async def _over_lanes(jobs: Sequence[tuple[SkillTestResult, PlannedRun]], lanes: Sequence[str],
                      out_dir: Path, prefixes: dict[int, str],
                      done: Callable[[SkillTestResult, JudgedRun], None]) -> None:
    """Run the jobs, each lane one at a time; stop taking jobs once one raises Stop."""
    queue: asyncio.Queue[tuple[SkillTestResult, PlannedRun]] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)
    stop: list[Stop] = []

    async def lane(upstream: str) -> None:
        while not queue.empty() and not stop:
            result, planned = queue.get_nowait()
            try:
                run = await run_one(result.test, planned, upstream, out_dir,
                                    prefixes[id(result)])
            except Stop as exc:
                stop.append(exc)
                result.stopped, result.stopped_output = exc.reason, exc.output
                result.stop_code = exc.exit_code
                return
            except AdapterError as exc:
                stop.append(Stop(str(exc), exit_code=2))
                result.stopped, result.stop_code = str(exc), 2
                return
            done(result, run)

    await asyncio.gather(*(lane(u) for u in lanes))


async def run_tests(tests: Sequence[SkillTest], lanes: Sequence[str], out_dir: Path,
                    progress: Progress, confirm: Confirm | None = None) -> SessionResult:
    """Every test's clean run, then (once ``confirm`` agrees) every planned run."""
    started = time.monotonic()
    results = [SkillTestResult(t) for t in tests]
    prefixes = {id(r): (f"{r.test.name}-" if len(tests) > 1 else "") for r in results}
    outcome = SessionResult(results, 0.0)
    finished = 0
    total = len(results)

    def clean_done(result: SkillTestResult, run: JudgedRun) -> None:
        nonlocal finished
        result.clean = run
        finished += 1
        progress.finished(run, finished, total)

    def run_done(result: SkillTestResult, run: JudgedRun) -> None:
        nonlocal finished
        result.runs.append(run)
        finished += 1
        progress.finished(run, finished, total)

    try:
        # One hold of "Preload pages" per browser for the whole test: each run's guard
        # then joins it instead of opening chrome://settings twice (proxy/preloading.py).
        async with held_off_on(lanes):
            await _over_lanes([(r, CLEAN) for r in results], lanes, out_dir, prefixes,
                              clean_done)
            if any(r.stopped for r in results):
                return outcome
            for r in results:
                plan_test(r)
            jobs = [(r, p) for r in results if r.plan and not r.stopped for p in r.plan.runs]
            total = finished + len(jobs)
            for r in results:
                progress.planned(r, total)
            if not jobs:
                return outcome
            if confirm is not None and not await confirm(results):
                outcome.declined = True
                return outcome
            await _over_lanes(jobs, lanes, out_dir, prefixes, run_done)
    except asyncio.CancelledError:
        # Ctrl-C: the run in flight was stopped (its skill and guard included); what
        # finished is kept and reported.
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        outcome.interrupted = True
    finally:
        outcome.seconds = time.monotonic() - started
    return outcome
