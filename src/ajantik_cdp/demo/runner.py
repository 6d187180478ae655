"""Running the demo: for each (skill, fault) a fresh portal, a fresh guard with that fault
in front of a headless Chromium, the scripted skill, then the judge on the run's record.

Runs on one Chromium never overlap: a guard keeps a session on every target of its
browser, so two guards on one browser would intercept (and fault) each other's requests.
Parallel runs therefore each get a Chromium of their own (a "lane").
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.browser.pool import BrowserPool
from ajantik_cdp.core.config import GuardConfig, parse_config
from ajantik_cdp.core.faults import parse_fault
from ajantik_cdp.demo.agreement import disagreements
from ajantik_cdp.demo.plan import DemoRun, RunOutcome
from ajantik_cdp.judge.adapter_api import Record, Report
from ajantik_cdp.judge.adapter_loader import Adapter, load_adapter
from ajantik_cdp.judge.judging import judge
from ajantik_cdp.judge.verdict_file import Source, Sources, encode_verdicts, verdicts_data
from ajantik_cdp.judge.verdict_page import Page, RunView, render_page
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions
from ajantik_portal_pilot.portal import PASSWORD, USERNAME, Portal
from ajantik_portal_pilot.scripted_skills import SKILLS
from ajantik_portal_pilot.task import SKILL_DIR, FilingTask, load_task
from ajantik_portal_pilot.truth import registry_truth

ADAPTER = SKILL_DIR / "adapter.py"
GUARD_CONFIG = SKILL_DIR / "guard.json"
RUN_TIMEOUT = 120.0  # seconds; a wedged run is reported, not waited on forever


def guard_config_data(origin: str) -> dict[str, Any]:
    """The example's guard.json, with writes allowed to this run's portal address."""
    data: dict[str, Any] = json.loads(GUARD_CONFIG.read_text(encoding="utf-8"))
    data["allow_writes"] = [f"^{re.escape(origin)}/"]
    return data


def guard_config(origin: str) -> GuardConfig:
    return parse_config(guard_config_data(origin), str(GUARD_CONFIG))


@dataclass(frozen=True)
class RunFiles:
    folder: Path

    @property
    def record(self) -> Path:
        return self.folder / "ajantik-cdp.jsonl"

    @property
    def report(self) -> Path:
        return self.folder / "report.txt"

    @property
    def verdicts(self) -> Path:
        return self.folder / "verdicts.json"

    @property
    def page(self) -> Path:
        return self.folder / "verdicts.html"


async def sign_in(page: Any, origin: str) -> None:
    """What the operator does before handing the browser to the skill."""
    await page.goto(origin + "/login")
    await page.fill("#username", USERNAME)
    await page.fill("#password", PASSWORD)
    await page.click("button[type=submit]")
    await page.wait_for_url(origin + "/dashboard")


async def _drive(pw: Any, guard_url: str, spec: DemoRun, origin: str,
                 tasks: list[FilingTask]) -> tuple[str, str | None]:
    browser = await pw.chromium.connect_over_cdp(guard_url)
    try:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            await sign_in(page, origin)
            try:
                return await SKILLS[spec.skill](page, origin, tasks), None
            except Exception as exc:  # a crashed skill leaves no report; still judged
                return "", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        finally:
            await context.close()
    finally:
        await browser.close()


async def run_one(pw: Any, chrome: ChromeProcess, spec: DemoRun, files: RunFiles,
                  adapter: Adapter, tasks: list[FilingTask]) -> RunOutcome:
    started = time.monotonic()
    files.folder.mkdir(parents=True, exist_ok=True)
    portal = Portal()
    await portal.start()
    try:
        async with running_guard(GuardOptions(
            upstream=chrome.http_url, config=guard_config(portal.origin), port=0,
            record_path=files.record, install_signal_handlers=False,
            fault=parse_fault(spec.fault_text) if spec.fault_text else None,
        ), "demo run finished") as guard:
            try:
                report, error = await asyncio.wait_for(
                    _drive(pw, guard.url, spec, portal.origin, tasks), RUN_TIMEOUT)
            except TimeoutError:
                report, error = "", f"the run took longer than {RUN_TIMEOUT:g}s"
        files.report.write_text(report, encoding="utf-8")
        judgement = judge(adapter, Record.read(files.record), Report(report, files.report))
        truth = registry_truth(portal)
        found, compared = disagreements(judgement, truth)
        submissions = len(portal.submissions())
        if submissions:
            found.append(f"{submissions} submission request(s) reached the portal")
    finally:
        await portal.stop()
    sources = Sources(Source.of(adapter.path), Source.of(files.record), Source.of(files.report))
    files.verdicts.write_bytes(encode_verdicts(verdicts_data(judgement, sources)))
    view = RunView("run", spec.label, judgement, sources)
    files.page.write_text(render_page(Page(f"Verdicts: {spec.label}", (view,))),
                          encoding="utf-8")
    return RunOutcome(spec, judgement, time.monotonic() - started, tuple(found), error,
                      compared, truth, submissions)


async def run_demo(specs: list[DemoRun], out_dir: Path, progress: Callable[[RunOutcome], None],
                   *, workers: int = 2, chromes: list[ChromeProcess] | None = None
                   ) -> list[RunOutcome]:
    """Run every spec and return the outcomes in plan order. ``chromes``: browsers to use
    (one worker each; tests pass their shared one); otherwise ``workers`` are started
    here."""
    from playwright.async_api import async_playwright

    adapter = load_adapter(ADAPTER)
    tasks = load_task()
    browsers = (BrowserPool.given(chromes) if chromes is not None
                else await BrowserPool.start(max(1, min(workers, len(specs)))))
    queue: asyncio.Queue[tuple[int, DemoRun]] = asyncio.Queue()
    for item in enumerate(specs):
        queue.put_nowait(item)
    outcomes: dict[int, RunOutcome] = {}
    async with browsers, async_playwright() as pw:
        async def worker(chrome: ChromeProcess) -> None:
            while not queue.empty():
                index, spec = queue.get_nowait()
                outcome = await run_one(pw, chrome, spec, RunFiles(out_dir / spec.slug),
                                        adapter, tasks)
                outcomes[index] = outcome
                progress(outcome)

        await asyncio.gather(*(worker(c) for c in browsers.chromes))
    return [outcomes[i] for i in sorted(outcomes)]
