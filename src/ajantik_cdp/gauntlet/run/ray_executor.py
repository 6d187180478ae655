"""The executor for a Ray cluster: a pool of headless Chromiums on every node.

The suite's ``workers`` are spread over the cluster's nodes (those with CPUs), in turn;
each node gets one actor (``ray_node.NodeLanes``), pinned to it, that keeps that node's
browsers, one worker each, one run at a time. A run is two Ray actor tasks on its
worker's node, the browser's half begun and ended (``lane.Lane``); the shop's half stays
here, in the driver, with the evaluator's secret (``run_harness``), so scoring,
classification and files are those of a local run.

A worker process or a node lost mid-run makes that run infrastructure (the suite then
runs it again on another worker, ``suite_session.run_suite``). Ray restarts a killed
actor on its node; its workers are used again once it answers, and taken out of the
suite for good when its node is gone.

Without ``address``, a Ray instance of this machine's own is started: loopback only, no
dashboard, no usage statistics, shut down at the end. With one, the cluster is joined
and left as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
import socket
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from ajantik_cdp.core.errors import AjantikError
from ajantik_cdp.gauntlet.evidence.claim_line import no_claim
from ajantik_cdp.gauntlet.evidence.run_data import AgentOutcome, InfraError, RunResult, RunSpec
from ajantik_cdp.gauntlet.evidence.run_files import FILM
from ajantik_cdp.gauntlet.run.executor import ExecutorStartError, ShopAccess, infra_result
from ajantik_cdp.gauntlet.run.failures import first_line
from ajantik_cdp.gauntlet.run.idle_workers import IdleWorkers, NoWorkerLeft
from ajantik_cdp.gauntlet.run.lane import SETUP_TIMEOUT, AgentPhase, EndPhase, ShopRun
from ajantik_cdp.gauntlet.run.run_harness import made_folder, run_once
from ajantik_shop import ShopHarness

EXTRA = "pip install 'ajantik-cdp[ray]'"
START_TIMEOUT = 180.0  # seconds for every node's actor to start its browsers
RESTART_TIMEOUT = 90.0  # seconds for a restarted actor to answer again
END_TIMEOUT = 60.0  # seconds for a run's end: page facts, screenshot, files, teardown
SLACK = 60.0  # seconds a run's begin may take beyond its agent's deadline and setup
# Ray's own processes read these when they start: ajantik's own instance binds to
# loopback only (it is a single-machine cluster, so nothing is lost) and sends nothing.
# Its agents get longer to start than Ray's default: a loaded machine misses that, and
# the raylet then exits.
OWN_INSTANCE_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
                    "RAY_agent_register_timeout_ms": "300000"}

log = logging.getLogger("ajantik.gauntlet")


class RayMissing(AjantikError):
    """``--executor ray`` without Ray installed: a missing part, like a missing Playwright
    (exit 2)."""


class RayConnectError(AjantikError):
    """A cluster address nothing answers at: what was handed in is wrong (exit 2)."""


def check_installed() -> None:
    """The one-line error naming the extra, found without importing Ray: the import takes
    a second or more, which a command that refuses its options should not spend."""
    if importlib.util.find_spec("ray") is None:
        raise RayMissing(f"--executor ray needs Ray, an optional extra: {EXTRA}")


def import_ray(*, own_instance: bool = False) -> ModuleType:
    """Ray, or the one-line error naming the extra. For this machine's own instance,
    Ray is told to stay on loopback first: it reads that once, when it is imported."""
    if own_instance and "ray" not in sys.modules:
        for key, value in OWN_INSTANCE_ENV.items():
            os.environ.setdefault(key, value)
    try:
        import ray
    except ImportError:
        raise RayMissing(f"--executor ray needs Ray, an optional extra: {EXTRA}") from None
    # Typed through a variable: without the extra mypy sees Any, with it a module.
    module: ModuleType = ray
    return module


_owned = False  # this process started (or joined) Ray, so it shuts it down at the end


REACH_TIMEOUT = 10.0  # seconds to open a connection to the cluster's head


def check_reachable(address: str) -> None:
    """A head that does not answer is one line now: ``ray.init`` would retry for ever,
    logging a warning every few seconds. Only for a plain ``host:port``; Ray resolves
    ``auto`` and ``ray://`` addresses itself."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), REACH_TIMEOUT).close()
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise RayConnectError(f"cannot reach the Ray cluster at {address}: {reason} "
                              "(is `ray start --head` running there, on that port?)") from None


def connect_ray(address: str | None, *, verbose: bool = False) -> str:
    """Join the cluster at ``address`` (or start this machine's own instance) unless this
    process is already connected; returns the address the nodes reach the driver at."""
    global _owned
    ray = import_ray(own_instance=address is None)
    if not ray.is_initialized():
        if address is not None:
            check_reachable(address)
        level = logging.INFO if verbose else logging.ERROR
        # "local": never join a cluster found on this machine by chance.
        target = address or "local"
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        for attempt in range(1, 3 if address is None else 2):
            try:
                if address is None:
                    ray.init(address=target, num_cpus=os.cpu_count() or 1,
                             include_dashboard=False, log_to_driver=verbose,
                             logging_level=level)
                else:
                    ray.init(address=target, log_to_driver=verbose, logging_level=level)
                break
            except Exception as exc:  # Ray raises bare Exceptions for a slow start
                with contextlib.suppress(Exception):
                    ray.shutdown()  # what the failed start left running
                if attempt == 1 and address is None and "timed out" in str(exc):
                    # Ray gives its own processes a fixed 30 s to start; a machine
                    # under load can miss that once.
                    log.warning("the local Ray instance was slow to start; trying again")
                    continue
                raise RayConnectError(f"cannot start or connect to {where}: "
                                      f"{first_line(exc)}") from None
        _owned = True
    return str(ray.util.get_node_ip_address())


def disconnect_ray() -> None:
    global _owned
    if _owned:
        ray = import_ray()
        with contextlib.suppress(Exception):
            ray.shutdown()
        _owned = False


@dataclass
class _Node:
    """One node's actor and what it said when it started."""

    handle: Any
    node_id: str
    address: str
    lanes: int
    info: dict[str, Any] = field(default_factory=dict)
    suspect: bool = False  # a call failed: check it answers before the next run
    gone: bool = False
    closed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def label(self) -> str:
        return f"node {self.address} ({self.node_id[:8]})"


@dataclass
class _RayWorker:
    """One lane of a node's actor: the browser's half of a run, as two actor tasks."""

    worker: int
    node: _Node
    lane: int
    lost: bool = False  # the current run's begin was lost: there is nothing to end

    def _lost(self, exc: BaseException, what: str) -> InfraError:
        self.node.suspect = True
        ray = sys.modules["ray"]
        if isinstance(exc, ray.exceptions.RayTaskError):  # our code failed on the node
            return InfraError("harness", f"{what} on {self.node.label}: "
                              f"{first_line(exc.cause or exc)}")
        if isinstance(exc, TimeoutError):
            return InfraError("browser", f"{what}: no answer from the Ray worker on "
                              f"{self.node.label}")
        return InfraError("browser", f"{what}: the Ray worker on {self.node.label} was "
                          f"lost ({first_line(exc)})")

    async def begin(self, spec: RunSpec, shop_run: ShopRun, folder: Path) -> AgentPhase:
        ray = sys.modules["ray"]
        self.lost = False
        try:
            phase: AgentPhase = await asyncio.wait_for(
                self.node.handle.begin.remote(self.lane, spec, shop_run),
                spec.deadline + SETUP_TIMEOUT + SLACK)
            return phase
        except (ray.exceptions.RayError, TimeoutError) as exc:
            self.lost = True
            return AgentPhase(AgentOutcome(no_claim("the agent did not finish")),
                              infra=self._lost(exc, "the run"))

    async def end(self, *, gather: bool, folder: Path) -> EndPhase:
        ray = sys.modules["ray"]
        if self.lost:
            return EndPhase()
        try:
            ended: EndPhase = await asyncio.wait_for(
                self.node.handle.end.remote(self.lane, gather), END_TIMEOUT)
        except (ray.exceptions.RayError, TimeoutError) as exc:
            return EndPhase(infra=self._lost(exc, "the run's end"))
        await asyncio.to_thread(_write_files, folder, ended.files)
        return replace(ended, files=())


def _write_files(folder: Path, files: tuple[tuple[str, bytes], ...]) -> None:
    made_folder(folder)
    for name, data in files:
        parts = name.split("/")
        # Names come from the node: stay inside, a file of the run or a frame of its film.
        if any(not p or p.startswith(".") for p in parts) or len(parts) > 2 or \
                (len(parts) == 2 and parts[0] != FILM):
            continue
        if len(parts) == 2:
            (folder / FILM).mkdir(mode=0o700, exist_ok=True)
        (folder / name).write_bytes(data)


def spread(workers: int, nodes: int) -> list[int]:
    """Workers per node, in turn: 5 over 2 nodes is [3, 2]."""
    return [workers // nodes + (1 if i < workers % nodes else 0) for i in range(nodes)]


class RayExecutor:
    name = "ray"

    def __init__(self, workers: int, shop: ShopAccess, *, address: str | None = None,
                 verbose: bool = False) -> None:
        if workers < 1:
            raise ValueError("an executor needs at least one worker")
        self._wanted = workers
        self._shop = shop
        self._address = address
        self._verbose = verbose
        self._nodes: list[_Node] = []
        self._workers: list[_RayWorker] = []
        self._idle: IdleWorkers[_RayWorker] = IdleWorkers()
        self._harness: ShopHarness | None = None
        self._notes: list[str] = []
        self.browser_version = "unknown"

    @property
    def workers(self) -> int:
        return len(self._workers) or self._wanted

    @property
    def notes(self) -> list[str]:
        return list(self._notes)

    def environment(self) -> dict[str, Any]:
        ray = sys.modules.get("ray")
        return {
            "executor": self.name, "workers": self.workers, "browser": self.browser_version,
            "ray": {
                "version": getattr(ray, "__version__", "unknown"),
                "cluster": "joined" if self._address else "this machine's own",
                "nodes": [{"node": n.node_id[:8], "address": n.address,
                           "workers": [w.worker for w in self._workers if w.node is n]}
                          for n in self._nodes],
            },
        }

    async def start(self) -> None:
        connect_ray(self._address, verbose=self._verbose)
        ray = import_ray()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from ajantik_cdp.gauntlet.run.ray_node import NodeLanes

        alive = sorted((n for n in ray.nodes()
                        if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0),
                       key=lambda n: (n["NodeManagerAddress"], n["NodeID"]))
        if not alive:
            raise ExecutorStartError("the Ray cluster has no live node with CPUs to run on")
        alive = alive[:self._wanted]
        actor_class = ray.remote(NodeLanes)
        for node, count in zip(alive, spread(self._wanted, len(alive)), strict=True):
            handle = actor_class.options(
                num_cpus=0, max_restarts=-1, max_task_retries=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
            ).remote(count, self._shop.base_url)
            self._nodes.append(_Node(handle, node["NodeID"], node["NodeManagerAddress"], count))
        self._harness = ShopHarness(self._shop.base_url, self._shop.secret)
        try:
            infos = await asyncio.wait_for(asyncio.gather(
                *(n.handle.start.remote() for n in self._nodes)), START_TIMEOUT)
        except TimeoutError:
            await self.close()
            raise ExecutorStartError(f"the Ray nodes did not start their browsers within "
                                     f"{START_TIMEOUT:g}s") from None
        except ray.exceptions.RayError as exc:
            await self.close()
            cause = exc.cause if isinstance(exc, ray.exceptions.RayTaskError) else exc
            raise ExecutorStartError(f"a Ray node could not start its browsers: "
                                     f"{first_line(cause or exc)}") from None
        for node, info in zip(self._nodes, infos, strict=True):
            node.info = info
            for lane in range(node.lanes):
                worker = _RayWorker(len(self._workers), node, lane)
                self._workers.append(worker)
                self._idle.add(worker)
            mine = ", ".join(str(w.worker) for w in self._workers if w.node is node)
            self._notes.append(f"{node.label}: workers {mine}")
        self.browser_version = str(infos[0].get("browser", "unknown"))

    async def _usable(self, node: _Node) -> bool:
        """A node whose actor failed a call: is it back (restarted by Ray) or gone?"""
        async with node.lock:
            if node.gone or not node.suspect:
                return not node.gone
            ray = sys.modules["ray"]
            try:
                await asyncio.wait_for(node.handle.start.remote(), RESTART_TIMEOUT)
            except (ray.exceptions.RayError, TimeoutError) as exc:
                node.gone = True
                self._notes.append(f"{node.label}: its Ray worker did not come back "
                                   f"({first_line(exc)}); its workers are out of the suite")
                return False
            node.suspect = False
            self._notes.append(f"{node.label}: its Ray worker was restarted; in use again")
            return True

    async def submit(self, spec: RunSpec, avoid: frozenset[int] = frozenset()) -> RunResult:
        while True:
            try:
                worker = await self._idle.take(avoid)
            except NoWorkerLeft:
                return infra_result(spec, -1, "browser", "no Ray worker is left: every "
                                    "node of the suite was lost")
            if await self._usable(worker.node):
                break
            await self._idle.retire(worker)
        try:
            assert self._harness is not None
            return await run_once(spec, self._harness, worker)
        except Exception as exc:  # run_once keeps its own failures; this is a last resort
            return infra_result(spec, worker.worker, "harness", first_line(exc))
        finally:
            await self._idle.give(worker)

    async def close(self) -> None:
        ray = sys.modules.get("ray")
        for node in self._nodes:
            if ray is None or node.gone or node.closed:
                continue
            node.closed = True
            try:
                notes = await asyncio.wait_for(node.handle.close.remote(), END_TIMEOUT)
                self._notes += [f"{node.label}: {n}" for n in notes]
            except (ray.exceptions.RayError, TimeoutError) as exc:
                self._notes.append(f"{node.label}: its browsers could not be closed "
                                   f"({first_line(exc)})")
            with contextlib.suppress(Exception):
                ray.kill(node.handle, no_restart=True)
        if self._harness is not None:
            await self._harness.close()
            self._harness = None
        disconnect_ray()
