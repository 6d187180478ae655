"""What filming costs: page load and round trip through a guard that films (``--film``,
at each frame rate asked) against the same guard not filming and against Chrome direct,
alternating rounds: ``python bench/bench_film.py [--fps 0 2 4]`` (0: stills only).

The issue's target: with film on, page load and round trip stay within 1.15x of direct.
The design's floor (bench_guard.py, floor_guard.py) is printed beside it: no guard, filming
or not, goes under it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_guard import Samples, floor_process, guard_process, measure, med_ms, start_site

from ajantik_cdp.browser.launch import start_chrome

TARGET = 1.15


async def run(rounds: int = 4, loads: int = 5, evals: int = 200,
              rates: tuple[float, ...] = (2.0,)) -> list[dict[str, Any]]:
    chrome = start_chrome()
    runner, site_port = await start_site()
    tmp = Path(tempfile.mkdtemp(prefix="ajantik-bench-film-"))
    config = tmp / "guard.json"
    config.write_text('{"deny": ["/never-submit"]}')
    direct, floor, plain = Samples(), Samples(), Samples()
    filmed = {fps: Samples() for fps in rates}
    try:
        for r in range(rounds):
            await measure(chrome.http_url, site_port, loads, evals, direct, r * 1000)
            with floor_process(chrome.http_url) as base:
                await measure(base, site_port, loads, evals, floor, r * 1000 + 50)
            sides: list[tuple[Samples, tuple[str, ...]]] = [(plain, ())]
            sides += [(filmed[fps], ("--film", str(tmp / f"film{r}-{fps}"), "--film-fps",
                                     str(fps))) for fps in rates]
            for k, (into, extra) in enumerate(sides):
                with guard_process(chrome.http_url, tmp / f"rec{r}-{k}.jsonl", config,
                                   extra) as guard:
                    await measure(guard, site_port, loads, evals, into,
                                  r * 1000 + 100 * (k + 1))
    finally:
        await runner.cleanup()
        chrome.close()
    load_floor, rtt_floor = med_ms(floor.load), med_ms(floor.rtt)
    rows = [{"name": "page load, guard not filming (ms)", "direct": med_ms(direct.load),
             "floor": load_floor, "guard": med_ms(plain.load), "target": TARGET,
             "n": len(direct.load)},
            {"name": "round trip, guard not filming (ms)", "direct": med_ms(direct.rtt),
             "floor": rtt_floor, "guard": med_ms(plain.rtt), "target": TARGET,
             "n": len(direct.rtt)}]
    for fps, samples in filmed.items():
        how = f"filming at {fps:g} fps" if fps else "filming stills only"
        rows.append({"name": f"page load, {how} (ms)",
                     "direct": med_ms(direct.load), "floor": load_floor,
                     "guard": med_ms(samples.load), "target": TARGET, "n": len(samples.load)})
        rows.append({"name": f"round trip, {how} (ms)",
                     "direct": med_ms(direct.rtt), "floor": rtt_floor,
                     "guard": med_ms(samples.rtt), "target": TARGET, "n": len(samples.rtt)})
    return rows


def main() -> None:
    logging.getLogger("ajantik").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--fps", type=float, nargs="+", default=[2.0])
    args = parser.parse_args()
    from run import show

    show(asyncio.run(run(rounds=args.rounds, rates=tuple(args.fps))))


if __name__ == "__main__":
    main()
