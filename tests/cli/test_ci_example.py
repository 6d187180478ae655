"""examples/github-actions: the workflow is a pull-request gate that keeps its report
whatever the outcome, its suite loads, and every `ajantik` command it runs is one the
command line accepts, with the flags spelt as they are today."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click
import yaml

from ajantik_cdp.cli.main import cli
from ajantik_cdp.gauntlet.run.suite_loading import load_suite

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "examples" / "github-actions"


def workflow() -> dict[Any, Any]:
    data = yaml.safe_load((FOLDER / "ajantik-gauntlet.yml").read_text())
    assert isinstance(data, dict)
    return data


def steps() -> list[dict[str, Any]]:
    [job] = workflow()["jobs"].values()
    return list(job["steps"])


def ajantik_lines() -> list[list[str]]:
    env = {k: str(v) for k, v in workflow()["env"].items()}
    lines = []
    for step in steps():
        for line in str(step.get("run", "")).splitlines():
            if line.strip().startswith("ajantik "):
                for name, value in env.items():  # the workflow's own variables
                    line = line.replace(f"${name}", value)
                lines.append(shlex.split(line)[1:])
    return lines


def test_it_gates_pull_requests_and_keeps_the_report() -> None:
    data = workflow()
    assert "pull_request" in data[True]  # YAML 1.1 reads the key `on` as true
    upload = next(s for s in steps() if str(s.get("uses", "")).startswith(
        "actions/upload-artifact@"))
    assert upload["if"] == "${{ !cancelled() }}"  # also when the gate failed
    assert upload["with"]["path"] == "${{ env.OUT }}"


def test_its_suite_loads() -> None:
    suite = load_suite(ROOT / workflow()["env"]["SUITE"])
    assert suite.run_count == 10 and suite.thresholds.max_silent_wrong == 0


def test_every_ajantik_command_in_it_is_accepted() -> None:
    lines = ajantik_lines()
    assert [words[:2] for words in lines] == [["gauntlet", "doctor"], ["gauntlet", "run"]]
    run_line = lines[1]
    assert "--junit" in run_line and run_line[run_line.index("--junit") + 1] == \
        "gauntlet-results/junit.xml"
    for words in lines:
        cmd: click.Command = cli
        rest = list(words)
        ctx = click.Context(cli, info_name="ajantik")
        while isinstance(cmd, click.Group):
            found = cmd.get_command(ctx, rest[0])
            assert found is not None, words
            cmd, rest = found, rest[1:]
        cmd.make_context(str(cmd.name), rest)  # raises on a flag it does not know
