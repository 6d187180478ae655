"""The JUnit writer: what it writes is valid against the schema CI readers share, its
totals agree with its cases, and no text an agent writes can break the file."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import xmlschema
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.ci.junit import Case, Problem, junit_xml
from tests.ci.junit_check import read_junit, schema
from tests.support.examples import examples

CASES = [
    Case("baseline", "baseline-r0", 3.25),
    Case("slow_api", "slow_api-r0", 4.0, Problem("failure", "silent_wrong", "claimed done")),
    Case("slow_api", "slow_api-r1", 1.0, Problem("error", "browser", "not judged: crash")),
    Case("A", "A-2", 0.0, Problem("skipped", "unscorable", "let through")),
]


def test_a_report_is_valid_and_its_totals_agree() -> None:
    data = junit_xml("Checkout demo", CASES, timestamp="2026-12-01T14:00:00Z")
    read = read_junit(data)
    assert [(c.name, c.kind, c.type) for c in read] == [
        ("baseline-r0", "passed", ""), ("slow_api-r0", "failure", "silent_wrong"),
        ("slow_api-r1", "error", "browser"), ("A-2", "skipped", "unscorable")]
    suite = ET.fromstring(data).find("testsuite")
    assert suite is not None and suite.get("time") == "8.250"


def test_the_schema_rejects_what_readers_reject() -> None:
    """The check can fail: a count that is not a number, a case without a name."""
    good = junit_xml("s", CASES).decode()
    for bad in (good.replace('failures="1"', 'failures="one"', 1),
                good.replace('name="baseline-r0" ', "", 1)):
        with pytest.raises(xmlschema.XMLSchemaValidationError):
            schema().validate(bad)


HOSTILE = ("\x00 nul \x1b[31m red \x07 bell ]]> </failure> <script>&amp; \ud800 \ufffe "
           "\"quotes\" 'apostrophe' \r\n::error::injected")


def test_text_from_an_agent_cannot_break_the_file() -> None:
    case = Case("v<1>", HOSTILE, 1.0, Problem("failure", HOSTILE, HOSTILE, HOSTILE), HOSTILE)
    read = read_junit(junit_xml(HOSTILE, [case]))
    assert len(read) == 1 and read[0].kind == "failure"
    assert "</failure> <script>&amp;" in read[0].message and "\x1b" not in read[0].message


@examples(50)
@given(st.lists(st.tuples(st.text(), st.sampled_from(["passed", "failure", "error",
                                                      "skipped"]), st.text()),
                max_size=8),
       st.text())
def test_any_text_gives_a_readable_file(rows: list[tuple[str, str, str]], suite: str) -> None:
    cases = [Case("c", name, 0.5, None if kind == "passed" else
                  Problem(kind, "t", message, message), message)  # type: ignore[arg-type]
             for name, kind, message in rows]
    read = read_junit(junit_xml(suite, cases))
    assert [c.kind for c in read] == [kind for _, kind, _ in rows]
