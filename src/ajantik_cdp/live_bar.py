"""The live progress bar that `gauntlet run` and `test run` show on a terminal. Off a
terminal (CI logs, pipes) there is no bar and the caller prints one line per finished
run instead, so a log never holds a bar's redraws."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)


class LiveBar:
    def __init__(self, label: str, console: Console, *, lines: bool | None) -> None:
        self.label = label
        self.console = console
        self.lines = (not console.is_terminal) if lines is None else lines
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def _open(self, description: str, total: int | None) -> None:
        if self.lines:
            return
        self._bar = Progress(TextColumn(f"[bold]{self.label}"), BarColumn(),
                             MofNCompleteColumn(), TextColumn("{task.description}"),
                             TimeElapsedColumn(), console=self.console, transient=True)
        self._bar.__enter__()
        self._task = self._bar.add_task(description, total=total)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, exc, tb)
