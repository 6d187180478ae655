"""What a scan of the report found: claims read, and where each unit is mentioned."""

from __future__ import annotations

from dataclasses import dataclass

from ajantik_cdp.core.scoring.verdicts import Said
from ajantik_cdp.judge.claims.vocabulary import Read


@dataclass(frozen=True)
class Finding:
    unit: int
    said: Said | None  # None: claim-shaped but unreadable (see reason)
    line: int  # 1-based line of the report
    quote: str
    form: str
    reason: str = ""


@dataclass
class Scan:
    """What the report's text says: claims found, and where each unit is mentioned."""

    lines: list[str]  # with their line ends, so spans quote the report verbatim
    findings: list[Finding]
    mentions: dict[int, tuple[int, str]]  # unit -> first (line, quote) it appears on

    def mention(self, unit: int, line: int) -> None:
        self.mentions.setdefault(unit, (line, self.lines[line - 1].strip()))

    def found(self, unit: int, read: Read, line: int, form: str, last: int | None = None,
              ) -> None:
        """A claim read from ``line`` (through line ``last`` when it spans several)."""
        quote = "".join(self.lines[line - 1:(last or line)]).strip()
        self.findings.append(Finding(unit, read.said, last or line, quote, form,
                                      read.problem))
