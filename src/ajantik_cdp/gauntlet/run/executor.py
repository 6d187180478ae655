"""The executor interface: where a run happens is its business, what a run is is not.

The suite runner hands an executor ``RunSpec``s and gets ``RunResult``s back: plain data
(``run_data``). Every executor carries a run out with the one harness
(``run_harness.run_once``): the shop's half here, with the evaluator's secret; the
browser's half wherever the executor keeps its browsers. ``LocalExecutor`` keeps them on
this machine (headless Chromiums it starts, or remote browsers by their DevTools
endpoint); ``RayExecutor`` keeps a pool on every node of a Ray cluster. Scoring happens
after, in the pure core, on the evidence alone, so every executor's runs are judged by
the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ajantik_cdp.core.errors import EXIT_CHROME, AjantikError
from ajantik_cdp.gauntlet.evidence.claim_line import no_claim
from ajantik_cdp.gauntlet.evidence.run_data import (
    AgentOutcome,
    InfraError,
    InfraKind,
    RunResult,
    RunSpec,
    Timings,
)


@dataclass(frozen=True)
class ShopAccess:
    """Where the shop's harness endpoints are, and the evaluator's secret for them."""

    base_url: str
    secret: str

    def __repr__(self) -> str:  # the secret never reaches a log line or a traceback
        return f"ShopAccess({self.base_url!r}, secret=…)"


class ExecutorStartError(AjantikError):
    """The executor could not get its browsers or its cluster ready (one line): no usable
    Chrome, exit 3."""

    exit_code = EXIT_CHROME


class Executor(Protocol):
    name: str  # "local" or "ray", as results.json says

    @property
    def workers(self) -> int:
        """How many runs it can carry out at once."""
        ...

    @property
    def notes(self) -> list[str]:
        """What happened to the workers (a browser replaced, a node lost), for the
        results file."""
        ...

    def environment(self) -> dict[str, Any]:
        """Where the runs ran, for results.json: never an address that is a secret."""
        ...

    async def start(self) -> None: ...

    async def submit(self, spec: RunSpec, avoid: frozenset[int] = frozenset()) -> RunResult:
        """Carry out one run, on a worker not in ``avoid`` when there is one, and return
        its evidence. Never raises for a failed run: a broken browser, a lost node or an
        unreachable shop comes back as ``RunResult.infra``."""
        ...

    async def close(self) -> None: ...


def infra_result(spec: RunSpec, worker: int, kind: InfraKind, message: str) -> RunResult:
    """The evidence of a run that did not get as far as its harness."""
    return RunResult(spec.run_id, spec.variant, spec.repetition, worker, "", Timings(),
                     AgentOutcome(no_claim("the agent did not run")),
                     infra=InfraError(kind, message))
