"""One lane: a browser of the pool, one run at a time, and the browser's half of a run.

A run has two halves that meet in plain data. The shop's half (a fresh shop run, its
settled state, its deletion) needs the evaluator's secret and stays with the suite
(``run_harness``). The browser's half, here, runs where the browser is, in this process
or on a Ray node:

    begin:  the lane's browser (a new one if it died) ─▶ [guard with the variant's fault]
            [film: the guard's camera, else one on a session of the lane's own] ─▶
            fresh context set up as the variant requires, on the start URL ─▶ the
            agent, under its deadline, stopped at once if the browser dies
    end:    the page as the agent left it, an end-of-run screenshot ─▶ teardown

Everything ``begin`` starts is closed by the one ``AsyncExitStack`` of the run, last
started first closed, each step on its own, when ``end`` is called (or at once when
``begin`` fails). Neither raises for a failed run: what broke comes back as
``InfraError``. An exception in the reference agent is the agent's crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import time
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ajantik_cdp.browser.pool import BrowserPool
from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.faults import parse_fault
from ajantik_cdp.gauntlet.evidence.claim_line import no_claim
from ajantik_cdp.gauntlet.evidence.run_data import (
    AgentOutcome,
    InfraError,
    InfraKind,
    PageFacts,
    RunSpec,
)
from ajantik_cdp.gauntlet.evidence.run_files import FILM, FILM_RECORD, RECORD
from ajantik_cdp.gauntlet.reference.reference_agent import ReferenceAgent
from ajantik_cdp.gauntlet.run.command_agent import agent_env, run_command_agent
from ajantik_cdp.gauntlet.run.failures import Infra, failing_as, first_line, quietly
from ajantik_cdp.gauntlet.suite.suite_file import CommandAgentSpec, ReferenceAgentSpec
from ajantik_cdp.gauntlet.suite.variant_set import FAULT_VARIANTS
from ajantik_cdp.proxy.film import FilmSettings
from ajantik_cdp.proxy.film_session import filming
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions
from ajantik_shop import new_context, new_page, setup_from_data

log = logging.getLogger("ajantik.gauntlet")

SETUP_TIMEOUT = 60.0  # seconds for the guard, the context and the first page load; above
# the guard's own 30 s wait for a target that never settles (seen under load: a guard that
# waited that out for one target and then started fine still failed its run's setup)
WATCH_INTERVAL = 0.25  # seconds between checks that the lane's browser is alive
SCREENSHOT = "end.png"
CLOSED_BY_AGENT = ("the agent closed the browser (Chromium exited with code 0 in its "
                   "turn); scored from the shop's state")
CLOSE_WAIT = 15.0  # seconds Chromium may take to exit after Browser.close, under load


@dataclass(frozen=True)
class ShopRun:
    """What the shop said about a fresh run: no secret, only what the browser needs."""

    token: str
    start_url: str
    browser: dict[str, Any]  # the variant's browser setup, as the shop's data


@dataclass(frozen=True)
class AgentPhase:
    """The browser's half up to the agent's end."""

    outcome: AgentOutcome
    setup_seconds: float = 0.0  # from begin to the agent's start
    agent_seconds: float = 0.0
    infra: InfraError | None = None


@dataclass(frozen=True)
class EndPhase:
    """The rest of the browser's half. ``files`` carries the run's files back when the
    half ran away from the suite's output folder (a Ray node); empty otherwise."""

    page: PageFacts | None = None
    screenshot: str | None = None
    notes: tuple[str, ...] = ()
    infra: InfraError | None = None
    files: tuple[tuple[str, bytes], ...] = ()


@dataclass
class _Live:
    """The run a lane is on, between begin and end."""

    spec: RunSpec
    folder: Path
    stack: contextlib.AsyncExitStack
    start_url: str = ""
    context: Any = None
    page: Any = None
    crashed: list[str] = field(default_factory=list)
    ending: bool = False  # the harness closes the browser: its disconnect is no loss
    closed_by_agent: bool = False  # the agent's Browser.close: its run is still scored


class Lane:
    """The pool's browser at ``index``, used by one run at a time: a guard keeps a session
    on every target of its browser, so runs sharing one would see each other's faults."""

    def __init__(self, index: int, playwright: Any, browsers: BrowserPool, *,
                 agent_base_env: Mapping[str, str] | None = None) -> None:
        self.index = index
        self.playwright = playwright
        self.browsers = browsers
        self.agent_base_env = agent_base_env
        self.notes: list[str] = []
        self._live: _Live | None = None

    @property
    def worker(self) -> int:
        return self.index

    @property
    def chrome(self) -> Any:
        """The lane's local Chromium (``ChromeProcess``); None for a remote browser."""
        return None if self.browsers.remote else self.browsers.chromes[self.index]

    @property
    def label(self) -> str:
        return self.browsers.label(self.index)

    def alive(self) -> bool:
        return self.browsers.alive(self.index)

    async def _ensure_browser(self) -> str:
        if self.alive():
            return self.browsers.cdp_url(self.index)
        if self.browsers.remote:
            self.notes.append(f"{self.label}: its connection dropped; trying it again")
        elif not self.browsers.own:
            raise Infra("browser", "the shared Chromium is gone")
        else:
            self.notes.append(f"worker {self.index}: Chromium was gone; started a new one")
        await self.browsers.replace(self.index)
        return self.browsers.cdp_url(self.index)

    async def warm_up(self, shop_url: str) -> str:
        """A fresh Chromium's first context and page load cost seconds; pay them here,
        not in the first run's setup time. Returns the browser's version."""
        browser = await self.playwright.chromium.connect_over_cdp(
            self.browsers.cdp_url(self.index))
        try:
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto(shop_url + "/")
            await context.close()
            return str(browser.version)
        finally:
            await browser.close()

    # -- the browser's half of a run ----------------------------------------------------

    async def begin(self, spec: RunSpec, shop_run: ShopRun, folder: Path) -> AgentPhase:
        if self._live is not None:  # a run that was never ended: end it now
            await self.end(gather=False, folder=self._live.folder)
        live = _Live(spec, _made(folder), contextlib.AsyncExitStack())
        self._live = live
        t0 = time.monotonic()
        outcome = AgentOutcome(no_claim("the agent did not run"))
        try:
            cdp_url = await self._prepare(live, shop_run)
            t1 = time.monotonic()
            outcome = await self._agent(live, cdp_url)
            t2 = time.monotonic()
            if not live.closed_by_agent and (not self.alive() or live.page.is_closed()):
                live.closed_by_agent = await self._closed_by_agent()
            if not self.alive() and not live.closed_by_agent:
                raise Infra("browser", self._gone_text())
            if live.crashed:
                raise Infra("browser", live.crashed[0])
            return AgentPhase(outcome, t1 - t0, t2 - t1)
        except Infra as exc:
            return AgentPhase(outcome, time.monotonic() - t0, 0.0, exc.as_error())
        except Exception as exc:  # a harness bug: still evidence, never the suite's end
            log.exception("run %s failed in the harness", spec.run_id)
            return AgentPhase(outcome, time.monotonic() - t0, 0.0,
                              InfraError("harness", first_line(exc)))

    async def end(self, *, gather: bool, folder: Path) -> EndPhase:
        """The page as the agent left it and a screenshot of it (when ``gather``), then
        teardown. Safe to call when ``begin`` failed or was never called."""
        live, self._live = self._live, None
        if live is None:
            return EndPhase()
        page: PageFacts | None = None
        shot: str | None = None
        notes: list[str] = []
        infra: InfraError | None = None
        if live.closed_by_agent:
            live.ending = True
            await live.stack.aclose()
            return EndPhase(notes=(CLOSED_BY_AGENT,))
        try:
            if gather:
                page, shot, notes = await self._end_of_run(live)
        except Exception as exc:
            infra = InfraError("harness", first_line(exc))
        finally:
            live.ending = True
            await live.stack.aclose()
        # Browser.close answers before Chromium shuts its pages and exits, so an agent
        # that closes the browser and quits at once is often seen only here: its pages
        # are gone (or going) while the process still runs, or its page closes under
        # the screenshot (seen in CI: the facts were read, the screenshot found the
        # target closed).
        if gather and (infra is not None or page is None or shot is None
                       or not self.alive()) and await self._closed_by_agent():
            return EndPhase(notes=(CLOSED_BY_AGENT,))
        if infra is None and gather and not self.alive():
            infra = InfraError("browser", self._gone_text())
        return EndPhase(page, shot, tuple(notes), infra)

    def _connect_failure(self) -> InfraKind:
        """A remote browser that cannot be connected to is lost (another worker may do
        the run); a local Chromium is, if it died, and the harness failed otherwise."""
        if self.browsers.remote:
            self.browsers.mark_lost(self.index)
            return "browser"
        return "harness" if self.alive() else "browser"

    async def _closed_by_agent(self) -> bool:
        """Whether the agent closed the lane's local Chromium (CDP ``Browser.close``):
        closing shuts every page, then Chromium exits with code 0, seconds later under
        load; a crash or a kill exits otherwise. During the agent's turn only the agent
        can ask for that, so it is the agent's doing. Left out as infrastructure instead,
        closing the browser would take a failing run out of every rate. A remote browser
        has no exit code to read: its drop stays a lost browser."""
        chrome = self.chrome
        if chrome is None:
            return False
        with contextlib.suppress(subprocess.TimeoutExpired):
            await asyncio.to_thread(chrome.proc.wait, CLOSE_WAIT)
        return bool(chrome.proc.poll() == 0)

    def _gone_text(self) -> str:
        if self.browsers.remote:
            return f"{self.label}: the connection to it dropped during the run"
        return "Chromium exited during the run"

    async def _prepare(self, live: _Live, shop_run: ShopRun) -> str:
        """The lane's browser, the variant's guard, and a fresh context set up as the
        variant requires, on the start URL. Returns the address the agent is given."""
        stack, spec = live.stack, live.spec
        fault = FAULT_VARIANTS.get(spec.variant)
        setup = setup_from_data(shop_run.browser)
        with failing_as("browser", f"{self.label} is not reachable" if self.browsers.remote
                        else "Chromium did not start"):
            cdp_url = await self._ensure_browser()
        live.start_url = shop_run.start_url
        film = (FilmSettings(live.folder / FILM, FilmPolicy(fps=spec.film_fps))
                if spec.film_fps is not None else None)
        config = parse_config({"redact": list(spec.redact)})
        async with asyncio.timeout(SETUP_TIMEOUT):
            with failing_as(self._connect_failure, "could not connect to the browser"):
                if fault is not None:
                    guard = contextlib.AsyncExitStack()
                    stack.push_async_callback(quietly, guard.aclose)
                    running = await guard.enter_async_context(running_guard(GuardOptions(
                        upstream=cdp_url, config=config, port=0,
                        record_path=live.folder / RECORD, install_signal_handlers=False,
                        fault=parse_fault(fault.fault_text(shop_run.token), fault.at),
                        film=film), "gauntlet run finished"))
                    cdp_url = running.url
                elif film is not None:
                    # No guard to film with: the same camera on a session of the
                    # harness's own, closed after the context (its last frames kept).
                    camera = contextlib.AsyncExitStack()
                    stack.push_async_callback(quietly, camera.aclose)
                    await camera.enter_async_context(filming(
                        cdp_url, live.folder / FILM_RECORD, film, config))
                browser = await self.playwright.chromium.connect_over_cdp(cdp_url)
            if self.browsers.remote:
                # A remote browser has no process to watch: a drop of this connection
                # is how its loss shows.
                browser.on("disconnected", lambda _: None if live.ending
                           else self.browsers.mark_lost(self.index))
            stack.push_async_callback(quietly, browser.close, 10)
            with failing_as(lambda: "harness" if self.alive() else "browser",
                            "could not prepare the browser"):
                context = await new_context(browser, setup)
                stack.push_async_callback(quietly, context.close, 10)
                page = await new_page(context, setup)
                page.on("crash", lambda _: live.crashed.append("the page's renderer crashed"))
                await page.goto(shop_run.start_url)
        live.context, live.page = context, page
        return str(cdp_url)

    async def _agent(self, live: _Live, cdp_url: str) -> AgentOutcome:
        """The agent, under its deadline, stopped at once if the browser dies."""
        spec = live.spec
        if isinstance(spec.agent, CommandAgentSpec):
            env = agent_env(spec.agent, cdp_url=cdp_url, start_url=live.start_url,
                            task_name=spec.task_name, task_text=spec.task_text,
                            deadline=spec.deadline, base=self.agent_base_env)
            return await self._while_alive(run_command_agent(spec.agent, env, spec.deadline,
                                                             live.folder))
        return await self._while_alive(_reference(spec, live.page, live.start_url))

    async def _while_alive(self, agent: Coroutine[Any, Any, AgentOutcome]) -> AgentOutcome:
        """The agent's outcome, unless the browser dies first: then the agent is stopped
        at once rather than left to wait out its deadline on a browser that is gone."""
        task = asyncio.ensure_future(agent)
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=WATCH_INTERVAL)
                if done:
                    return task.result()
                if not self.alive():
                    if await self._closed_by_agent():
                        # The agent closed it: its turn goes on to its own end (or
                        # deadline), and its run is scored.
                        self._live_closed()
                        return await task
                    raise Infra("browser", self._gone_text())
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    def _live_closed(self) -> None:
        if self._live is not None:
            self._live.closed_by_agent = True

    async def _end_of_run(self, live: _Live) -> tuple[PageFacts | None, str | None, list[str]]:
        """The page as the agent left it, and a screenshot of it (a note when there is
        none: the run is still scored from the shop's state)."""
        from playwright.async_api import Error as PlaywrightError  # loaded by now

        pages = [p for p in live.context.pages if not p.is_closed()]
        if not pages:
            return None, None, []
        end_page = live.page if not live.page.is_closed() else pages[-1]
        facts = await _page_facts(end_page, live.start_url)
        try:
            await end_page.screenshot(path=str(live.folder / SCREENSHOT), scale="css",
                                      timeout=10_000)
        except (PlaywrightError, OSError) as exc:
            return facts, None, [f"no screenshot: {first_line(exc)}"]
        return facts, SCREENSHOT, []


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


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
        return AgentOutcome(no_claim("the agent crashed"), error=first_line(exc),
                            steps=tuple(agent.steps), step_count=len(agent.steps))
    return AgentOutcome(claim, steps=claim.step_list, step_count=claim.steps)


async def _page_facts(page: Any, start_url: str) -> PageFacts:
    from playwright.async_api import Error as PlaywrightError  # loaded by now

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
