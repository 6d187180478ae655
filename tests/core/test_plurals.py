from __future__ import annotations

import pytest

from ajantik_cdp.core.plurals import counted


@pytest.mark.parametrize(("n", "noun", "plural", "said"), [
    (0, "request", None, "0 requests"), (1, "request", None, "1 request"),
    (2, "request", None, "2 requests"), (1, "entry", "entries", "1 entry"),
    (3, "entry", "entries", "3 entries"), (-1, "point", None, "-1 points"),
])
def test_counted(n: int, noun: str, plural: str | None, said: str) -> None:
    assert counted(n, noun, plural) == said
