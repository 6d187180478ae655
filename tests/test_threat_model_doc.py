"""docs/guard.md's threat model names tests: each one it names must exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUARD_TESTS = ROOT / "tests" / "guard"


def _section() -> str:
    text = (ROOT / "docs" / "guard.md").read_text()
    start = text.index("## Threat model")
    return text[start:text.index("\n## ", start + 1)]


def named_tests() -> list[tuple[str, str]]:
    """(file, test) for every `file.py::test` and `::test` (of the last file named)."""
    out = []
    current = None
    for line in _section().splitlines():
        if line.startswith("|"):
            current = None  # each table row names its own file
        for file, name in re.findall(r"`(test_\w+\.py)?(?:::(\w+))?", line):
            if file:
                current = file
            if name:
                assert current, f"{name} is named without a file: {line[:80]}"
                out.append((current, name))
    return out


def test_every_test_the_threat_model_names_exists() -> None:
    named = named_tests()
    assert len(named) >= 20
    missing = [(f, n) for f, n in named
               if not (GUARD_TESTS / f).is_file()
               or not re.search(rf"^(async )?def {n}\b", (GUARD_TESTS / f).read_text(),
                                re.MULTILINE)]
    assert not missing, missing


def test_every_file_the_threat_model_names_exists() -> None:
    files = set(re.findall(r"`(test_\w+\.py)", _section()))
    assert files and all((GUARD_TESTS / f).is_file() for f in files), files
