"""Running a skill that is any program: its output, the operator protocol over its
stdin/stdout, crashes, deadlines, and its whole process group stopped. No browser."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from ajantik_cdp.testrun.run.ask_lines import Answer, Ask, answer_line, parse_ask
from ajantik_cdp.testrun.run.command_skill import CommandSkill, crash_reason
from ajantik_cdp.testrun.run.skill import SkillContext

ASKER = str(Path(__file__).parent / "programs" / "asker.py")


def ctx(tmp_path: Path, answers: list[Ask], deadline: float = 60) -> SkillContext:
    async def ask(a: Ask) -> Answer:
        answers.append(a)
        return Answer(True, "signed in again")

    return SkillContext("http://127.0.0.1:1", {"PORTAL_URL": "http://p"}, tmp_path, deadline,
                        "clean", ask)


def skill(*args: str) -> CommandSkill:
    return CommandSkill((sys.executable, ASKER, *args))


@pytest.mark.parametrize(("line", "kind"), [
    ('{"ask": "sign_in", "id": 1}', "sign_in"),
    ('  {"ask": " confirm_account ", "message": "R-102?"}\n', "confirm_account"),
    ('{"ask": ""}', None), ('{"ask": 3}', None), ('["ask"]', None), ("ask: sign_in", None),
    ('{"ask": "sign_in"', None), ("", None),
])
def test_an_ask_is_one_json_object_with_an_ask_string(line: str, kind: str | None) -> None:
    got = parse_ask(line)
    assert (got.kind if got else None) == kind


def test_the_answer_echoes_the_ask_and_its_id() -> None:
    ask = parse_ask('{"ask": "sign_in", "id": [1, "a"]}')
    assert ask is not None
    assert answer_line(ask, Answer(False, "no operator")) == (
        b'{"answer":"sign_in","id":[1,"a"],"ok":false,"message":"no operator","data":{}}\n')


async def test_the_operator_answers_on_stdin_and_the_same_process_goes_on(tmp_path: Path
                                                                          ) -> None:
    asks: list[Ask] = []
    run = await skill("ask").run(ctx(tmp_path, asks))
    assert run.exit_code == 0 and run.crashed is None and run.timed_out is None
    assert [a.kind for a in asks] == ["sign_in"] and asks[0].data["portal"] == "x"
    assert [(e.ask.id, e.answer.ok) for e in run.asks] == [(7, True)]
    assert "R-101: done (answer ok=True id=7 msg=signed in again)" in run.stdout
    assert "CDP_URL=http://127.0.0.1:1" in run.stdout and str(tmp_path) in run.stdout
    assert '"ask"' not in run.stdout  # the ask is the protocol's, not the report's
    assert '"ask"' in (tmp_path / "skill.stdout").read_text()  # the file keeps it all


async def test_a_non_zero_exit_is_a_crash_with_stderrs_last_line(tmp_path: Path) -> None:
    run = await skill("crash").run(ctx(tmp_path, []))
    assert run.exit_code == 3
    assert run.crashed == "exited with code 3: RuntimeError: boom"
    assert run.stdout == "starting\nR-101: done\n"  # still judged
    assert crash_reason(-9, "") == "killed by SIGKILL"
    assert crash_reason(0, "x") is None


async def test_a_skill_past_its_deadline_is_stopped_and_says_so(tmp_path: Path) -> None:
    started = time.monotonic()
    run = await skill("hang").run(ctx(tmp_path, [], deadline=1))
    assert run.timed_out == "stopped at its deadline (1s)"
    assert run.exit_code is None and run.crashed is None
    assert run.stdout == "starting\nworking\n"
    assert time.monotonic() - started < 30


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes.
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(")")[-1].split()[0] != "Z"


async def test_a_cancel_stops_the_skill_and_every_child_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    task = asyncio.ensure_future(skill("spawn", str(pid_file)).run(ctx(tmp_path, [])))
    for _ in range(300):
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.1)
    child = int(pid_file.read_text())
    assert _alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if not _alive(child):
            break
        await asyncio.sleep(0.1)
    assert not _alive(child)


async def test_output_that_only_looks_like_an_ask_is_output(tmp_path: Path) -> None:
    asks: list[Ask] = []
    run = await skill("noisy").run(ctx(tmp_path, asks))
    assert asks == [] and run.exit_code == 0
    assert run.stdout.endswith('{"ask": ""}\n["ask", "sign_in"]\nR-101: done\n')


async def test_a_program_that_cannot_start_is_a_crash(tmp_path: Path) -> None:
    run = await CommandSkill((str(tmp_path / "missing"),)).run(ctx(tmp_path, []))
    assert run.crashed is not None and run.crashed.startswith("cannot start")
    assert run.exit_code is None
