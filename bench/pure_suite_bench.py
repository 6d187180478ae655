"""How long the quick loop, `pytest -m "not browser"`, takes, checkouts side by side.

    python bench/pure_suite_bench.py [--rounds 3] [--tree DIR ...] [--pytest-args "-n 2"]

Each round runs the pure suite once in every tree given (default: this checkout), in
turn, so all of them see the same load; each tree runs with its own ``.venv``. Prints, per
tree, the median wall time and the median CPU time (pytest and every process it started),
with the load average around the runs: on a shared machine the wall time says more about
the neighbours than about the tests. The target is under 30 s of wall time on two cores.

Bytecode: with ``PYTHONDONTWRITEBYTECODE`` set (as on the project's machines) pytest
rewrites every test module's asserts again on each run; the figures are for the
environment this runs in.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(tree: Path, extra: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds, and pytest's last line."""
    cpu, wall = children_cpu(), time.perf_counter()
    proc = subprocess.run([str(tree / ".venv" / "bin" / "pytest"), "-m", "not browser", "-q",
                           "-p", "no:randomly", *extra], cwd=tree, capture_output=True,
                          text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    last = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: pytest exited {proc.returncode}: {last}")
    return wall, cpu, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", type=Path, action="append",
                        help="a checkout with its own .venv (repeat to compare)")
    parser.add_argument("--pytest-args", default="", help="more arguments for pytest")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    extra = shlex.split(args.pytest_args)
    walls: dict[Path, list[float]] = {t: [] for t in trees}
    cpus: dict[Path, list[float]] = {t: [] for t in trees}
    loads = [os.getloadavg()[0]]
    for r in range(1, args.rounds + 1):
        for tree in trees:
            wall, cpu, last = one_run(tree, extra)
            loads.append(os.getloadavg()[0])
            walls[tree].append(wall)
            cpus[tree].append(cpu)
            print(f"round {r} {tree}: {wall:.1f} s wall, {cpu:.1f} CPU-s, load "
                  f"{loads[-1]:.1f} ({last})")
    for tree in trees:
        print(f"{tree}: median {statistics.median(walls[tree]):.1f} s wall, "
              f"{statistics.median(cpus[tree]):.1f} CPU-s over {args.rounds} rounds")
    print(f"load average (1 min) {min(loads):.1f}-{max(loads):.1f}")


if __name__ == "__main__":
    main()
