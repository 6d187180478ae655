"""What ``ajantik test run`` asks of an adapter beyond the judge's four answers, all
optional (docs/adapter.md):

* ``report(output)``: the skill's final report, from its output (default: its stdout,
  the ask lines left out);
* ``write_points()``: where the skill writes, for ``ajantik test plan`` without a run;
* ``operator(event)``: what a person does when the skill stops to ask (sign in again,
  confirm an account); without one, every ask is answered ``ok: false``.

Each is checked like the judge's functions: a wrong shape or an exception ends the test
as one ``AdapterError`` line (exit code 2), naming the call.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ajantik_cdp.judge.adapter_loader import Adapter, AdapterError
from ajantik_cdp.testrun.plan.write_points import WritePoint
from ajantik_cdp.testrun.run.ask_lines import Answer


@dataclass(frozen=True)
class SkillOutput:
    """What a finished skill left, for the adapter's ``report(output)``."""

    stdout: str  # everything it printed on stdout, the ask lines left out
    stderr: str  # the end of its stderr, token-shaped values masked
    exit_code: int | None  # None: it was stopped (deadline, Ctrl-C)
    folder: Path  # the run's folder, $AJANTIK_RUN_DIR: a skill may write its report there


@dataclass(frozen=True)
class OperatorEvent:
    """A skill stopped to ask for a person. The operator acts in the browser through
    ``cdp_url`` (the run's guard, like the skill: what it does is recorded and held to
    the same rules) and returns ``Answer(ok, message)``."""

    ask: str  # what is asked, as the skill named it: "sign_in", "confirm_account", ...
    message: str
    data: Mapping[str, Any]  # the skill's whole ask line
    cdp_url: str
    run: str  # the run's label, e.g. "session_drop on POST /api/x/* (write 1, rep 1)"
    folder: Path
    env: Mapping[str, str] = field(default_factory=dict)  # what the skill was given


class AdapterHooks:
    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter

    @property
    def has_operator(self) -> bool:
        return self.adapter.has("operator")

    @property
    def has_write_points(self) -> bool:
        return self.adapter.has("write_points")

    def report(self, output: SkillOutput) -> str:
        if not self.adapter.has("report"):
            return output.stdout
        shown = "report(output)"
        got = self.adapter.call("report", shown, output)
        if not isinstance(got, str):
            raise AdapterError(self.adapter.path, shown, f"returned {_kind(got)}; return the "
                               "skill's final report as a str ('' when there is none)")
        return got

    def write_points(self) -> list[tuple[WritePoint, int | None]]:
        """The adapter's own list: ``["POST /api/x/*", ...]`` or ``{"POST /api/x/*": 3}``
        (writes of that point in one run)."""
        shown = "write_points()"
        got = self.adapter.call("write_points", shown)
        items: list[tuple[Any, Any]]
        if isinstance(got, Mapping):
            items = list(got.items())
        elif isinstance(got, list | tuple):
            items = [(label, None) for label in got]
        else:
            raise AdapterError(self.adapter.path, shown, f"returned {_kind(got)}; return a "
                               "list of 'METHOD /path/*' strings, or a dict of them to the "
                               "number of writes each makes in one run")
        out: list[tuple[WritePoint, int | None]] = []
        for label, count in items:
            try:
                point = WritePoint.parse(label) if isinstance(label, str) else None
            except ValueError as exc:
                raise AdapterError(self.adapter.path, shown, str(exc)) from None
            if point is None:
                raise AdapterError(self.adapter.path, shown, f"returned {_kind(label)} among "
                                   "the write points; each is a str like 'POST /api/x/*'")
            if count is not None and (not isinstance(count, int) or isinstance(count, bool)
                                      or count < 1):
                raise AdapterError(self.adapter.path, shown, f"gives {point.label} "
                                   f"{count!r} writes; give a whole number from 1")
            out.append((point, count))
        if not out:
            raise AdapterError(self.adapter.path, shown, "returned no write points")
        return out

    async def operator(self, event: OperatorEvent) -> Answer:
        shown = f"operator(event ask={event.ask!r})"
        fn = self.adapter.module.operator
        try:
            if inspect.iscoroutinefunction(fn):
                got = await fn(event)
            else:
                # A plain function may block (sync Playwright, input()): off the loop.
                got = await asyncio.to_thread(fn, event)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise AdapterError(self.adapter.path, shown, f"raised {type(exc).__name__}: "
                               f"{exc}{self.adapter.where(exc)}") from exc
        if isinstance(got, bool):
            return Answer(got)
        if not isinstance(got, Answer):
            raise AdapterError(self.adapter.path, shown, f"returned {_kind(got)}; return "
                               "Answer(ok, message) (from ajantik_cdp.testrun) or a bool")
        return got


def _kind(value: Any) -> str:
    return "None" if value is None else f"a {type(value).__name__}"
