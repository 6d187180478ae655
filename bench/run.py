"""Run every benchmark and print side-by-side medians and ratios: `python bench/run.py`.

Ratios are measured within one run (alternating rounds), so a slow or noisy machine
slows both sides alike. Targets are printed next to each ratio; nothing here is a test.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_film
import bench_gauntlet
import bench_guard
import bench_record

FLOORS = (("net", "bare net"), ("floor", "floor"))


def show(rows: list[dict[str, float | str | int]]) -> None:
    """One line per measure. The floors of bench_guard.py, when a row has them, get a
    column each with its own ratio to direct: ``net``, the bare net (what pausing costs
    before anything is decided), and ``floor``, the design's floor (a bare relay plus
    the bare net reading each write's answer), under which no guard built this way goes."""
    floors = [(key, head) for key, head in FLOORS if any(key in row for row in rows)]
    heads = "".join(f" {head:>10} {'ratio':>7}" for _, head in floors)
    print(f"{'measure':42} {'direct':>10}{heads} {'guard':>10} {'ratio':>7} "
          f"{'target':>7}  n")
    for row in rows:
        direct = float(row["direct"])
        ratio = float(row["guard"]) / direct
        verdict = "ok" if ratio <= float(row["target"]) else "OVER"
        cells = "".join(
            f" {float(row[key]):10.3f} {float(row[key]) / direct:6.2f}x" if key in row
            else f" {'':10} {'':7}" for key, _ in floors)
        print(f"{row['name']:42} {direct:10.3f}{cells} {float(row['guard']):10.3f} "
              f"{ratio:6.2f}x {float(row['target']):6.2f}x  {row['n']} {verdict}")


def main() -> None:
    # The in-process guards of the record bench would log a line per start.
    logging.getLogger("ajantik").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--quick", action="store_true", help="fewer samples, for a smoke run")
    parser.add_argument("--guard-only", action="store_true",
                        help="only the guard's direct-vs-through figures (no record cost, "
                             "no gauntlet)")
    args = parser.parse_args()
    rounds = 2 if args.quick else args.rounds
    print("guard: direct vs through `ajantik cdp` (medians)")
    show(asyncio.run(bench_guard.run(rounds=rounds, loads=3 if args.quick else 5,
                                     evals=100 if args.quick else 300,
                                     writes=8 if args.quick else 25)))
    if args.guard_only:
        return
    print()
    print("film: direct vs through a guard that films (medians)")
    show(asyncio.run(bench_film.run(rounds=2 if args.quick else 4, loads=3 if args.quick
                                    else 5, evals=100 if args.quick else 200)))
    print()
    print(bench_record.report(asyncio.run(bench_record.run(
        writes=15 if args.quick else 40, rounds=2 if args.quick else 5))))
    print()
    print(bench_gauntlet.report(asyncio.run(bench_gauntlet.run(
        workers=(4,) if args.quick else (2, 4)))))


if __name__ == "__main__":
    main()
