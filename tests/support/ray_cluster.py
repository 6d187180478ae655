"""A real Ray cluster on this machine for the tests, bound to loopback only: a head
started with `ray start --head --block`, and a second node in a process of its own.

`ray start` cannot add a second node on one machine's loopback (it resolves 127.0.0.1
to the machine's outside address and refuses multi-node clusters when told to stay on
loopback), so the second node is started the way Ray's own multi-node test helper
(`ray.cluster_utils.Cluster.add_node`) starts one: a worker `Node` in its own process
(`python -m tests.support.ray_cluster node GCS_ADDRESS CPUS`).

Every process the cluster started is ended by pid at teardown (never `ray stop`, which
would end every Ray on the machine), and the test asserts none of them listened on
anything but loopback (``listening``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RAY = Path(sys.executable).with_name("ray")
REPO = Path(__file__).resolve().parents[2]
# Ray's processes read these when they start: loopback only (the variable's name
# notwithstanding, it is what turns Ray's single-machine mode on), no usage statistics,
# and a token only this cluster knows.
LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0",
                "RAY_AUTH_MODE": "token",
                # Ray's processes wait this long for its agents to start and write their
                # ports; its default is missed by a machine under heavy load.
                "RAY_agent_register_timeout_ms": "300000"}


def ray_env() -> dict[str, str]:
    return {**LOOPBACK_ENV, "RAY_AUTH_TOKEN": secrets.token_hex(16)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def descendants(roots: list[int]) -> set[int]:
    kids, seen, todo = _children(), set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo += kids.get(pid, [])
    return seen


def _with_cmdline_part(part: str) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if part.encode() in (entry / "cmdline").read_bytes():
                    found.add(int(entry.name))
    return found


def listening(pids: set[int]) -> set[str]:
    """The addresses the processes in ``pids`` listen on, from /proc (TCP, v4 and v6)."""
    inodes: set[str] = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                    found.add(_address(cols[1].split(":")[0], width))
    return found


def _address(hex_ip: str, width: int) -> str:
    raw = bytes.fromhex(hex_ip)
    if width == 8:
        return socket.inet_ntop(socket.AF_INET, raw[::-1])
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
    return socket.inet_ntop(socket.AF_INET6, words)


LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


@dataclass
class LocalCluster:
    address: str
    env: dict[str, str]
    temp_dir: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def pids(self) -> set[int]:
        return descendants([p.pid for p in self.procs]) | _with_cmdline_part(
            str(self.temp_dir))

    def stop(self) -> None:
        doomed = self.pids()
        for proc in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for proc in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(0.1, deadline - time.monotonic()))
        # Whatever did not go on its own (Ray's workers, agents), by pid.
        for pid in doomed | self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for proc in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
        if not os.environ.get("KEEP_RAY_TMP"):
            shutil.rmtree(self.temp_dir, ignore_errors=True)


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the test cluster's head did not listen on {port}")
        time.sleep(0.2)


class HeadExited(RuntimeError):
    """The cluster's head (``ray start --block``) ended: on a loaded machine its raylet
    can miss a start-up window and take the head with it."""


def connect(ray: Any, cluster: LocalCluster, timeout: float = 180) -> None:
    """``ray.init`` on the cluster, again until its head's node has registered: the head
    listens on its port before its raylet is known (``No node info found``).

    Measured under load: a head that had exited left ``ray.init`` waiting in its GCS
    client for over ten minutes. So the head is checked before each try, and a try runs in
    a thread that is given up on (``TimeoutError``) rather than waited for."""
    deadline = time.monotonic() + timeout
    while True:
        head = cluster.procs[0]
        if head.poll() is not None:
            raise HeadExited(f"the test cluster's head exited (code {head.returncode})")
        failure: list[BaseException] = []

        def attempt(failure: list[BaseException] = failure) -> None:
            try:
                ray.init(address=cluster.address, logging_level="ERROR",
                         log_to_driver=False)
            except BaseException as exc:  # handed to the waiting thread
                failure.append(exc)

        worker = threading.Thread(target=attempt, daemon=True)
        worker.start()
        worker.join(max(1.0, deadline - time.monotonic()))
        if worker.is_alive():
            raise TimeoutError(f"ray.init on {cluster.address} did not return in {timeout:g}s")
        if not failure:
            return
        if not isinstance(failure[0], ConnectionError):
            raise failure[0]
        with contextlib.suppress(Exception):
            ray.shutdown()
        if time.monotonic() > deadline:
            raise failure[0]
        time.sleep(1)


def wait_for_nodes(ray: object, count: int, timeout: float = 180) -> None:
    """In a process connected to the cluster: until ``count`` nodes are alive."""
    deadline = time.monotonic() + timeout
    while sum(1 for n in ray.nodes() if n["Alive"]) < count:  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise RuntimeError(f"the test cluster has fewer than {count} live nodes")
        time.sleep(0.5)


@contextlib.contextmanager
def local_cluster(cpus: tuple[int, ...] = (1, 1), timeout: float = 180) -> Iterator[LocalCluster]:
    # Short: Ray's socket paths live below it and must fit a Unix socket's 107 bytes.
    temp_dir = Path(tempfile.mkdtemp(prefix="ajr-", dir="/tmp"))
    env = ray_env()
    port = free_port()
    cluster = LocalCluster(f"127.0.0.1:{port}", env, temp_dir)
    full_env = {**os.environ, **env}
    try:
        cluster.procs.append(subprocess.Popen(
            [str(RAY), "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
             "--port", str(port), "--num-cpus", str(cpus[0]), "--include-dashboard", "false",
             "--disable-usage-stats", "--temp-dir", str(temp_dir),
             "--object-store-memory", str(100 << 20),
             # Fixed ports: with 0, the raylet waits a fixed time for its agents to write
             # theirs to a file, and a loaded machine misses that (the raylet then exits).
             "--dashboard-agent-grpc-port", str(free_port()),
             "--dashboard-agent-listen-port", str(free_port()),
             "--metrics-export-port", str(free_port()),
             "--runtime-env-agent-port", str(free_port())],
            env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True))
        _wait_for_port(port, cluster.procs[0], timeout)
        for n in cpus[1:]:
            cluster.procs.append(subprocess.Popen(
                # As a module from the repository's root: run as a script, its own
                # folder would come first on sys.path and tests/support/http.py would
                # shadow the standard library's http.
                [sys.executable, "-m", "tests.support.ray_cluster", "node", cluster.address,
                 str(n)], env=full_env, cwd=REPO, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True))
        yield cluster  # the caller connects and waits for the nodes (wait_for_nodes)
    finally:
        cluster.stop()


def _run_node(gcs_address: str, cpus: int) -> None:
    from ray._private.node import Node
    from ray._private.parameter import RayParams

    params = RayParams(gcs_address=gcs_address, node_ip_address="127.0.0.1", num_cpus=cpus,
                       object_store_memory=100 << 20, include_log_monitor=False,
                       node_manager_port=0, min_worker_port=0, max_worker_port=0,
                       metrics_agent_port=free_port(), metrics_export_port=free_port(),
                       runtime_env_agent_port=free_port())
    params.dashboard_agent_listen_port = free_port()
    Node(params, head=False, shutdown_at_exit=True, spawn_reaper=True)
    stop = False

    def on_term(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    while not stop:
        time.sleep(0.2)
    os._exit(0)  # its raylet and the raylet's workers are ended by pid (LocalCluster.stop)


if __name__ == "__main__" and sys.argv[1:2] == ["node"]:
    _run_node(sys.argv[2], int(sys.argv[3]))
