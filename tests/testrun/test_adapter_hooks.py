"""The adapter's optional hooks for `ajantik test run`: report(), write_points(),
operator(); each wrong shape ends as one AdapterError naming the call."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ajantik_cdp.judge.adapter_loader import AdapterError, load_adapter
from ajantik_cdp.testrun import Answer, OperatorEvent, SkillOutput
from ajantik_cdp.testrun.adapter_hooks import AdapterHooks
from ajantik_cdp.testrun.plan.write_points import WritePoint

BASE = Path(__file__).resolve().parents[1] / "judge" / "bad_adapters" / "_base.py"


def hooks(tmp_path: Path, body: str) -> AdapterHooks:
    (tmp_path / "_base.py").write_text(BASE.read_text())
    path = tmp_path / "adapter.py"
    path.write_text("from _base import claim, done_right, held, units  # noqa\n"
                    "from ajantik_cdp.testrun import Answer\n" + body)
    return AdapterHooks(load_adapter(path))


def event(tmp_path: Path, ask: str = "sign_in") -> OperatorEvent:
    return OperatorEvent(ask, "please", {"ask": ask}, "http://127.0.0.1:1", "clean", tmp_path)


def output(tmp_path: Path) -> SkillOutput:
    return SkillOutput("R-1: done\n", "", 0, tmp_path)


def test_without_hooks_the_report_is_stdout_and_there_is_no_operator(tmp_path: Path) -> None:
    h = hooks(tmp_path, "")
    assert h.report(output(tmp_path)) == "R-1: done\n"
    assert not h.has_operator and not h.has_write_points


def test_a_report_hook_reads_a_file_the_skill_wrote(tmp_path: Path) -> None:
    h = hooks(tmp_path, "def report(output):\n"
                        "    return (output.folder / 'final.txt').read_text()\n")
    (tmp_path / "final.txt").write_text("R-1: not done")
    assert h.report(output(tmp_path)) == "R-1: not done"


@pytest.mark.parametrize(("body", "message"), [
    ("def report(output):\n    return None\n", "report(output): returned None"),
    ("def report(output):\n    raise KeyError('x')\n", "report(output): raised KeyError"),
    ("def report():\n    return ''\n", "must take 1 argument"),
])
def test_a_broken_report_hook_is_named(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(AdapterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        hooks(tmp_path, body).report(output(tmp_path))


def test_write_points_as_a_list_or_with_counts(tmp_path: Path) -> None:
    listed = hooks(tmp_path, "def write_points():\n    return ['post /a/*', 'PUT /b']\n")
    assert listed.write_points() == [(WritePoint("POST", "/a/*"), None),
                                     (WritePoint("PUT", "/b"), None)]
    counted = hooks(tmp_path, "def write_points():\n    return {'POST /a/*': 3}\n")
    assert counted.write_points() == [(WritePoint("POST", "/a/*"), 3)]


@pytest.mark.parametrize(("returned", "message"), [
    ("'POST /a'", "returned a str"), ("[]", "returned no write points"),
    ("['/a/*']", "METHOD /path"), ("[3]", "returned a int among"),
    ("{'POST /a': 0}", "whole number from 1"), ("{'POST /a': True}", "whole number"),
])
def test_bad_write_points_are_named(tmp_path: Path, returned: str, message: str) -> None:
    h = hooks(tmp_path, f"def write_points():\n    return {returned}\n")
    with pytest.raises(AdapterError, match=r"write_points\(\): .*" + message):
        h.write_points()


async def test_an_operator_may_be_async_or_plain(tmp_path: Path) -> None:
    a = hooks(tmp_path, "async def operator(event):\n"
                        "    return Answer(event.ask == 'sign_in', 'done ' + event.message)\n")
    assert await a.operator(event(tmp_path)) == Answer(True, "done please")
    p = hooks(tmp_path, "import time\n"
                        "def operator(event):\n    time.sleep(0.01)\n    return False\n")
    assert await p.operator(event(tmp_path)) == Answer(False)


@pytest.mark.parametrize(("body", "message"), [
    ("def operator(event):\n    return 'ok'\n", "returned a str"),
    ("async def operator(event):\n    raise RuntimeError('no browser')\n",
     "raised RuntimeError: no browser"),
])
async def test_a_broken_operator_is_named(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(AdapterError, match=r"operator\(event ask='sign_in'\): " + message):
        await hooks(tmp_path, body).operator(event(tmp_path))


async def test_a_cancel_reaches_an_async_operator(tmp_path: Path) -> None:
    h = hooks(tmp_path, "import asyncio\n"
                        "async def operator(event):\n    await asyncio.sleep(60)\n")
    task = asyncio.ensure_future(h.operator(event(tmp_path)))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
