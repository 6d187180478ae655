"""How a run's steps fail: whose failure it is is said once per step.

Failures of the browser, the shop or the harness are infrastructure (``Infra``), never
the agent's; a teardown step that fails decides nothing (``quietly``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator

from ajantik_cdp.gauntlet.evidence.run_data import InfraError, InfraKind


class Infra(Exception):
    def __init__(self, kind: InfraKind, message: str) -> None:
        super().__init__(message)
        self.kind: InfraKind = kind

    def as_error(self) -> InfraError:
        return InfraError(self.kind, str(self))


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


@contextlib.contextmanager
def failing_as(kind: InfraKind | Callable[[], InfraKind], what: str) -> Iterator[None]:
    """Whatever breaks in this step is infrastructure of ``kind`` (decided when it
    breaks, if given as a function): the browser's, the shop's or the harness's, never
    the agent's. Any exception, because the step's own code is not the agent's."""
    try:
        yield
    except Infra:
        raise
    except Exception as exc:
        decided = kind() if callable(kind) else kind
        raise Infra(decided, f"{what}: {first_line(exc)}") from None


async def quietly(close: Callable[[], Awaitable[object]], timeout: float | None = None
                  ) -> None:
    """One teardown step. None of them decides a run or stops the next: a browser that
    is gone must not keep the guard running, and a close that fails is no evidence."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(close(), timeout)
