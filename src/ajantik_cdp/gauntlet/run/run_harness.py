"""One run, start to finish, and the evidence it leaves; the same for every executor.

    shop run (fresh token) ─▶ browser's half begins: [guard], context, the agent ─▶ the
    shop's state once no write is in flight ─▶ browser's half ends: the page, a
    screenshot, teardown ─▶ the guard's record read ─▶ the shop run deleted

The shop's steps need the evaluator's secret and happen here, in the suite's process;
the browser's half (``lane.Lane``) runs wherever the executor keeps its browsers and
answers in plain data, so a run on a Ray node is carried out, timed and classified by
this same code as a run on this machine. A run that breaks leaves evidence of how and
never takes the suite down: failures of the browser, the shop or the harness are
infrastructure, not the agent's.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from ajantik_cdp.core.policy.rules import is_write
from ajantik_cdp.core.record.record_schema import BlockLine, RequestLine
from ajantik_cdp.gauntlet.evidence.claim_line import no_claim
from ajantik_cdp.gauntlet.evidence.run_data import (
    AgentOutcome,
    InfraError,
    RecordFacts,
    RunResult,
    RunSpec,
    Timings,
)
from ajantik_cdp.gauntlet.evidence.run_files import RECORD
from ajantik_cdp.gauntlet.run.failures import Infra, failing_as, quietly
from ajantik_cdp.gauntlet.run.lane import AgentPhase, EndPhase, ShopRun
from ajantik_cdp.gauntlet.suite.variant_set import FAULT_VARIANTS, shop_variant
from ajantik_cdp.record.reader import MissingRecord, RecordReadError, load_record
from ajantik_shop import ShopHarness

SETTLE_TIMEOUT = 15.0  # seconds to wait for the shop's in-flight writes to be answered


class BrowserHalf(Protocol):
    """The browser's half of one run, wherever it runs (``lane.Lane`` in this process).
    Neither call raises for a failed run; ``end`` is always called after ``begin``."""

    @property
    def worker(self) -> int: ...

    async def begin(self, spec: RunSpec, shop_run: ShopRun, folder: Path) -> AgentPhase: ...

    async def end(self, *, gather: bool, folder: Path) -> EndPhase: ...


def made_folder(path: str | Path) -> Path:
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def record_facts(path: Path) -> RecordFacts | None:
    try:
        loaded = load_record(path)
    except MissingRecord:
        return None
    except RecordReadError as exc:
        return RecordFacts(path=path.name, requests=0, writes=0, faulted=0, fault_kinds=(),
                           blocks=0, problems=(str(exc),))
    lines = loaded.lines
    problems = loaded.notes() if loaded.torn_line is not None else []
    requests = [ln for ln in lines if isinstance(ln, RequestLine)]
    faulted = [ln for ln in requests if ln.fault]
    return RecordFacts(
        path=path.name, requests=len(requests),
        writes=sum(is_write(ln.method) for ln in requests),
        faulted=len(faulted), fault_kinds=tuple(sorted({str(ln.fault) for ln in faulted})),
        blocks=sum(isinstance(ln, BlockLine) for ln in lines), problems=tuple(problems))


async def _settled_state(shop: ShopHarness, token: str) -> dict[str, Any]:
    """The shop's state once every write it received has been answered (slow_api holds
    them); after SETTLE_TIMEOUT the state is returned as it is and scored unscorable."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_TIMEOUT
    while True:
        with failing_as("shop", "the shop's state could not be read"):
            state = await shop.state(token)
        if not state.get("in_flight") or loop.time() > deadline:
            return state
        await asyncio.sleep(0.1)


async def run_once(spec: RunSpec, shop: ShopHarness, half: BrowserHalf) -> RunResult:
    folder = made_folder(spec.artifacts)
    started, started_at = time.monotonic(), _now()
    agent = AgentPhase(AgentOutcome(no_claim("the agent did not run")))
    ended = EndPhase()
    state: dict[str, Any] | None = None
    infra: InfraError | None = None
    try:
        with failing_as("shop", "the shop did not create a run"):
            info = await shop.create_run(spec.suite_run, shop_variant(spec.variant),
                                         spec.repetition)
        token = str(info["token"])
        try:
            shop_run = ShopRun(token, str(info["start_url"]), dict(info["browser"]))
            shop_seconds = time.monotonic() - started
            agent = await half.begin(spec, shop_run, folder)
            agent = AgentPhase(agent.outcome, shop_seconds + agent.setup_seconds,
                               agent.agent_seconds, agent.infra)
            infra = agent.infra
            if infra is None:
                try:
                    state = await _settled_state(shop, token)
                except Infra as exc:
                    infra = exc.as_error()
            ended = await half.end(gather=infra is None, folder=folder)
            infra = infra or ended.infra
        finally:
            await quietly(lambda: shop.delete_run(token))
    except Infra as exc:
        infra = exc.as_error()
    end = time.monotonic()
    fault = spec.variant in FAULT_VARIANTS
    setup_end = started + agent.setup_seconds
    agent_end = setup_end + agent.agent_seconds
    return RunResult(
        run_id=spec.run_id, variant=spec.variant, repetition=spec.repetition,
        worker=half.worker, started_at=started_at,
        timings=Timings(total=end - started, setup=agent.setup_seconds,
                        agent=agent.agent_seconds, evaluate=max(0.0, end - agent_end)),
        agent=agent.outcome, state=state, infra=infra, page=ended.page,
        record=record_facts(folder / RECORD) if fault else None,
        screenshot=ended.screenshot, notes=ended.notes)
