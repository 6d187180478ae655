"""The operator's task: which filings to prepare and with what (skill/filings.json, or the
file ``$PORTAL_PILOT_TASK`` names: the skill and the adapter read the same one)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SKILL_DIR = Path(__file__).resolve().parent / "skill"
TASK_FILE = SKILL_DIR / "filings.json"


def task_file() -> Path:
    return Path(os.environ.get("PORTAL_PILOT_TASK") or TASK_FILE)


@dataclass(frozen=True)
class FilingTask:
    record: str
    account: str
    sections: dict[str, dict[str, str]]
    documents: tuple[Path, ...]


def load_task(path: Path | None = None) -> list[FilingTask]:
    path = path if path is not None else task_file()
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return [
        FilingTask(
            record=record,
            account=spec["account"],
            sections={name: dict(fields) for name, fields in spec["sections"].items()},
            documents=tuple(path.parent / doc for doc in spec["documents"]),
        )
        for record, spec in data["filings"].items()
    ]
