"""What one command hands a CI system: the testcases of its JUnit report, its
annotations and the markdown of its step summary. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from ajantik_cdp.ci.junit import Case, junit_xml


@dataclass(frozen=True)
class CiOutputs:
    suite: str  # the JUnit testsuite's name
    cases: tuple[Case, ...]
    annotations: tuple[str, ...]  # workflow-command lines, printed under GitHub Actions
    summary: str  # markdown for $GITHUB_STEP_SUMMARY
    seconds: float | None = None
    timestamp: str | None = None  # when the work started (ISO 8601); else ``now``

    def junit(self, *, now: str, hostname: str = "localhost") -> bytes:
        """The JUnit report; ``now`` (ISO 8601) stands in for a start time not known."""
        return junit_xml(self.suite, list(self.cases), timestamp=self.timestamp or now,
                         hostname=hostname, seconds=self.seconds)
