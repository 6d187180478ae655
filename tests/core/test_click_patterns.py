"""The deny_clicks dialect: what loads means the same in Python and in the page."""

from __future__ import annotations

import contextlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.click_patterns import (
    ClickPatternError,
    check_click_pattern,
    compile_click_pattern,
)


@pytest.mark.parametrize("pattern", [
    "proceed to submission",
    "^pay now$",
    "submit|send",
    "(?:pay|buy) now",
    "step [0-9]+ of [0-9]+",
    "[^a-z]total",
    "colou?r",
    "a{2}",
    "a{2,}",
    "a{2,5}?",
    "pay\\.now",
    "\\(beta\\)",
    "a\\/b",
    "[a\\-z]",
    "[a-]",
    "x.*?y",
    "ünïcödé",
])
def test_shared_subset_loads(pattern: str) -> None:
    check_click_pattern(pattern)


@pytest.mark.parametrize(("pattern", "why"), [
    ("", "empty"),
    ("\\w+ now", "'\\w' is not allowed"),
    ("\\s", "'\\s' is not allowed"),
    ("\\d", "'\\d' is not allowed"),
    ("\\bpay", "'\\b' is not allowed"),
    ("(?i)pay", "lookaround, named groups and inline flags"),
    ("(?=pay)", "lookaround"),
    ("(?P<x>pay)", "lookaround, named groups"),
    ("(?<=a)b", "lookaround"),
    ("[]a]", "'[]' and '[^]'"),
    ("[^]", "'[]' and '[^]'"),
    ("a{", "literal '{'"),
    ("a}", "literal '}'"),
    ("a]", "literal ']'"),
    ("*a", "nothing to repeat"),
    ("a**", "stacked quantifiers"),
    ("(a", "unbalanced '('"),
    ("a)", "unbalanced ')'"),
    ("[z-a]", "backwards"),
    ("a{5,2}", "backwards"),
    ("[abc", "unterminated"),
    ("pay\\", "ends with a backslash"),
    ("\\1", "'\\1' is not allowed"),
])
def test_outside_the_subset_is_refused_with_reason(pattern: str, why: str) -> None:
    with pytest.raises(ClickPatternError) as info:
        check_click_pattern(pattern)
    assert why in str(info.value)


def test_matching_ignores_case() -> None:
    assert compile_click_pattern("proceed to submission").search("PROCEED TO SUBMISSION")


@given(st.text(max_size=20))
def test_every_accepted_pattern_compiles_in_python(pattern: str) -> None:
    try:
        check_click_pattern(pattern)
    except ClickPatternError:
        return
    re.compile(pattern, re.IGNORECASE)


@given(st.text(alphabet="abc()[]{}|^$.*+?\\-/0123456789,: ", max_size=14))
def test_checker_never_crashes(pattern: str) -> None:
    with contextlib.suppress(ClickPatternError):
        check_click_pattern(pattern)
