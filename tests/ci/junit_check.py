"""Reading a JUnit file as a CI system would: valid against tests/ci/junit.xsd, and its
totals the same as its testcases (a reader trusts the totals)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import xmlschema

SCHEMA = Path(__file__).with_name("junit.xsd")


@cache
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(SCHEMA)


@dataclass(frozen=True)
class ReadCase:
    classname: str
    name: str
    kind: str  # passed, failure, error, skipped
    type: str
    message: str


def read_junit(data: bytes) -> list[ReadCase]:
    schema().validate(data.decode("utf-8"))
    root = ET.fromstring(data)
    suite = root.find("testsuite")
    assert suite is not None
    cases = []
    for tc in suite.findall("testcase"):
        problem = next((el for el in tc if el.tag in ("failure", "error", "skipped")), None)
        cases.append(ReadCase(tc.get("classname", ""), tc.get("name", ""),
                              problem.tag if problem is not None else "passed",
                              problem.get("type", "") if problem is not None else "",
                              problem.get("message", "") if problem is not None else ""))
    kinds = [c.kind for c in cases]
    for el in (root, suite):
        assert int(el.get("tests", "-1")) == len(cases)
        assert int(el.get("failures", "-1")) == kinds.count("failure")
        assert int(el.get("errors", "-1")) == kinds.count("error")
        assert int(el.get("skipped", "-1")) == kinds.count("skipped")
    return cases
