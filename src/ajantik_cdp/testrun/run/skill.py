"""What the runner needs of a skill: run once against a guard, within a deadline, asking
the operator when it must, and say how it ended.

``ajantik test run`` runs any program (``command_skill.CommandSkill``); ``ajantik demo``
runs the portal-pilot example's scripted skills in-process (``demo/scripted.py``), with
the same context and the same result, so the planner, runner, judge and report are one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ajantik_cdp.testrun.run.ask_lines import Answer, Ask

AskOperator = Callable[[Ask], Awaitable[Answer]]


@dataclass(frozen=True)
class SkillContext:
    cdp_url: str  # the run's guard
    env: Mapping[str, str]  # what the system's workspace adds (PORTAL_URL, ...)
    folder: Path  # the run's folder
    deadline: float  # seconds, operator time included
    label: str  # the run's label
    ask: AskOperator  # answers an ask; the operator's time counts against the deadline


@dataclass(frozen=True)
class AskExchange:
    ask: Ask
    answer: Answer
    seconds: float


@dataclass(frozen=True)
class SkillRun:
    """How one run of a skill ended."""

    stdout: str  # its output on stdout, ask lines left out (the default report)
    stderr_tail: str = ""  # the end of its stderr, token-shaped values masked
    exit_code: int | None = 0  # None when it was stopped
    crashed: str | None = None  # why it counts as crashed: a non-zero exit, a signal
    timed_out: str | None = None  # "stopped at its deadline (60s)"
    asks: tuple[AskExchange, ...] = ()
    seconds: float = 0.0
    stdout_truncated: int = 0  # bytes of stdout beyond what is kept in memory
    files: tuple[str, ...] = field(default=())  # its output files in the run folder


class Skill(Protocol):
    @property
    def label(self) -> str:
        """How the skill is named in the output: the command line, or a scripted name."""

    async def run(self, ctx: SkillContext) -> SkillRun: ...
