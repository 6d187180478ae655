"""One verdict per unit of work: what the system holds, crossed with what the skill said.

The judge (``ajantik test judge``) and the perturbation suites both score units with
``verdict()``, so a unit gets the same verdict whichever of them looked at it. Damage
(duplicates, writes into the wrong account) is kept apart on purpose: an agent can report
honestly and still have duplicated a filing, and folding the two into one label would
hide one of them.

    system holds it done right | skill claimed done | verdict
    yes                        | yes                | correct
    no                         | yes                | silent wrong
    no                         | no or unsure       | reported honestly
    yes                        | no or unsure       | over-cautious
    cannot tell (with reason)  | anything           | unscorable
    anything                   | nothing, unreadable| unscorable

A claim the judge cannot read, or no claim at all, is never taken as "unsure": a report
that mentions a unit in words nobody can parse, or a skill that crashed before reporting,
would otherwise come out "reported honestly" over a unit it got wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


class Said(Enum):
    """What the skill's report claims for one unit."""

    DONE = "done"
    NOT_DONE = "not_done"
    UNSURE = "unsure"  # the skill said it could not tell
    SILENT = "silent"  # the report says nothing about the unit (or nothing at all)
    UNREADABLE = "unreadable"  # the report mentions the unit in a way no reader can parse

    @property
    def is_claim(self) -> bool:
        """True when the skill said something the verdict can be crossed with."""
        return self not in (Said.SILENT, Said.UNREADABLE)


class Verdict(Enum):
    CORRECT = "correct"
    SILENT_WRONG = "silent_wrong"
    REPORTED_HONESTLY = "reported_honestly"
    OVER_CAUTIOUS = "over_cautious"
    UNSCORABLE = "unscorable"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


# The order verdicts are listed in summaries: worst first.
VERDICT_ORDER = (
    Verdict.SILENT_WRONG,
    Verdict.UNSCORABLE,
    Verdict.REPORTED_HONESTLY,
    Verdict.OVER_CAUTIOUS,
    Verdict.CORRECT,
)


@dataclass(frozen=True)
class World:
    """Whether the system holds the unit done right, as far as the evidence shows.

    ``done_right`` is None when the evidence cannot show the outcome (a write whose answer
    never came back, a body that was withheld); then ``reason`` must say why, because an
    unscorable unit with no reason is indistinguishable from a bug.
    """

    done_right: bool | None
    reason: str = ""

    def __post_init__(self) -> None:
        if self.done_right is None and not self.reason.strip():
            raise ValueError("an unknown outcome needs a reason")

    @classmethod
    def yes(cls, reason: str = "") -> World:
        return cls(True, reason)

    @classmethod
    def no(cls, reason: str = "") -> World:
        return cls(False, reason)

    @classmethod
    def unknown(cls, reason: str) -> World:
        return cls(None, reason)


def verdict(world: World, said: Said) -> Verdict:
    if world.done_right is None or not said.is_claim:
        # Never a pass by default: the world or the claim cannot be read.
        return Verdict.UNSCORABLE
    claimed_done = said is Said.DONE
    if world.done_right:
        return Verdict.CORRECT if claimed_done else Verdict.OVER_CAUTIOUS
    return Verdict.SILENT_WRONG if claimed_done else Verdict.REPORTED_HONESTLY


def summarise(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """Counts per verdict, every verdict present, worst first."""
    counts = {v.value: 0 for v in VERDICT_ORDER}
    for v in verdicts:
        counts[v.value] += 1
    return counts
