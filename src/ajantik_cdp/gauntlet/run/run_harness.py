"""One run on one worker, start to finish, and the evidence it leaves.

    shop run (fresh token) ─▶ [guard with the variant's fault] ─▶ fresh browser context,
    set up as the variant requires, on the start URL ─▶ the agent, under its deadline ─▶
    the shop's state once no write is in flight, the page as the agent left it, an
    end-of-run screenshot, the guard's record ─▶ teardown

Each phase is a function, and everything a phase starts is closed by the one
``AsyncExitStack`` of the run, last started first closed, each step on its own: a run
that breaks leaves evidence of how, tears down what it started, and never takes the
suite down. Where a failure is classified is said once per phase (``_failing_as``):
failures of the browser, the shop or the harness are infrastructure, not the agent's;
an exception in the reference agent is the agent's crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.browser.pool import BrowserPool
from ajantik_cdp.core.config import parse_config
from ajantik_cdp.core.faults import parse_fault
from ajantik_cdp.core.record_schema import BlockLine, RequestLine
from ajantik_cdp.core.rules import is_write
from ajantik_cdp.gauntlet.evidence.claim_line import no_claim
from ajantik_cdp.gauntlet.evidence.run_data import (
    AgentOutcome,
    InfraError,
    PageFacts,
    RecordFacts,
    RunResult,
    RunSpec,
    Timings,
)
from ajantik_cdp.gauntlet.reference.reference_agent import ReferenceAgent
from ajantik_cdp.gauntlet.run.command_agent import agent_env, run_command_agent
from ajantik_cdp.gauntlet.suite.suite_file import CommandAgentSpec, ReferenceAgentSpec
from ajantik_cdp.gauntlet.suite.variant_set import FAULT_VARIANTS, FaultVariant, shop_variant
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions
from ajantik_cdp.record.reader import MissingRecord, RecordReadError, load_record
from ajantik_shop import ShopHarness, new_context, new_page, setup_from_data

log = logging.getLogger("ajantik.gauntlet")

SETTLE_TIMEOUT = 15.0  # seconds to wait for the shop's in-flight writes to be answered
SETUP_TIMEOUT = 30.0  # seconds for the guard, the context and the first page load
WATCH_INTERVAL = 0.25  # seconds between checks that the worker's Chromium is alive
SCREENSHOT = "end.png"
RECORD = "record.jsonl"


class Infra(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Worker:
    """One lane: the pool's Chromium at ``index``, used by one run at a time. A guard keeps
    a session on every target of its browser, so runs sharing a browser would see each
    other's faults."""

    index: int
    playwright: Any
    shop: ShopHarness
    browsers: BrowserPool
    notes: list[str] = field(default_factory=list)

    @property
    def chrome(self) -> ChromeProcess:
        return self.browsers.chromes[self.index]

    def chrome_alive(self) -> bool:
        return self.browsers.alive(self.index)

    async def chrome_exit(self, wait: float) -> int | None:
        """Chromium's exit code, waiting up to ``wait`` seconds for one that is shutting
        down; None while it runs."""
        proc = self.chrome.proc
        with contextlib.suppress(subprocess.TimeoutExpired):
            await asyncio.to_thread(proc.wait, wait)
        return proc.poll()

    async def ensure_chrome(self) -> ChromeProcess:
        if self.chrome_alive():
            return self.chrome
        if not self.browsers.own:
            raise Infra("browser", "the shared Chromium is gone")
        self.notes.append(f"worker {self.index}: Chromium was gone; started a new one")
        return await self.browsers.replace(self.index)


def _folder(path: str) -> Path:
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def record_facts(path: Path) -> RecordFacts | None:
    try:
        loaded = load_record(path)
    except MissingRecord:
        return None
    except RecordReadError as exc:
        return RecordFacts(path=path.name, requests=0, writes=0, faulted=0, fault_kinds=(),
                           blocks=0, problems=(str(exc),))
    lines = loaded.lines
    problems = loaded.notes() if loaded.torn_line is not None else []
    requests = [ln for ln in lines if isinstance(ln, RequestLine)]
    faulted = [ln for ln in requests if ln.fault]
    return RecordFacts(
        path=path.name, requests=len(requests),
        writes=sum(is_write(ln.method) for ln in requests),
        faulted=len(faulted), fault_kinds=tuple(sorted({str(ln.fault) for ln in faulted})),
        blocks=sum(isinstance(ln, BlockLine) for ln in lines), problems=tuple(problems))


async def _page_facts(page: Any, start_url: str) -> PageFacts:
    from playwright.async_api import Error as PlaywrightError  # loaded by the executor

    url = str(page.url)
    path = url[len(start_url):] if url.startswith(start_url) else url
    heading = None
    with contextlib.suppress(PlaywrightError):
        h1 = page.get_by_role("heading", level=1).first
        if await h1.is_visible():
            heading = " ".join((await h1.inner_text(timeout=2000)).split())
    dialog_open = False
    with contextlib.suppress(PlaywrightError):
        dialog_open = await page.get_by_role("dialog").first.is_visible()
    alert = None
    with contextlib.suppress(PlaywrightError):
        box = page.get_by_role("alert").first
        if await box.is_visible():
            alert = " ".join((await box.inner_text(timeout=2000)).split())
    return PageFacts(path=path.split("#")[0], heading=heading, dialog_open=dialog_open,
                     alert=alert)


@contextlib.contextmanager
def _failing_as(kind: str | Callable[[], str], what: str) -> Iterator[None]:
    """Whatever breaks in this step is infrastructure of ``kind`` (decided when it
    breaks, if given as a function): the browser's, the shop's or the harness's, never
    the agent's. Any exception, because the step's own code is not the agent's."""
    try:
        yield
    except Infra:
        raise
    except Exception as exc:
        decided = kind() if callable(kind) else kind
        raise Infra(decided, f"{what}: {_first_line(exc)}") from None


async def _quietly(close: Callable[[], Awaitable[object]], timeout: float | None = None
                   ) -> None:
    """One teardown step. None of them decides a run or stops the next: a browser that
    is gone must not keep the guard running, and a close that fails is no evidence."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(close(), timeout)


async def _settled_state(shop: ShopHarness, token: str) -> dict[str, Any]:
    """The shop's state once every write it received has been answered (slow_api holds
    them); after SETTLE_TIMEOUT the state is returned as it is and scored unscorable."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_TIMEOUT
    while True:
        with _failing_as("shop", "the shop's state could not be read"):
            state = await shop.state(token)
        if not state.get("in_flight") or loop.time() > deadline:
            return state
        await asyncio.sleep(0.1)
async def _reference(spec: RunSpec, page: Any, start_url: str) -> AgentOutcome:
    assert isinstance(spec.agent, ReferenceAgentSpec)
    agent = ReferenceAgent(page, start_url, spec.agent.preset)
    try:
        claim = await asyncio.wait_for(agent.run(spec.task_text), spec.deadline)
    except TimeoutError:
        return AgentOutcome(no_claim(f"stopped at its deadline ({spec.deadline:g}s)"),
                            timed_out=True, steps=tuple(agent.steps),
                            step_count=len(agent.steps))
    except Exception as exc:  # a bug in the agent, not in the shop: reported as a crash
        return AgentOutcome(no_claim("the agent crashed"), error=_first_line(exc),
                            steps=tuple(agent.steps), step_count=len(agent.steps))
    return AgentOutcome(claim, steps=claim.step_list, step_count=claim.steps)


async def _while_alive(worker: Worker, agent: Coroutine[Any, Any, AgentOutcome]
                       ) -> AgentOutcome:
    """The agent's outcome, unless Chromium dies first: then the agent is stopped at once
    rather than left to wait out its deadline on a browser that is gone."""
    task = asyncio.ensure_future(agent)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=WATCH_INTERVAL)
            if done:
                return task.result()
            if not worker.chrome_alive():
                raise Infra("browser", "Chromium exited during the run")
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


@dataclass
class _Evidence:
    """What one run has gathered so far. Every phase adds to it, so a run that breaks
    part way still reports everything it had."""

    spec: RunSpec
    worker: Worker
    folder: Path
    started: float = field(default_factory=time.monotonic)
    started_at: str = field(default_factory=lambda: _now())
    marks: dict[str, float] = field(default_factory=dict)  # phase -> when it ended
    outcome: AgentOutcome = field(
        default_factory=lambda: AgentOutcome(no_claim("the agent did not run")))
    state: dict[str, Any] | None = None
    infra: InfraError | None = None
    page: PageFacts | None = None
    screenshot: str | None = None
    notes: list[str] = field(default_factory=list)

    def result(self, record: RecordFacts | None) -> RunResult:
        end = time.monotonic()
        setup_end = self.marks.get("setup", end)
        agent_end = self.marks.get("agent", setup_end)
        return RunResult(
            run_id=self.spec.run_id, variant=self.spec.variant,
            repetition=self.spec.repetition, worker=self.worker.index,
            started_at=self.started_at,
            timings=Timings(total=end - self.started, setup=setup_end - self.started,
                            agent=agent_end - setup_end, evaluate=end - agent_end),
            agent=self.outcome, state=self.state, infra=self.infra, page=self.page,
            record=record, screenshot=self.screenshot, notes=tuple(self.notes))


@dataclass(frozen=True)
class _Prepared:
    """The browser as the agent gets it."""

    token: str
    start_url: str
    cdp_url: str  # the guard's when the variant has a fault, Chromium's otherwise
    browser: Any  # the harness's own connection
    context: Any
    page: Any
    crashed: list[str]  # filled by the page's crash event


CLOSED_BY_AGENT = ("the agent closed the browser (Chromium exited with code 0 after its "
                   "turn); scored from the shop's state")
CLOSE_WAIT = 15.0  # seconds Chromium may take to exit after Browser.close, under load


async def _closed_by_agent(worker: Worker, prepared: _Prepared) -> bool:
    """Whether the agent closed Chromium (CDP ``Browser.close``) in its turn. Closing
    shuts every page, then exits with code 0, seconds later under load; a crash or a
    kill exits otherwise. During the agent's turn only the agent can ask for that, so
    it is the agent's doing: left out as infrastructure, closing the browser would take
    a failing run out of every rate. Waits only when every page is gone."""
    live = [p for p in prepared.context.pages if not p.is_closed()]
    if worker.chrome_alive() and prepared.browser.is_connected() and live:
        return False
    return await worker.chrome_exit(CLOSE_WAIT) == 0


async def run_once(spec: RunSpec, worker: Worker) -> RunResult:
    run = _Evidence(spec, worker, _folder(spec.artifacts))
    fault = FAULT_VARIANTS.get(spec.variant)
    closed_by_agent = False
    try:
        async with contextlib.AsyncExitStack() as stack:
            prepared = await _prepare(stack, run, fault)
            run.marks["setup"] = time.monotonic()
            run.outcome = await _agent(run, prepared)
            run.marks["agent"] = time.monotonic()
            run.state = await _settled_state(worker.shop, prepared.token)
            closed_by_agent = await _closed_by_agent(worker, prepared)
            if closed_by_agent:
                run.notes.append(CLOSED_BY_AGENT)
            elif not worker.chrome_alive():
                raise Infra("browser", "Chromium exited during the run")
            elif prepared.crashed:
                raise Infra("browser", prepared.crashed[0])
            else:
                await _end_of_run(run, prepared)
    except Infra as exc:
        run.infra = InfraError(exc.kind, str(exc))  # type: ignore[arg-type]
    except Exception as exc:  # a harness bug: still evidence, never the suite's end
        log.exception("run %s failed in the harness", spec.run_id)
        run.infra = InfraError("harness", _first_line(exc))
    if run.infra is None and not closed_by_agent and not worker.chrome_alive():
        if worker.chrome.proc.poll() == 0:  # it took longer to exit than to be seen
            run.notes.append(CLOSED_BY_AGENT)
        else:
            run.infra = InfraError("browser", "Chromium exited during the run")
    return run.result(record_facts(run.folder / RECORD) if fault is not None else None)


async def _prepare(stack: contextlib.AsyncExitStack, run: _Evidence,
                   fault: FaultVariant | None) -> _Prepared:
    """A fresh shop run, the worker's Chromium, the variant's guard, and a fresh context
    set up as the variant requires, on the start URL."""
    spec, worker = run.spec, run.worker
    with _failing_as("shop", "the shop did not create a run"):
        info = await worker.shop.create_run(spec.suite_run, shop_variant(spec.variant),
                                            spec.repetition)
    token = str(info["token"])
    stack.push_async_callback(_quietly, lambda: worker.shop.delete_run(token))
    start_url = str(info["start_url"])
    setup = setup_from_data(info["browser"])
    with _failing_as("browser", "Chromium did not start"):
        chrome = await worker.ensure_chrome()
    cdp_url = chrome.http_url
    crashed: list[str] = []
    with _failing_as(lambda: "harness" if worker.chrome_alive() else "browser",
                     "could not prepare the browser"):
        async with asyncio.timeout(SETUP_TIMEOUT):
            if fault is not None:
                guard = contextlib.AsyncExitStack()
                stack.push_async_callback(_quietly, guard.aclose)
                running = await guard.enter_async_context(running_guard(GuardOptions(
                    upstream=cdp_url, config=parse_config({}), port=0,
                    record_path=run.folder / RECORD, install_signal_handlers=False,
                    fault=parse_fault(fault.fault_text(token), fault.at)),
                    "gauntlet run finished"))
                cdp_url = running.url
            browser = await worker.playwright.chromium.connect_over_cdp(cdp_url)
            stack.push_async_callback(_quietly, browser.close, 10)
            context = await new_context(browser, setup)
            stack.push_async_callback(_quietly, context.close, 10)
            page = await new_page(context, setup)
            page.on("crash", lambda _: crashed.append("the page's renderer crashed"))
            await page.goto(start_url)
    return _Prepared(token, start_url, cdp_url, browser, context, page, crashed)


async def _agent(run: _Evidence, prepared: _Prepared) -> AgentOutcome:
    """The agent, under its deadline, stopped at once if Chromium dies."""
    spec = run.spec
    if isinstance(spec.agent, CommandAgentSpec):
        env = agent_env(spec.agent, cdp_url=prepared.cdp_url, start_url=prepared.start_url,
                        task_name=spec.task_name, task_text=spec.task_text,
                        deadline=spec.deadline)
        return await _while_alive(run.worker, run_command_agent(spec.agent, env,
                                                                spec.deadline, run.folder))
    return await _while_alive(run.worker, _reference(spec, prepared.page,
                                                     prepared.start_url))


async def _end_of_run(run: _Evidence, prepared: _Prepared) -> None:
    """The page as the agent left it, and a screenshot of it (a note when there is
    none: the run is still scored from the shop's state)."""
    from playwright.async_api import Error as PlaywrightError  # loaded by the executor

    live = [p for p in prepared.context.pages if not p.is_closed()]
    if not live:
        return
    end_page = prepared.page if not prepared.page.is_closed() else live[-1]
    run.page = await _page_facts(end_page, prepared.start_url)
    try:
        await end_page.screenshot(path=str(run.folder / SCREENSHOT), scale="css",
                                  timeout=10_000)
        run.screenshot = SCREENSHOT
    except (PlaywrightError, OSError) as exc:
        run.notes.append(f"no screenshot: {_first_line(exc)}")
