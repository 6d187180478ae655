"""Profile the guard process under one case of bench_guard.py:
`python bench/profile_guard.py {load,rtt,writes} OUT.txt [--reps N]`.

Starts Chromium, the bench's site and a guard process as bench_guard.py does, warms the
case up, then runs it with `py-spy record` attached to the guard (raw collapsed stacks in
OUT.txt; needs `pip install py-spy` and the right to read the process) and prints the
guard's CPU seconds (/proc, user + system) over the case, with the load average. py-spy
samples wall time: a stack seen in a socket send includes time the guard spent waiting
for the core after it woke Chrome (Chrome's IO thread runs at a higher priority).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_guard as bg

from ajantik_cdp.browser.launch import start_chrome


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def profile(case: str, out: Path, reps: int) -> None:
    spy_exe = shutil.which("py-spy")
    if spy_exe is None:
        raise SystemExit("py-spy is not on PATH: pip install py-spy")
    chrome = start_chrome()
    runner, site_port = await bg.start_site()
    tmp = Path(tempfile.mkdtemp(prefix="ajantik-profile-"))
    config = tmp / "guard.json"
    config.write_text('{"deny": ["/never-submit"], "allow_writes": ["^http://127\\\\.0\\\\.0'
                      '\\\\.1:' + str(site_port) + '/"], "record": ["/api/"]}')
    proc, port = bg.start_guard(chrome.http_url, tmp / "rec.jsonl", config)
    guard = f"http://127.0.0.1:{port}"
    samples = bg.Samples()
    try:
        await bg.measure(guard, site_port, 1, 10, bg.Samples(), 0)  # warm up
        spy = await asyncio.create_subprocess_exec(
            spy_exe, "record", "-p", str(proc.pid), "-f", "raw", "-o", str(out), "-r", "250",
            "--nonblocking", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await asyncio.sleep(1.0)  # py-spy attaches
        before, started = cpu_seconds(proc.pid), time.perf_counter()
        if case == "load":
            await bg.measure(guard, site_port, reps, 1, samples, 1000)
        elif case == "rtt":
            await bg.measure(guard, site_port, 0, reps, samples, 2000)
        else:
            await bg.measure_writes(guard, site_port, reps, samples)
        elapsed, cpu = time.perf_counter() - started, cpu_seconds(proc.pid) - before
        spy.send_signal(signal.SIGINT)
        await asyncio.wait_for(spy.wait(), 30)
        print(f"{case}: {elapsed:.2f} s, guard CPU {cpu:.2f} s, load average "
              f"{os.getloadavg()[0]:.1f}; stacks in {out}")
    finally:
        proc.terminate()
        proc.wait(10)
        await runner.cleanup()
        chrome.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("case", choices=("load", "rtt", "writes"))
    parser.add_argument("out", type=Path)
    parser.add_argument("--reps", type=int, default=0,
                        help="page loads, round trips or writes per client (default 10, "
                             "3000, 25)")
    args = parser.parse_args()
    reps = args.reps or {"load": 10, "rtt": 3000, "writes": 25}[args.case]
    asyncio.run(profile(args.case, args.out, reps))


if __name__ == "__main__":
    main()
