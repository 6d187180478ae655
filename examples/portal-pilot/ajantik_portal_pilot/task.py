"""The operator's task: which filings to prepare and with what (skill/filings.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SKILL_DIR = Path(__file__).resolve().parent / "skill"
TASK_FILE = SKILL_DIR / "filings.json"


@dataclass(frozen=True)
class FilingTask:
    record: str
    account: str
    sections: dict[str, dict[str, str]]
    documents: tuple[Path, ...]


def load_task(path: Path = TASK_FILE) -> list[FilingTask]:
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
