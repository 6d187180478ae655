"""Stopping a child program and everything it started: its whole process group.

The gauntlet's command agents, the skills of ``ajantik test run`` and its ``--before``
commands are started in a session of their own (``start_new_session=True``), so that a
Ctrl-C on the terminal reaches ajantik alone, which then stops each of them in order and
keeps what finished. A program's children may outlive it; they belong to its run, not
the next one, so the group is killed even when the program itself has exited.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

GRACE = 3.0  # seconds between SIGTERM and SIGKILL


async def stop_group(proc: asyncio.subprocess.Process, grace: float = GRACE) -> None:
    """SIGTERM to the group, then SIGKILL if the leader has not gone within ``grace``."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            await asyncio.wait_for(proc.wait(), grace)
            return
        except TimeoutError:
            continue


def kill_leftovers(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL whatever is left of the group once its leader has exited."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
