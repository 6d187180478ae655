"""A JUnit XML report: one ``<testsuite>`` of ``<testcase>`` elements inside
``<testsuites>``. Pure.

Only the subset every reader agrees on: ``failure`` for a case that ran and gave the
wrong answer, ``error`` for one that could not be judged (our side broke), ``skipped``
for one let through on purpose. Text from agents and pages goes into attributes and
element text, so characters XML 1.0 cannot carry are replaced, not passed on: one
stray escape byte in an agent's output would make the whole file unreadable.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Literal

ProblemKind = Literal["failure", "error", "skipped"]
# The type of an ``error`` for work that never ran (interrupted, or stopped before it):
# one name, so a CI query finds every such case whichever command wrote it.
NOT_RUN = "not_run"

# Characters XML 1.0 allows: tab, newline, carriage return, and the ranges below.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


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


def _attrs(counts: Counts, seconds: float) -> dict[str, str]:
    return {"tests": str(counts.tests), "failures": str(counts.failures),
            "errors": str(counts.errors), "skipped": str(counts.skipped),
            "time": _seconds(seconds)}


def junit_xml(suite: str, cases: list[Case], *, timestamp: str | None = None,
              seconds: float | None = None) -> bytes:
    """The report as UTF-8 bytes with an XML declaration."""
    counts = Counts.of(cases)
    total = sum(c.seconds for c in cases) if seconds is None else seconds
    root = ET.Element("testsuites", {"name": xml_safe(suite), **_attrs(counts, total)})
    attrs = {"name": xml_safe(suite), **_attrs(counts, total)}
    if timestamp:
        attrs["timestamp"] = timestamp
    ts = ET.SubElement(root, "testsuite", attrs)
    for c in cases:
        tc = ET.SubElement(ts, "testcase", {"classname": xml_safe(c.classname),
                                            "name": xml_safe(c.name),
                                            "time": _seconds(c.seconds)})
        if c.problem is not None:
            p = c.problem
            el = ET.SubElement(tc, p.kind, {"type": xml_safe(p.type),
                                            "message": xml_safe(p.message)})
            el.text = xml_safe(p.detail) if p.detail else None
        if c.output:
            ET.SubElement(tc, "system-out").text = xml_safe(c.output)
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"
