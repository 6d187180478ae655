from __future__ import annotations

import re
from pathlib import Path

import pytest

from ajantik_cdp.core.plurals import counted


@pytest.mark.parametrize(("n", "noun", "plural", "said"), [
    (0, "request", None, "0 requests"), (1, "request", None, "1 request"),
    (2, "request", None, "2 requests"), (1, "entry", "entries", "1 entry"),
    (3, "entry", "entries", "3 entries"), (-1, "point", None, "-1 points"),
])
def test_counted(n: int, noun: str, plural: str | None, said: str) -> None:
    assert counted(n, noun, plural) == said


# A count written before a noun that is always plural ("1 variants x 1 repetitions = 1
# runs", issue 31). The few left say why they may.
FIXED_PLURAL = re.compile(
    r"\{[^{}]*\}\}? (runs|variants|repetitions|units|writes|lines|files|frames|faults|"
    r"requests|blocks|problems|calls|workers|tests|entries|characters|arguments)\b")
MAY = {
    "src/ajantik_cdp/cli/test_command.py": "these {runs} runs",  # 1 is "this run"
    "src/ajantik_cdp/testrun/adapter_hooks.py": "{count!r} writes",  # a bad value, quoted
}


def test_no_count_is_written_before_a_fixed_plural() -> None:
    root = Path(__file__).resolve().parents[2]
    found = []
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".py", ".j2"):
            continue
        rel = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for m in FIXED_PLURAL.finditer(line):
                if MAY.get(rel, "\0") not in line:
                    found.append(f"{rel}:{number}: {m.group(0)}")
    assert found == []
