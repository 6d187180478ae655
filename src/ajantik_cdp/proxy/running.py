"""One way to run a guard inside another program: ``async with running_guard(options)``.

The demo, the gauntlet, the walkthrough, the benches and the tests all start a guard in
their own event loop, hand its URL to a client and stop it when they are done. The block
stops it on every exit (an error, a cancel, a timeout), so no caller can leave a guard
listening or a record without its end line.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from ajantik_cdp.proxy.server import GuardOptions, GuardServer

CLOSE_NORMAL = 1000


@dataclass(frozen=True)
class StartedGuard:
    """A guard that is listening: where clients connect and where it records."""

    server: GuardServer

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def url(self) -> str:
        """The http:// base a client is given in place of Chrome's."""
        return f"http://{self.server.own_netloc}"

    @property
    def record_path(self) -> Path | None:
        return self.server.options.record_path

    async def stop(self, reason: str = "stopped") -> None:
        """Close every client connection and end the record. Stopping twice is harmless,
        so a caller may stop early (to read the finished record) inside the block."""
        await self.server.shutdown(reason, CLOSE_NORMAL)


@asynccontextmanager
async def running_guard(options: GuardOptions,
                        reason: str = "finished") -> AsyncIterator[StartedGuard]:
    """Start a guard, yield it, and stop it with ``reason`` when the block ends.

    A guard that cannot start raises ``GuardStartError`` and leaves nothing behind."""
    guard = StartedGuard(await GuardServer.start(options))
    try:
        yield guard
    finally:
        await guard.stop(reason)
