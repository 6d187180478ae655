"""The browsers of one Ray node: the actor ``RayExecutor`` starts there, once.

It keeps a pool of headless Chromiums (``browser/pool.py``), one lane each, and carries
out the browser's half of a run on a lane (``lane.Lane``, the same code as on this
machine): the guard of a fault run starts here, on the node, in front of the node's
Chromium. A run's files are written to a folder of the node's own and come back with
the run's end; the folder is then removed. The pool starts on the first call, so an
actor Ray restarts after its process was killed starts a fresh pool by itself, after
ending the Chromiums its predecessor left running (noted in the pool's ledger).

It never sees the evaluator's secret: the suite's process creates the shop run, reads
its state and hands over only the run's start URL and browser setup. Agents started
here inherit the node's environment without Ray's own variables.

This module does not import Ray: the executor wraps the class with ``ray.remote``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from dataclasses import replace
from importlib import import_module
from pathlib import Path
from typing import Any

from ajantik_cdp.browser.pool import BrowserPool, end_leftovers
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.gauntlet.evidence.run_data import RunSpec
from ajantik_cdp.gauntlet.evidence.run_files import FILM
from ajantik_cdp.gauntlet.run.lane import AgentPhase, EndPhase, Lane, ShopRun

MAX_SHIPPED = 32 << 20  # bytes of one file brought back; a longer one keeps its end
RAY_ENV_PREFIX = "RAY_"  # the worker's link to the cluster (and its token): not the agent's


def _agent_base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(RAY_ENV_PREFIX)}


def _read_files(folder: Path) -> tuple[tuple[tuple[str, bytes], ...], list[str]]:
    """The run's files, and its film's frames as ``film/<name>``."""
    files: list[tuple[str, bytes]] = []
    notes: list[str] = []
    film = folder / FILM
    paths = sorted(folder.iterdir()) if folder.is_dir() else []
    paths += sorted(film.iterdir()) if film.is_dir() else []
    for path in paths:
        if not path.is_file():
            continue
        name = path.relative_to(folder).as_posix()
        size = path.stat().st_size
        with path.open("rb") as f:
            if size > MAX_SHIPPED:
                f.seek(size - MAX_SHIPPED)
                notes.append(f"{name}: only its last {MAX_SHIPPED >> 20} MiB came back "
                             f"from the node ({size} bytes in all)")
            files.append((name, f.read()))
    return tuple(files), notes


class NodeLanes:
    def __init__(self, lanes: int, shop_url: str) -> None:
        self._wanted = lanes
        self._shop_url = shop_url
        self._lock: asyncio.Lock | None = None
        self._playwright_cm: Any = None
        self._pool: BrowserPool | None = None
        self._lanes: list[Lane] = []
        self._folders: dict[int, Path] = {}
        self._notes: list[str] = []
        self._info: dict[str, Any] = {}
        self._root = Path(tempfile.gettempdir()) / "ajantik-ray" / "runs"  # until started

    def _where(self) -> tuple[str, str, str]:
        ray: Any = import_module("ray")  # present: this runs as a Ray actor
        ctx = ray.get_runtime_context()
        actor = ctx.get_actor_id() or "driver"
        return ctx.get_node_id(), ray.util.get_node_ip_address(), actor

    async def start(self) -> dict[str, Any]:
        """Start the pool once (again after a restart) and say where it runs."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._pool is None:
                await self._start_pool()
        return self._info

    async def _start_pool(self) -> None:
        from playwright.async_api import async_playwright

        node, address, actor = self._where()
        # Keyed by actor, not node: another suite's actor on this node has its own, and
        # a restarted actor keeps its id, so it finds what its predecessor noted.
        base = Path(tempfile.gettempdir()) / "ajantik-ray"
        ledger = base / f"{actor}.json"
        ended = await asyncio.to_thread(end_leftovers, ledger)
        self._root = base / f"{actor}-runs"
        await asyncio.to_thread(shutil.rmtree, self._root, True)  # a predecessor's
        if ended:
            self._notes.append(f"node {address} ({node[:8]}): ended {counted(ended, 'Chromium')} "
                               "left by a worker that was killed")
        self._playwright_cm = async_playwright()
        playwright = await self._playwright_cm.__aenter__()
        try:
            self._pool = await BrowserPool.start(self._wanted, ledger=ledger)
        except BaseException:
            await self._playwright_cm.__aexit__(None, None, None)
            self._playwright_cm = None
            raise
        base_env = _agent_base_env()
        self._lanes = [Lane(i, playwright, self._pool, agent_base_env=base_env)
                       for i in range(self._wanted)]
        versions = await asyncio.gather(*(lane.warm_up(self._shop_url)
                                          for lane in self._lanes), return_exceptions=True)
        failed = [v for v in versions if isinstance(v, BaseException)]
        if len(failed) == len(versions):
            # Every lane failed the same first page load: the shop is not reachable from
            # this node (the usual cause), or Chromium cannot load pages here.
            raise RuntimeError(f"node {address} cannot load the shop at {self._shop_url}: "
                               f"{str(failed[0]).strip().splitlines()[0]}")
        self._info = {"node": node, "address": address, "pid": os.getpid(),
                      "lanes": self._wanted,
                      "browser": next(str(v) for v in versions if isinstance(v, str))}

    async def begin(self, lane: int, spec: RunSpec, shop_run: ShopRun) -> AgentPhase:
        await self.start()
        folder = self._root / spec.run_id
        await asyncio.to_thread(shutil.rmtree, folder, True)
        self._folders[lane] = folder
        return await self._lanes[lane].begin(spec, shop_run, folder)

    async def end(self, lane: int, gather: bool) -> EndPhase:
        folder = self._folders.pop(lane, None)
        if folder is None or not self._lanes:
            return EndPhase()
        ended = await self._lanes[lane].end(gather=gather, folder=folder)
        files, notes = await asyncio.to_thread(_read_files, folder)
        await asyncio.to_thread(shutil.rmtree, folder, True)
        return replace(ended, files=files, notes=(*ended.notes, *notes))

    def pid(self) -> int:
        return os.getpid()

    async def notes(self) -> list[str]:
        return [*self._notes, *(n for lane in self._lanes for n in lane.notes)]

    async def close(self) -> list[str]:
        if self._pool is None:
            # Restarted after a kill and never used since: its predecessor's Chromiums
            # still have to go.
            node, address, actor = self._where()
            ledger = Path(tempfile.gettempdir()) / "ajantik-ray" / f"{actor}.json"
            if await asyncio.to_thread(end_leftovers, ledger):
                self._notes.append(f"node {address} ({node[:8]}): ended the Chromiums "
                                   "left by a worker that was killed")
        notes = await self.notes()
        for lane in self._lanes:
            with contextlib.suppress(Exception):
                await lane.end(gather=False, folder=self._root)
        self._lanes = []
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
        if self._playwright_cm is not None:
            with contextlib.suppress(Exception):
                await self._playwright_cm.__aexit__(None, None, None)
            self._playwright_cm = None
        await asyncio.to_thread(shutil.rmtree, self._root, True)
        return notes
