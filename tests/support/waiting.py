"""Waiting for something to show, never for a fixed time: a test polls the evidence (the
site's hit log, the guard's record) and goes on the moment it is there. Only a check that
something did NOT happen waits a fixed, short time, once (``HitSite.settle``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def eventually(predicate: Callable[[], object], timeout: float = 10.0) -> bool:
    """True as soon as ``predicate()`` is; False if it still is not after ``timeout``
    seconds (generous: the machines are shared and slow; no timing is asserted)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.05)
    return bool(predicate())
