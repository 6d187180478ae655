"""Running a skill that is any program: ``ajantik test run ... -- node step.js``.

The program gets its environment plus ``CDP_URL`` (the run's guard), ``AJANTIK_RUN_DIR``
(its run's folder), ``AJANTIK_RUN`` (the run's label), ``AJANTIK_DEADLINE`` and
``AJANTIK_DEADLINE_AT`` (seconds, and the Unix time it is stopped at), and
``PYTHONUNBUFFERED=1`` unless set. Its stdout is read as it comes: a line that is an ask
(ask_lines.py) goes to the operator and the answer is written to its stdin; everything
goes to ``skill.stdout`` in the run's folder, stderr to ``skill.stderr``. It runs in a
process group of its own; at the deadline, on Ctrl-C or on an error the whole group is
stopped. Exit code 0 means it finished; anything else is a crash (its report, if any, is
still judged).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ajantik_cdp.core.record.secret_detection import mask_tokens
from ajantik_cdp.process_group import kill_leftovers, stop_group
from ajantik_cdp.testrun.run.ask_lines import MAX_ASK_LINE, answer_line, parse_ask
from ajantik_cdp.testrun.run.skill import AskExchange, SkillContext, SkillRun

CHUNK = 64 * 1024
MAX_KEPT = 4 * 1024 * 1024  # bytes of stdout kept for the report; the file keeps all
STDERR_TAIL = 4000  # characters of stderr kept in the results


def skill_env(ctx: SkillContext) -> dict[str, str]:
    env = dict(os.environ)
    env.update(ctx.env)
    env.setdefault("PYTHONUNBUFFERED", "1")  # an ask line must not wait in a buffer
    env.update({
        "CDP_URL": ctx.cdp_url,
        "AJANTIK_RUN_DIR": str(ctx.folder),
        "AJANTIK_RUN": ctx.label,
        "AJANTIK_DEADLINE": f"{ctx.deadline:g}",
        "AJANTIK_DEADLINE_AT": f"{time.time() + ctx.deadline:.3f}",
    })
    return env


class _Stdout:
    """The skill's stdout as it arrives: all of it to the file, lines to the caller, and
    up to MAX_KEPT bytes of the non-ask lines kept as the default report."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        self.pending = b""
        self.kept: list[bytes] = []
        self.kept_bytes = 0
        self.truncated = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        self.file.write(chunk)
        self.file.flush()
        self.pending += chunk
        lines = self.pending.split(b"\n")
        self.pending = lines.pop()
        if len(self.pending) > MAX_ASK_LINE:  # no newline in sight: output, not an ask
            lines.append(self.pending)
            self.pending = b""
        return [line + b"\n" for line in lines]

    def finish(self) -> list[bytes]:
        rest, self.pending = self.pending, b""
        return [rest] if rest else []

    def keep(self, line: bytes) -> None:
        room = MAX_KEPT - self.kept_bytes
        if room <= 0:
            self.truncated += len(line)
            return
        self.kept.append(line[:room])
        self.kept_bytes += min(len(line), room)
        self.truncated += max(0, len(line) - room)

    def text(self) -> str:
        return b"".join(self.kept).decode("utf-8", "replace")


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - STDERR_TAIL * 4))
            text = f.read().decode("utf-8", "replace")[-STDERR_TAIL:]
    except OSError:
        return ""
    return mask_tokens(text, "[withheld]")


def crash_reason(code: int | None, stderr_tail: str) -> str | None:
    """Why an exit counts as a crash (None for exit 0), with stderr's last line."""
    if code is None or code == 0:
        return None
    if code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exited with code {code}"
    last = next((ln.strip() for ln in reversed(stderr_tail.splitlines()) if ln.strip()), "")
    return f"{how}: {last[:200]}" if last else how


@dataclass(frozen=True)
class CommandSkill:
    argv: tuple[str, ...]
    cwd: Path | None = None

    @property
    def label(self) -> str:
        return shlex.join(self.argv)

    async def run(self, ctx: SkillContext) -> SkillRun:
        out_path, err_path = ctx.folder / "skill.stdout", ctx.folder / "skill.stderr"
        started = time.monotonic()
        asks: list[AskExchange] = []
        timed_out: str | None = None
        with out_path.open("wb") as out, err_path.open("wb") as err:
            try:
                proc = await asyncio.create_subprocess_exec(
                    *self.argv, cwd=self.cwd, env=skill_env(ctx), stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, stderr=err, start_new_session=True)
            except OSError as exc:
                return SkillRun("", exit_code=None, crashed=f"cannot start `{self.label}`: "
                                f"{exc.strerror or exc}", seconds=time.monotonic() - started)
            stdout = _Stdout(out)
            try:
                async with asyncio.timeout(ctx.deadline):
                    await self._converse(proc, stdout, ctx, asks)
                    await proc.wait()
            except TimeoutError:
                timed_out = f"stopped at its deadline ({ctx.deadline:g}s)"
                await stop_group(proc)
            finally:
                if proc.returncode is None:  # cancelled or failed: never leave it behind
                    await stop_group(proc)
                kill_leftovers(proc)
                if proc.stdin is not None:
                    proc.stdin.close()
        stderr_tail = _tail(err_path)
        code = None if timed_out else proc.returncode
        return SkillRun(
            stdout=stdout.text(), stderr_tail=stderr_tail, exit_code=code,
            crashed=None if timed_out else crash_reason(code, stderr_tail),
            timed_out=timed_out, asks=tuple(asks), seconds=time.monotonic() - started,
            stdout_truncated=stdout.truncated, files=(out_path.name, err_path.name))

    async def _converse(self, proc: asyncio.subprocess.Process, stdout: _Stdout,
                        ctx: SkillContext, asks: list[AskExchange]) -> None:
        assert proc.stdout is not None and proc.stdin is not None
        while True:
            chunk = await proc.stdout.read(CHUNK)
            lines = stdout.feed(chunk) if chunk else stdout.finish()
            for line in lines:
                ask = parse_ask(line)
                if ask is None:
                    stdout.keep(line)
                    continue
                asked = time.monotonic()
                answer = await ctx.ask(ask)
                asks.append(AskExchange(ask, answer, time.monotonic() - asked))
                # A skill that quit while its operator worked is no error of the operator.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    proc.stdin.write(answer_line(ask, answer))
                    await proc.stdin.drain()
            if not chunk:
                return
