"""Running the demo: ``ajantik test run``'s runner, applied to the two scripted skills on
the portal-pilot example, each run on a fresh portal, on a pool of headless Chromiums
(one run per browser at a time)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.browser.pool import BrowserPool
from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.demo.plan import OPTIONS, SKILLS
from ajantik_cdp.demo.portal_system import ADAPTER, PortalSystem
from ajantik_cdp.demo.scripted import ScriptedSkill
from ajantik_cdp.judge.adapter_loader import load_adapter
from ajantik_cdp.testrun.run.runner import Progress, SessionResult, SkillTest, run_tests
from ajantik_portal_pilot.task import load_task


async def run_demo(out_dir: Path, progress: Progress, *, workers: int = 2,
                   chromes: list[ChromeProcess] | None = None,
                   skills: tuple[str, ...] = SKILLS,
                   film: FilmPolicy | None = None) -> SessionResult:
    """Both tests, their clean runs first. ``chromes``: browsers to use (one lane each;
    tests pass their shared one); otherwise ``workers`` are started here. ``film``: each
    run's guard films into the run's folder."""
    from playwright.async_api import async_playwright

    adapter = load_adapter(ADAPTER)
    tasks = load_task()
    browsers = (BrowserPool.given(chromes) if chromes is not None
                else await BrowserPool.start(max(1, workers)))
    async with browsers, async_playwright() as pw:
        tests = [SkillTest(name, ScriptedSkill(name, pw, tasks), PortalSystem(tasks), adapter,
                           dataclasses.replace(OPTIONS, film=film)) for name in skills]
        return await run_tests(tests, [c.http_url for c in browsers.chromes], out_dir,
                               progress)
