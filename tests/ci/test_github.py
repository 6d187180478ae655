"""GitHub workflow commands and step-summary markdown: an agent's words cannot end an
annotation early, start a command of their own, or open a column or a tag."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.ci.github import MAX_ANNOTATIONS, annotation, capped, cell, table
from tests.support.examples import examples


def test_an_annotation_is_one_line_with_its_title() -> None:
    line = annotation("error", "silent wrong: A-1, twice", "done\n::warning::fake 100%")
    assert line == ("::error title=silent wrong%3A A-1%2C twice::"
                    "done%0A::warning::fake 100%25")


@examples(50)
@given(st.text(), st.text())
def test_no_text_makes_a_second_line(title: str, message: str) -> None:
    line = annotation("error", title, message)
    assert "\n" not in line and "\r" not in line
    head, _, _ = line.partition("::")[2].partition("::")
    assert head.startswith("error title=") and "::" not in head.removeprefix("error title=")


def test_past_the_limit_the_last_annotation_counts_the_rest() -> None:
    items = [(f"t{i}", "m") for i in range(25)]
    lines = capped("error", items, "see the report")
    assert len(lines) == MAX_ANNOTATIONS
    assert lines[-1] == "::error title=16 more::see the report"
    assert capped("error", items[:3], "x") == [annotation("error", f"t{i}", "m")
                                                for i in range(3)]


def test_a_cell_cannot_open_a_column_a_row_or_a_tag() -> None:
    assert cell("a | b\n| c <img src=x>") == "a \\| b \\| c &lt;img src=x&gt;"
    md = table(["unit", "said"], [["A-1", "done | <b>x</b>"]])
    rows = md.splitlines()
    assert len(rows) == 3 and rows[2].count(" | ") == 1
