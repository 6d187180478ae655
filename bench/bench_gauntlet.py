"""What a perturbation suite costs: throughput, and the harness's own share of each run.

    python bench/bench_gauntlet.py [--workers 2,4] [--rounds 1] [--preset reference]
        [--executor local,ray] [--ray-address ADDR] [--film FPS]

Runs the demo suite (15 variants x 2 repetitions, the reference agent) once per worker
count and round, alternating the order so both see the same load, and prints medians
side by side:

- suite wall time and throughput (runs per minute), start-up included (the shop, one
  Chromium per worker and its warm-up);
- per run: the agent's own time (from its start to its claim) and the harness's overhead,
  everything else: the shop run, the guard (fault variants), a fresh context set up for
  the variant, the first page load, waiting for in-flight writes, reading the state,
  the page facts and the screenshot, teardown;
- CPU seconds for the whole suite (this process and the children it reaped: Chromium,
  Playwright's driver), and the load average, because on a shared machine the wall time
  says as much about the neighbours as about the suite.

``--executor ray`` runs the same suite on Ray (a Ray instance of this process's own, or
the cluster at ``--ray-address``), one column per executor and worker count, so local and
Ray are compared on the same worker count. Ray's start-up counts in its wall time; its
own processes are not this process's children, so their CPU time is not in "suite CPU
time" for Ray (it is for local).

``--film FPS`` adds, beside each column, the same suite with every run filmed at FPS
frames a second (``ajantik gauntlet run --film``), and prints how far filming moved the
throughput: film is on by default in suite runs only if it moves runs per minute by at
most 10% (``FILM_SUITE_RUNS_BY_DEFAULT`` in core/guard/film.py).

The issue's target: the demo suite in under 90 s on two cores. Nothing here asserts it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ajantik_cdp.core.guard.film import FilmPolicy
from ajantik_cdp.gauntlet.run.placement import Placement
from ajantik_cdp.gauntlet.run.suite_session import run_session
from ajantik_cdp.gauntlet.suite.demo_suite import demo_suite

TARGET_SECONDS = 90.0


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def count_frames(out_dir: Path) -> int:
    return sum(1 for _ in out_dir.glob("runs/*/film/*.jpg"))


async def one(workers: int, preset: str, placement: Placement | None = None,
              film_fps: float | None = None) -> dict[str, float]:
    suite = demo_suite(preset)
    with tempfile.TemporaryDirectory(prefix="ajantik-gauntlet-bench-") as tmp:
        load = os.getloadavg()[0]
        cpu0, t0 = cpu_seconds(), time.monotonic()
        outcome = await run_session(suite, Path(tmp), workers=workers, placement=placement,
                                    film=FilmPolicy(fps=film_fps) if film_fps else None)
        wall, cpu = time.monotonic() - t0, cpu_seconds() - cpu0
        frames = await asyncio.to_thread(count_frames, Path(tmp))
    timings = [s.result.timings for s in outcome.runs]
    return {
        "wall": wall, "cpu": cpu, "load": load, "runs": len(outcome.runs),
        "runs_per_min": len(outcome.runs) / wall * 60,
        "agent": statistics.median(t.agent for t in timings),
        "harness": statistics.median(t.harness for t in timings),
        "setup": statistics.median(t.setup for t in timings),
        "evaluate": statistics.median(t.evaluate for t in timings),
        "harness_share": sum(t.harness for t in timings) / sum(t.total for t in timings),
        "left_out": outcome.summary.overall.left_out,
        "passes": outcome.summary.overall.passes,
        "frames": frames,
    }


async def run(workers: tuple[int, ...] = (2, 4), rounds: int = 1,
              preset: str = "reference", executors: tuple[str, ...] = ("local",),
              ray_address: str | None = None, film: float | None = None) -> dict[str, Any]:
    logging.getLogger("ajantik").setLevel(logging.ERROR)  # the guards' fault lines
    films: tuple[float | None, ...] = (None,) if film is None else (None, film)
    columns = [(e, w, f) for w in workers for e in executors for f in films]
    samples: dict[str, list[dict[str, float]]] = {column_label(*c): [] for c in columns}
    for r in range(rounds):
        order = columns if r % 2 == 0 else list(reversed(columns))
        for executor, w, fps in order:
            placement = Placement(executor=executor,
                                  ray_address=ray_address if executor == "ray" else None)
            samples[column_label(executor, w, fps)].append(
                await one(w, preset, placement, fps))
    medians = {w: {k: statistics.median(s[k] for s in runs) for k in runs[0]}
               for w, runs in samples.items()}
    moves = {column_label(e, w, film): (medians[column_label(e, w, film)]["runs_per_min"]
                                        / medians[column_label(e, w, None)]["runs_per_min"]
                                        - 1)
             for e, w, f in columns if film is not None and f is not None}
    return {"preset": preset, "rounds": rounds, "cpus": os.cpu_count(), "medians": medians,
            "film_moves": moves}


def column_label(executor: str, workers: int, film: float | None = None) -> str:
    label = f"{workers} workers" if executor == "local" else f"ray, {workers} w."
    return label if film is None else f"{label}, film {film:g}"


ROWS = (
    ("suite wall time (s)", "wall", "{:.1f}"),
    ("throughput (runs/min)", "runs_per_min", "{:.1f}"),
    ("suite CPU time (s)", "cpu", "{:.1f}"),
    ("per run: agent's own time (s)", "agent", "{:.2f}"),
    ("per run: harness overhead (s)", "harness", "{:.2f}"),
    ("  of which setup (s)", "setup", "{:.2f}"),
    ("  of which evaluation and teardown (s)", "evaluate", "{:.2f}"),
    ("harness share of run time", "harness_share", "{:.0%}"),
    ("runs (passes / left out)", "runs", "{:.0f}"),
    ("film frames written", "frames", "{:.0f}"),
    ("load average before the suite", "load", "{:.1f}"),
)


def report(result: dict[str, Any]) -> str:
    med = result["medians"]
    workers = list(med)
    lines = [f"bench_gauntlet: the demo suite ({result['preset']} preset, 15 variants x 2), "
             f"median of {result['rounds']} round(s), {result['cpus']} CPUs",
             f"{'':42}" + "".join(f"{w:>20}" for w in workers)]
    for label, key, fmt in ROWS:
        cells = []
        for w in workers:
            text = fmt.format(med[w][key])
            if key == "runs":
                text += f" ({med[w]['passes']:.0f}/{med[w]['left_out']:.0f})"
            cells.append(f"{text:>20}")
        lines.append(f"{label:42}" + "".join(cells))
    verdicts = ", ".join(f"{w} {'ok' if med[w]['wall'] <= TARGET_SECONDS else 'OVER'}"
                         for w in workers)
    lines.append(f"target: the demo suite under {TARGET_SECONDS:.0f} s on two cores: {verdicts}")
    for label, move in result.get("film_moves", {}).items():
        lines.append(f"film: {label} moves runs per minute by {move:+.1%} against no film "
                     f"(on by default only within 10%: "
                     f"{'within' if abs(move) <= 0.10 else 'OVER'})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="2,4", help="worker counts to compare")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--preset", default="reference")
    parser.add_argument("--executor", default="local",
                        help="executors to compare, e.g. local,ray (Ray: the ray extra)")
    parser.add_argument("--ray-address", default=None,
                        help="a Ray cluster to join [default: a Ray instance of its own]")
    parser.add_argument("--film", type=float, default=None, metavar="FPS",
                        help="also run each column filmed at FPS frames a second")
    args = parser.parse_args()
    workers = tuple(int(w) for w in args.workers.split(","))
    executors = tuple(args.executor.split(","))
    print(report(asyncio.run(run(workers, args.rounds, args.preset, executors,
                                 args.ray_address, args.film))))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
