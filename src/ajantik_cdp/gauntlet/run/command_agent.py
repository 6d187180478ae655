"""Running a command agent: any program, given the task and a prepared browser.

The contract is in docs/agent-contract.md. The program gets its environment plus
``CDP_URL``, ``AJANTIK_START_URL``, ``AJANTIK_TASK``, ``AJANTIK_TASK_NAME`` and
``AJANTIK_DEADLINE``; it ends by printing one JSON line with its claim. Its output goes
to files in the run's folder (never through a pipe it could fill and stall on). At the
deadline its whole process group gets SIGTERM, then SIGKILL; on Linux it is also killed
if the process that started it dies (a killed Ray worker must not leave its agent
running on the node, past any deadline).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from ajantik_cdp.core.record.secret_detection import mask_tokens
from ajantik_cdp.gauntlet.evidence.claim_line import no_claim, parse_claim
from ajantik_cdp.gauntlet.evidence.run_data import AgentOutcome
from ajantik_cdp.gauntlet.suite.suite_file import CommandAgentSpec
from ajantik_cdp.process_group import kill_leftovers, stop_group

TAIL = 4000  # characters of stderr kept in the results
MAX_STDOUT = 1 << 20  # the claim is read from the last MiB of stdout


def agent_env(agent: CommandAgentSpec, *, cdp_url: str, start_url: str, task_name: str,
              task_text: str, deadline: float, base: Mapping[str, str] | None = None
              ) -> dict[str, str]:
    """``base`` is the environment the agent inherits (this process's by default)."""
    env = dict(os.environ if base is None else base)
    env.update(dict(agent.env))
    env.update({
        "CDP_URL": cdp_url,
        "AJANTIK_START_URL": start_url,
        "AJANTIK_TASK": task_text,
        "AJANTIK_TASK_NAME": task_name,
        "AJANTIK_DEADLINE": f"{deadline:g}",
        "AJANTIK_DEADLINE_AT": f"{time.time() + deadline:.3f}",
    })
    # The harness's own secrets are never in its environment, but a parent shell's
    # AJANTIK_SHOP_SECRET (for `ajantik shop`) might be: an agent must never see it.
    env.pop("AJANTIK_SHOP_SECRET", None)
    return env


PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the thread that started it dies (the
    event loop's, which lives as long as the harness)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))


def _tail(path: Path, limit: int) -> str:
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


async def run_command_agent(agent: CommandAgentSpec, env: dict[str, str], deadline: float,
                      folder: Path) -> AgentOutcome:
    out_path, err_path = folder / "agent.stdout", folder / "agent.stderr"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        try:
            proc = await asyncio.create_subprocess_exec(
                *agent.argv, cwd=agent.cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=out, stderr=err, start_new_session=True,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        except OSError as exc:
            return AgentOutcome(no_claim("the agent did not start"),
                                error=f"cannot start `{agent.run}`: {exc.strerror or exc}")
        timed_out = False
        try:
            await asyncio.wait_for(proc.wait(), deadline)
        except TimeoutError:
            timed_out = True
            await stop_group(proc)
        finally:
            if proc.returncode is None:  # cancelled: never leave an agent behind
                await stop_group(proc)
        kill_leftovers(proc)
    claim = parse_claim(_tail(out_path, MAX_STDOUT))
    if timed_out:
        claim = no_claim(f"stopped at its deadline ({deadline:g}s)")
    stderr_tail = mask_tokens(_tail(err_path, TAIL), "[withheld]")
    return AgentOutcome(
        claim=claim, exit_code=proc.returncode, timed_out=timed_out,
        steps=claim.step_list, step_count=claim.steps,
        stdout_path=out_path.name, stderr_path=err_path.name, stderr_tail=stderr_tail)
