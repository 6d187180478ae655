"""Every property test's depth goes through the one knob (tests/support/examples.py), so
the Hypothesis profile decides how hard the whole suite searches: a count written
straight into ``@settings`` would run the same in a quick local loop and in CI."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import settings

from tests.support.examples import PROFILES, examples

TESTS = Path(__file__).resolve().parent
KNOB = TESTS / "support" / "examples.py"
RAW_COUNT = re.compile(r"\bmax_examples\s*=(?!=)")


def test_no_test_writes_its_own_example_count() -> None:
    bad = [f"{path.relative_to(TESTS)}:{number}"
           for path in sorted(TESTS.rglob("*.py")) if path != KNOB
           for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
           if RAW_COUNT.search(line)]
    assert not bad, "use @examples(n) from tests/support/examples.py: " + ", ".join(bad)


def test_the_loaded_profile_scales_every_count_and_sets_no_deadline() -> None:
    name = settings.get_current_profile_name()
    assert name in PROFILES  # dev unless --hypothesis-profile says otherwise
    assert settings.default.deadline is None
    scale = PROFILES[name] / PROFILES["ci"]
    assert examples(300).max_examples == max(10, int(300 * scale))
    assert examples(1).max_examples == 10  # never fewer than ten
