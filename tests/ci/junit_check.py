"""Reading a JUnit file as CI systems do: valid against the schemas their readers check
(tests/ci/schemas/: the Jenkins xUnit plugin's junit-10.xsd, and the Apache Ant schema
of the format GitLab, Azure DevOps and the GitHub reporters parse), and its totals the same as its
testcases (a reader trusts the totals)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import xmlschema

SCHEMAS = Path(__file__).with_name("schemas")
NAMES = ("jenkins-xunit-junit-10.xsd", "ant-junit.xsd")
NOW = "2026-12-01T14:00:00+00:00"  # the report's time when the work gave none


@cache
def schema(name: str) -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(SCHEMAS / name)


def validate(data: bytes) -> None:
    """Raises for the first schema that refuses ``data``, naming it."""
    for name in NAMES:
        try:
            schema(name).validate(data.decode("utf-8"))
        except xmlschema.XMLSchemaValidationError as exc:
            raise AssertionError(f"{name} refuses the report: {exc.reason}\n{exc}") from exc


@dataclass(frozen=True)
class ReadCase:
    classname: str
    name: str
    kind: str  # passed, failure, error, skipped
    type: str  # "" for skipped: Ant's <skipped> has no type
    message: str
    text: str  # the problem's text
    seconds: float


def read_junit(data: bytes) -> list[ReadCase]:
    validate(data)
    root = ET.fromstring(data)
    assert root.tag == "testsuites" and not root.attrib
    suite = root.find("testsuite")
    assert suite is not None
    cases = []
    for tc in suite.findall("testcase"):
        problem = next((el for el in tc if el.tag in ("failure", "error", "skipped")), None)
        cases.append(ReadCase(tc.get("classname", ""), tc.get("name", ""),
                              problem.tag if problem is not None else "passed",
                              problem.get("type", "") if problem is not None else "",
                              problem.get("message", "") if problem is not None else "",
                              (problem.text or "") if problem is not None else "",
                              float(tc.get("time", "nan"))))
    kinds = [c.kind for c in cases]
    assert int(suite.get("tests", "-1")) == len(cases)
    assert int(suite.get("failures", "-1")) == kinds.count("failure")
    assert int(suite.get("errors", "-1")) == kinds.count("error")
    assert int(suite.get("skipped", "-1")) == kinds.count("skipped")
    return cases
