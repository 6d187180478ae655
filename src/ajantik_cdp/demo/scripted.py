"""The demo's skills: portal-pilot's scripted ``blind`` and ``verifying``, run in-process
(one Playwright for every run) rather than as a program each, so the demo stays quick.
They get the same context and give the same result as a program run by ``ajantik test
run``: the run's guard, its deadline, the operator for their asks."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from ajantik_cdp.judge.adapter_loader import AdapterError
from ajantik_cdp.testrun.run.ask_lines import Ask
from ajantik_cdp.testrun.run.skill import AskExchange, SkillContext, SkillRun
from ajantik_portal_pilot.scripted_skills import SKILLS
from ajantik_portal_pilot.sign_in import sign_in
from ajantik_portal_pilot.task import FilingTask


@dataclass(frozen=True)
class ScriptedSkill:
    name: str  # "blind" or "verifying"
    pw: Any  # the demo's Playwright
    tasks: list[FilingTask]

    @property
    def label(self) -> str:
        return f"ajantik_portal_pilot.scripted_skills.{self.name}"

    async def run(self, ctx: SkillContext) -> SkillRun:
        started = time.monotonic()
        asks: list[AskExchange] = []
        origin = ctx.env["PORTAL_URL"]

        async def ask(kind: str, message: str) -> bool:
            question = Ask(kind, message, len(asks) + 1,
                           {"ask": kind, "id": len(asks) + 1, "message": message,
                            "portal": origin})
            t0 = time.monotonic()
            answer = await ctx.ask(question)
            asks.append(AskExchange(question, answer, time.monotonic() - t0))
            return answer.ok

        report, crashed, timed_out = "", None, None
        try:
            report = await asyncio.wait_for(self._drive(ctx.cdp_url, origin, ask),
                                            ctx.deadline)
        except TimeoutError:
            timed_out = f"stopped at its deadline ({ctx.deadline:g}s)"
        except AdapterError:
            raise  # the operator is broken: not the skill's crash
        except Exception as exc:  # a crashed skill leaves no report; still judged
            first = str(exc).splitlines()[0] if str(exc) else ""
            crashed = f"{type(exc).__name__}: {first}"
        return SkillRun(report, exit_code=None if (crashed or timed_out) else 0,
                        crashed=crashed, timed_out=timed_out, asks=tuple(asks),
                        seconds=time.monotonic() - started)

    async def _drive(self, cdp_url: str, origin: str, ask: Any) -> str:
        browser = await self.pw.chromium.connect_over_cdp(cdp_url)
        try:
            # The browser's own context, as a person's Chrome: the operator signs in there.
            page = await browser.contexts[0].new_page()
            try:
                await sign_in(page, origin)  # the person, before handing over the browser
                report: str = await SKILLS[self.name](page, origin, self.tasks, ask)
                return report
            finally:
                await page.close()
        finally:
            await browser.close()
