"""How long `ajantik demo` takes, one lane against two, side by side.

    python bench/demo_bench.py [--rounds 3]
    python bench/demo_bench.py --film 1 2 [--rounds 3]   # what filming every run costs

Rounds alternate workers=1 and workers=2 so both see the same load. Prints, per setting, the
median wall time and the median CPU time (this process and every child it reaped:
Chromium, Playwright's driver), plus the load average, because on a shared machine the
wall time says more about the neighbours than about the demo. The target (issue 13): 30-33
s of wall time with two workers on two idle cores; 27.4 s measured on 2026-12-02.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.demo.plan import conclusions
from ajantik_cdp.demo.runner import run_demo
from ajantik_cdp.testrun.run.runner import JudgedRun, SkillTestResult


class Quiet:
    def planned(self, result: SkillTestResult, total: int) -> None:
        pass

    def finished(self, run: JudgedRun, done: int, total: int) -> None:
        pass


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def one(workers: int, film: FilmPolicy | None = None) -> tuple[float, float, list[str]]:
    """Wall and CPU seconds of one demo, and the conclusions that did not hold."""
    with tempfile.TemporaryDirectory(prefix="ajantik-demo-bench-") as tmp:
        cpu0, t0 = cpu_seconds(), time.monotonic()
        outcome = asyncio.run(run_demo(Path(tmp), Quiet(), workers=workers, film=film))
        wall, cpu = time.monotonic() - t0, cpu_seconds() - cpu0
    return wall, cpu, [c.text for c in conclusions(outcome) if not c.holds]


def main() -> None:
    logging.getLogger("ajantik").setLevel(logging.ERROR)  # the guards' FAULT lines
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--film", type=float, metavar="FPS", nargs="+",
                        help="Instead: two workers, without film against filming at each FPS "
                        "(the issue's bound: the demo's wall time moves by at most 10%%).")
    args = parser.parse_args()
    if args.film is not None:
        film_cost(args.rounds, [FilmPolicy(fps=fps) for fps in args.film])
        return
    results: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    for r in range(args.rounds):
        for workers in (1, 2):
            load = os.getloadavg()[0]
            wall, cpu, failed = one(workers)
            results[workers].append((wall, cpu))
            print(f"round {r + 1} workers={workers}: {wall:5.1f}s wall {cpu:5.1f}s CPU "
                  f"(load {load:.1f}){'  CONCLUSIONS FAILED' if failed else ''}", flush=True)
            for text in failed:
                print(f"  not held: {text}", flush=True)
    print(f"{'':8}{'median wall':>14}{'median CPU':>14}")
    for workers, rows in results.items():
        print(f"workers={workers:<3}{statistics.median(w for w, _ in rows):13.1f}s"
              f"{statistics.median(c for _, c in rows):13.1f}s")
    print(f"cores: {os.cpu_count()}, load average now: {os.getloadavg()[0]:.1f}")


def film_cost(rounds: int, policies: list[FilmPolicy]) -> None:
    """Rounds rotate which side goes first, so every side sees the same neighbours."""
    films: list[FilmPolicy | None] = [None, *policies]
    names = ["no film", *(f"film {p.fps:g} fps" for p in policies)]
    sides: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for r in range(rounds):
        turn = r % len(names)
        for name, film in zip(names[turn:] + names[:turn], films[turn:] + films[:turn],
                              strict=True):
            load = os.getloadavg()[0]
            wall, cpu, failed = one(2, film)
            sides[name].append((wall, cpu))
            print(f"round {r + 1} {name}: {wall:5.1f}s wall {cpu:5.1f}s CPU "
                  f"(load {load:.1f}){'  CONCLUSIONS FAILED' if failed else ''}", flush=True)
            for text in failed:
                print(f"  not held: {text}", flush=True)
    walls = {name: statistics.median(w for w, _ in rows) for name, rows in sides.items()}
    cpus = {name: statistics.median(c for _, c in rows) for name, rows in sides.items()}
    print(f"{'':16}{'median wall':>14}{'median CPU':>14}{'wall ratio':>12}{'CPU ratio':>11}")
    for name in names:
        print(f"{name:<16}{walls[name]:13.1f}s{cpus[name]:13.1f}s"
              f"{walls[name] / walls['no film']:11.3f}x{cpus[name] / cpus['no film']:10.3f}x")
    print(f"bound: 1.10x of the wall time; cores: {os.cpu_count()}, load average now: "
          f"{os.getloadavg()[0]:.1f}")

if __name__ == "__main__":
    main()
