"""A JUnit XML report: one ``<testsuite>`` of ``<testcase>`` elements inside
``<testsuites>``. Pure.

JUnit XML has no one owner, so this writes what the schemas its readers check against
all accept: the Jenkins xUnit plugin's ``junit-10.xsd``, and the Apache Ant schema of
the format GitLab, Azure DevOps and the GitHub reporters parse (tests/ci/junit_check.py checks
both, and the tests validate every report the project writes against each). Where they differ, the
stricter one rules:

- ``<testsuites>`` carries no attributes (Ant allows none; xUnit refuses ``skipped``);
  the totals are on the ``<testsuite>``, where every reader looks for them.
- The ``<testsuite>`` has ``id`` and ``package``, a ``timestamp`` in UTC without a zone
  or fractions (Ant's pattern), a ``hostname``, a ``<properties>`` element, and the
  ``<system-out>`` and ``<system-err>`` that follow its cases (Ant requires each).
- A case holds at most one of ``failure`` (it ran and gave the wrong answer), ``error``
  (it could not be judged: our side broke, or it never ran) and ``skipped`` (let through
  on purpose), and nothing else: Ant has no output inside a case, so what a case has to
  say goes into its problem's text, or, for a case that passed, into the suite's
  ``<system-out>``, one line per case. ``skipped`` has a message and no type.
- Times are seconds with three decimals (xUnit allows no more).

Text from agents and pages goes into attributes and element text, so characters XML 1.0
cannot carry are replaced, not passed on: one stray escape byte in an agent's output
would make the whole file unreadable.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

ProblemKind = Literal["failure", "error", "skipped"]
# The type of an ``error`` for work that never ran (interrupted, or stopped before it):
# one name, so a CI query finds every such case whichever command wrote it.
NOT_RUN = "not_run"
PACKAGE = "ajantik"  # the testsuite's package: what wrote it

# Characters XML 1.0 allows: tab, newline, carriage return, and the ranges below.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def junit_timestamp(iso: str) -> str:
    """An ISO 8601 time (any zone, any fraction, ``Z`` or none) as Ant's schema wants
    it: UTC, to the second, no zone. A time without a zone is taken as UTC."""
    when = datetime.fromisoformat(iso)
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    type: str  # a short machine name: "silent_wrong", "damage", "infrastructure"
    message: str  # one line
    detail: str = ""


@dataclass(frozen=True)
class Case:
    classname: str
    name: str
    seconds: float = 0.0
    problem: Problem | None = None
    output: str = ""  # what happened, for the reader who opens the case

    @property
    def kind(self) -> str:
        return self.problem.kind if self.problem else "passed"


@dataclass(frozen=True)
class Counts:
    tests: int
    failures: int
    errors: int
    skipped: int

    @classmethod
    def of(cls, cases: tuple[Case, ...] | list[Case]) -> Counts:
        kinds = [c.kind for c in cases]
        return cls(len(kinds), kinds.count("failure"), kinds.count("error"),
                   kinds.count("skipped"))


def _seconds(s: float) -> str:
    return f"{max(0.0, s):.3f}"


def _problem_text(c: Case) -> str:
    assert c.problem is not None
    parts = [p for p in (c.problem.detail, c.output) if p]
    return "\n".join(dict.fromkeys(parts))  # the output only when it says more


def junit_xml(suite: str, cases: list[Case], *, timestamp: str, hostname: str = "localhost",
              seconds: float | None = None) -> bytes:
    """The report as UTF-8 bytes with an XML declaration. ``timestamp``: when the work
    started, ISO 8601; ``hostname``: where it ran."""
    counts = Counts.of(cases)
    total = sum(c.seconds for c in cases) if seconds is None else seconds
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", {
        # Ant's name and hostname are tokens of at least one character once their
        # whitespace is collapsed.
        "name": xml_safe(suite).strip() or "ajantik", "id": "0", "package": PACKAGE,
        "timestamp": junit_timestamp(timestamp),
        "hostname": xml_safe(hostname).strip() or "localhost",
        "tests": str(counts.tests), "failures": str(counts.failures),
        "errors": str(counts.errors), "skipped": str(counts.skipped),
        "time": _seconds(total)})
    ET.SubElement(ts, "properties")
    passed_output = []
    for c in cases:
        tc = ET.SubElement(ts, "testcase", {"classname": xml_safe(c.classname),
                                            "name": xml_safe(c.name),
                                            "time": _seconds(c.seconds)})
        if c.problem is None:
            if c.output:
                passed_output.append(f"{c.classname} {c.name}: {c.output}")
            continue
        p = c.problem
        attrs = {"message": xml_safe(p.message)}
        if p.kind != "skipped":  # Ant's <skipped> has no type
            attrs = {"type": xml_safe(p.type), **attrs}
        el = ET.SubElement(tc, p.kind, attrs)
        el.text = xml_safe(_problem_text(c)) or None
    ET.SubElement(ts, "system-out").text = xml_safe("\n".join(passed_output)) or None
    ET.SubElement(ts, "system-err")
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"
