"""The executor interface: where a run happens is its business, what a run is is not.

The suite runner hands an executor ``RunSpec``s and gets ``RunResult``s back: plain data
(``run_data``), so an executor can ship a spec to a remote browser pool or a distributed
engine and bring the evidence back. The only local one is ``LocalExecutor``: one headless
Chromium per worker on this machine. Scoring happens after, in the pure core, on the
evidence alone, so every executor's runs are judged by the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ajantik_cdp.gauntlet.evidence.run_data import RunResult, RunSpec


@dataclass(frozen=True)
class ShopAccess:
    """Where the shop's harness endpoints are, and the evaluator's secret for them."""

    base_url: str
    secret: str

    def __repr__(self) -> str:  # the secret never reaches a log line or a traceback
        return f"ShopAccess({self.base_url!r}, secret=…)"


class Executor(Protocol):
    @property
    def workers(self) -> int:
        """How many runs it can carry out at once."""
        ...

    async def start(self) -> None: ...

    async def submit(self, spec: RunSpec) -> RunResult:
        """Carry out one run and return its evidence. Never raises for a failed run:
        a broken browser or an unreachable shop comes back as ``RunResult.infra``."""
        ...

    async def close(self) -> None: ...
