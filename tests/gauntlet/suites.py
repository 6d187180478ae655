"""Small suite files for the end-to-end tests: as few runs as a test needs."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.gauntlet.builders import TASK

REPO = Path(__file__).resolve().parents[2]
CUSTOM_AGENT = REPO / "examples" / "custom-agent" / "agent.py"


def agent_line(preset: str | None = None, command: str | None = None) -> str:
    if command is not None:
        return f"agent: {{type: command, run: {command!r}}}"
    return f"agent: {{type: reference, preset: {preset}}}"


def write_suite(folder: Path, name: str, *, variants: list[str], preset: str | None = None,
                command: str | None = None, repetitions: int = 1, workers: int = 2,
                deadline: float = 60, reliability: float = 0.9,
                extra: str = "") -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(
        "version: 1\n"
        f"name: {name}\n"
        f"{agent_line(preset, command)}\n"
        "task:\n  name: Checkout\n  description: >\n    " + TASK + "\n"
        f"variants: [{', '.join(variants)}]\n"
        f"repetitions: {repetitions}\nworkers: {workers}\ndeadline: {deadline}\n"
        f"thresholds: {{reliability: {reliability}}}\n" + extra, encoding="utf-8")
    return path


def python_command(script: Path | str, *args: str) -> str:
    return " ".join([sys.executable, str(script), *args])
