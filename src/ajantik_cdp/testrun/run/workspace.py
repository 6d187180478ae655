"""The system a test runs against, made ready for each run.

``ajantik test run`` tests the person's own system: the guard config they give, and
``--before``, a command run before every run to reset the test workspace
(``CommandSystem``). ``ajantik demo`` starts a fresh portal per run instead and checks
its verdicts against the portal's own state (``demo/portal_system.py``). Either way the
runner asks ``system.workspace(run, folder)`` for the run's guard config and
environment, and calls its ``check`` once the run is judged.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.judge.judging import Judgement
from ajantik_cdp.process_group import kill_leftovers, stop_group
from ajantik_cdp.testrun.plan.run_plan import PlannedRun

BEFORE_OUTPUT_SHOWN = 3000  # characters of a failing --before's output shown


@dataclass(frozen=True)
class SystemCheck:
    """What the system's own side says about a judged run (the demo: the portal's state)."""

    facts: tuple[tuple[str, str], ...] = ()
    problems: tuple[str, ...] = ()  # where it disagrees with the verdicts
    data: Any = None


@dataclass(frozen=True)
class Workspace:
    config: GuardConfig
    env: Mapping[str, str] = field(default_factory=dict)
    check: Callable[[Judgement], Awaitable[SystemCheck]] | None = None


class System(Protocol):
    def workspace(self, run: PlannedRun,
                  folder: Path) -> AbstractAsyncContextManager[Workspace]: ...


class Stop(Exception):
    """Nothing more can run: the reason, what to show with it, and the exit code."""

    def __init__(self, reason: str, output: str = "", exit_code: int = 1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.output = output
        self.exit_code = exit_code


async def run_before(command: str, run: PlannedRun, folder: Path, timeout: float) -> None:
    """Run ``--before`` in a shell; its output goes to ``before.log``. A failure (or a
    command still running after ``timeout``) stops the test: a run on a workspace that
    was not reset would be judged on someone else's leftovers."""
    log = folder / "before.log"
    env = {**os.environ, "AJANTIK_RUN": run.label, "AJANTIK_RUN_DIR": str(folder)}
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_shell(
            command, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=out, env=env,
            start_new_session=True)
        try:
            code: int | None = await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            code = None
            await stop_group(proc)
        finally:
            if proc.returncode is None:
                await stop_group(proc)
            kill_leftovers(proc)
    if code == 0:
        return
    output = log.read_text(encoding="utf-8", errors="replace")[-BEFORE_OUTPUT_SHOWN:]
    how = f"exit code {code}" if code is not None else f"still running after {timeout:g}s"
    raise Stop(f"--before `{command}` failed before the {run.label} run ({how}); the test "
               f"stops there: nothing is judged on a workspace that was not reset "
               f"(its output: {log})", output)


@dataclass(frozen=True)
class CommandSystem:
    """The person's own system: one guard config, and ``--before`` before every run."""

    config: GuardConfig
    before: str | None = None
    before_timeout: float = 300.0

    @asynccontextmanager
    async def workspace(self, run: PlannedRun, folder: Path) -> AsyncIterator[Workspace]:
        if self.before:
            await run_before(self.before, run, folder, self.before_timeout)
        yield Workspace(self.config)
