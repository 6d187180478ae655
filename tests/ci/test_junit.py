"""The JUnit writer: what it writes passes the checks of CI readers (tests/ci/junit_check.py:
the Jenkins xUnit plugin's schema, junitparser, the Ant schema's rules), its totals agree
with its cases, and no text an agent writes can break the file."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.ci.junit import Case, Problem, junit_timestamp, junit_xml
from tests.ci.junit_check import NAMES, NOW, read_junit, validate
from tests.support.examples import examples

CASES = [
    Case("baseline", "baseline-r0", 3.25, output="done right"),
    Case("slow_api", "slow_api-r0", 4.0, Problem("failure", "silent_wrong", "claimed done",
                                                 "the shop: empty cart")),
    Case("slow_api", "slow_api-r1", 1.0, Problem("error", "browser", "not judged: crash")),
    Case("A", "A-2", 0.0, Problem("skipped", "unscorable", "unscorable: let through")),
]


def test_a_report_is_valid_and_its_totals_agree() -> None:
    data = junit_xml("Checkout demo", CASES, timestamp="2026-12-01T14:00:00.123Z",
                     hostname="ci-runner-7")
    read = read_junit(data)
    assert [(c.name, c.kind, c.type, c.seconds) for c in read] == [
        ("baseline-r0", "passed", "", 3.25), ("slow_api-r0", "failure", "silent_wrong", 4.0),
        ("slow_api-r1", "error", "browser", 1.0), ("A-2", "skipped", "", 0.0)]
    suite = ET.fromstring(data).find("testsuite")
    assert suite is not None
    assert (suite.get("time"), suite.get("timestamp"), suite.get("hostname")) == (
        "8.250", "2026-12-01T14:00:00", "ci-runner-7")
    # A case's story: in its problem's text, or, for a pass, in the suite's system-out.
    assert read[1].text == "the shop: empty cart"
    assert suite.findtext("system-out") == "baseline baseline-r0: done right"


@pytest.mark.parametrize("name", NAMES)
def test_each_check_refuses_what_its_readers_refuse(name: str) -> None:
    """The check can fail, for each consumer: what the Jenkins xUnit plugin refused
    in issue 31 (a skipped count on <testsuites>), a case without a name, and what only
    one of them refuses."""
    good = junit_xml("s", CASES, timestamp=NOW)
    validate(good, name)
    text = good.decode()
    bad = [text.replace("<testsuites>", '<testsuites skipped="1">', 1),
           text.replace('name="baseline-r0" ', "", 1)]
    if name == "ant-rules":
        bad += [text.replace('timestamp="2026-12-01T14:00:00"',
                             'timestamp="2026-12-01T14:00:00Z"', 1),
                text.replace("<properties />", "", 1),
                text.replace('message="unscorable: let through"',
                             'type="unscorable" message="unscorable: let through"', 1)]
    else:
        bad.append(text.replace('time="8.250"', 'time="8.2500"', 1))  # the suite's
    for variant in bad:
        assert variant != text
        with pytest.raises(AssertionError, match="refuse"):
            validate(variant.encode(), name)


@pytest.mark.parametrize(("given_time", "written"), [
    ("2026-12-01T14:00:00Z", "2026-12-01T14:00:00"),
    ("2026-12-01T14:00:00.999+00:00", "2026-12-01T14:00:00"),
    ("2026-12-01T15:30:00+01:30", "2026-12-01T14:00:00"),
    ("2026-12-01T14:00:00", "2026-12-01T14:00:00"),
])
def test_the_timestamp_is_utc_without_a_zone(given_time: str, written: str) -> None:
    assert junit_timestamp(given_time) == written


HOSTILE = ("\x00 nul \x1b[31m red \x07 bell ]]> </failure> <script>&amp; \ud800 \ufffe "
           "\"quotes\" 'apostrophe' \r\n::error::injected")


def test_text_from_an_agent_cannot_break_the_file() -> None:
    case = Case("v<1>", HOSTILE, 1.0, Problem("failure", HOSTILE, HOSTILE, HOSTILE), HOSTILE)
    read = read_junit(junit_xml(HOSTILE, [case], timestamp=NOW, hostname=HOSTILE))
    assert len(read) == 1 and read[0].kind == "failure"
    assert "</failure> <script>&amp;" in read[0].message and "\x1b" not in read[0].message


@examples(50)
@given(st.lists(st.tuples(st.text(), st.sampled_from(["passed", "failure", "error",
                                                      "skipped"]), st.text()),
                max_size=8),
       st.text(), st.text())
def test_any_text_gives_a_readable_file(rows: list[tuple[str, str, str]], suite: str,
                                        host: str) -> None:
    cases = [Case("c", name, 0.5, None if kind == "passed" else
                  Problem(kind, "t", message, message), message)  # type: ignore[arg-type]
             for name, kind, message in rows]
    data = junit_xml(suite, cases, timestamp=NOW, hostname=host)
    validate(data)
    read = read_junit(data)
    assert [c.kind for c in read] == [kind for _, kind, _ in rows]
