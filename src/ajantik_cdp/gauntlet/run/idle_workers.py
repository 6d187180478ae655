"""Which workers are free, for executors that hand each run to one worker at a time.

A run lost to infrastructure is retried on another worker than the one it was lost on
(``avoid``); when every worker is to be avoided (a suite on one browser), any will do.
A worker taken out for good (its node is gone) is never handed out again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Generic, Protocol, TypeVar


class HasWorker(Protocol):
    @property
    def worker(self) -> int: ...


W = TypeVar("W", bound=HasWorker)


class NoWorkerLeft(Exception):
    """Every worker was taken out: the runs still to come cannot run anywhere."""


class IdleWorkers(Generic[W]):
    def __init__(self, workers: Iterable[W] = ()) -> None:
        self._idle: list[W] = list(workers)
        self._ids = {w.worker for w in self._idle}  # every worker not taken out
        self._changed = asyncio.Condition()

    async def take(self, avoid: frozenset[int] = frozenset()) -> W:
        async with self._changed:
            while True:
                if not self._ids:
                    raise NoWorkerLeft("no worker is left to run on")
                usable = [w for w in self._idle if w.worker not in avoid]
                if not usable and self._ids <= avoid:
                    # Only workers to avoid are left: waiting for another would be forever.
                    usable = list(self._idle)
                if usable:
                    self._idle.remove(usable[0])
                    return usable[0]
                await self._changed.wait()

    async def give(self, worker: W) -> None:
        async with self._changed:
            self._idle.append(worker)
            self._changed.notify_all()

    async def retire(self, worker: W) -> None:
        """``worker`` (taken, not given back) will never run again."""
        async with self._changed:
            self._ids.discard(worker.worker)
            self._changed.notify_all()

    def add(self, worker: W) -> None:
        self._idle.append(worker)
        self._ids.add(worker.worker)

    @property
    def count(self) -> int:
        return len(self._ids)
