from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.records import RecordBuilder

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "docs" / "adapter-template.py"
BAD = Path(__file__).resolve().parent / "bad_adapters"


@pytest.fixture
def template_adapter(tmp_path: Path) -> Path:
    return TEMPLATE


@pytest.fixture
def simple_record(tmp_path: Path) -> Path:
    """A-1 approved and read back; A-2 never touched."""
    rec = RecordBuilder(tmp_path / "record.jsonl")
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"},
                 answer={"record": {"id": "A-1", "status": "approved"}})
    return rec.close()


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "report.txt"
    path.write_text("A-1: done — approved\nA-2: not done — the form would not load\n")
    return path
