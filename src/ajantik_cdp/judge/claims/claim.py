"""A unit's claim as the judge crosses it with the world."""

from __future__ import annotations

from dataclasses import dataclass

from ajantik_cdp.core.scoring.verdicts import Said


@dataclass(frozen=True)
class Claim:
    """What the skill's report says about one unit, and the words it says it with.

    ``quote`` is verbatim from the report (empty when it says nothing). ``form`` says how
    the reader found the claim ("line", "table row", ...); ``reason`` says why there is
    no claim to cross with the world (silent, unreadable).
    """

    said: Said
    quote: str
    form: str = ""
    reason: str = ""

    @classmethod
    def done(cls, quote: str, form: str = "") -> Claim:
        return cls(Said.DONE, quote, form)

    @classmethod
    def not_done(cls, quote: str, form: str = "") -> Claim:
        return cls(Said.NOT_DONE, quote, form)

    @classmethod
    def unsure(cls, quote: str, form: str = "") -> Claim:
        return cls(Said.UNSURE, quote, form)

    @classmethod
    def silent(cls, reason: str = "the report says nothing about it") -> Claim:
        """No claim about the unit: unscorable, never taken as done or as unsure."""
        return cls(Said.SILENT, "", "", reason)

    @classmethod
    def unreadable(cls, quote: str, reason: str) -> Claim:
        """The report speaks of the unit in words no reader can parse: unscorable."""
        return cls(Said.UNREADABLE, quote, "", reason)
