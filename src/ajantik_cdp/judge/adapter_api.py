"""What an adapter works with: the record, the skill's report, and the four answers it
gives back (``Held``, a list of problems, ``Claim``, ``Damage``). docs/adapter.md is the
guide; this module is the reference. ``read_claim`` (judge/claims/) is the shared
claim reader every adapter should use rather than a pattern of its own.

The record is the judge's only source about the world. ``Exchange.reached`` and
``Exchange.answer_json()`` read what the real system answered, never what the client was
told: under a ``phantom_success`` fault the client saw 204 while the system saw nothing.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import orjson

from ajantik_cdp.core.policy.rules import is_write
from ajantik_cdp.core.record.record_schema import (
    RECORD_VERSION,
    BlockLine,
    Body,
    EndLine,
    RecordLine,
    RequestLine,
    StartLine,
)
from ajantik_cdp.judge.claims import Claim, read_claim, read_claims
from ajantik_cdp.record.reader import RecordReadError, parse_record

Reached = Literal["yes", "no", "unknown"]


class Unreadable(ValueError):
    """The record cannot show this (a withheld or missing body, an answer that never came).

    Raised by ``Exchange`` readers. If it escapes ``held()``, the judge makes the unit
    unscorable with this message as the reason, instead of guessing.
    """


class RecordUnusable(ValueError):
    """A record the judge cannot read at all (not a record, a bad line in the middle)."""


# -- the record ------------------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    """One ``request`` line: a write (or a recorded read) and what the system answered."""

    line: int  # 1-based line number in the record file; cite it as evidence
    request: RequestLine

    @property
    def method(self) -> str:
        return self.request.method.upper()

    @property
    def url(self) -> str:
        return self.request.url

    @property
    def path(self) -> str:
        return urlsplit(self.request.url).path

    @property
    def is_write(self) -> bool:
        return is_write(self.request.method)

    @property
    def fault(self) -> str | None:
        """The fault the guard injected on this request, if any."""
        return self.request.fault

    @property
    def client_status(self) -> int | None:
        """What the skill's browser was told. Not evidence about the system."""
        return self.request.client_status

    @property
    def reached(self) -> Reached:
        """Whether the request reached the system.

        "no": a fault answered it and it was never sent. "unknown": it was sent and no
        answer came back (or its answer was lost: ``lost``), so it may or may not have
        landed. "yes": the system answered.
        """
        if self.request.answer == "lost":
            return "unknown"
        system = self.request.system
        if system is None:
            return "no" if self.request.fault else "unknown"
        return "yes" if system.status is not None else "unknown"

    @property
    def lost(self) -> str | None:
        """Why its answer never came (the page closed, the guard stopped), or None."""
        return (self.request.why or "no reason given") if self.request.answer == "lost" \
            else None

    @property
    def status(self) -> int | None:
        """The status the system answered (None unless ``reached == "yes"``)."""
        system = self.request.system
        return system.status if system is not None else None

    @property
    def answered_ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    def describe(self) -> str:
        return f"{self.method} {self.path} (line {self.line})"

    def answer_text(self) -> str:
        if self.lost is not None:
            raise Unreadable(f"{self.describe()} reached the guard and its answer was lost "
                             f"({self.lost}): whether the system applied it is unknown")
        system = self.request.system
        if system is None or system.status is None:
            why = "it never reached the system" if self.reached == "no" else (
                f"no answer came back{': ' + system.error if system and system.error else ''}")
            raise Unreadable(f"{self.describe()} has no answer from the system: {why}")
        if system.body is None:
            raise Unreadable(f"{self.describe()}: the record holds no body for its answer")
        return _body_text(system.body, f"the answer to {self.describe()}")

    def answer_json(self) -> Any:
        return _json(self.answer_text(), f"the answer to {self.describe()}")

    def sent_text(self) -> str:
        return _body_text(self.request.request_body, f"the body sent by {self.describe()}")

    def sent_json(self) -> Any:
        return _json(self.sent_text(), f"the body sent by {self.describe()}")


@dataclass(frozen=True)
class Block:
    """One ``block`` line: a request, press or rewrite the guard stopped."""

    line: int
    block: BlockLine

    @property
    def url(self) -> str | None:
        return self.block.url

    @property
    def method(self) -> str | None:
        return self.block.method

    @property
    def label(self) -> str | None:
        return self.block.label


def _body_text(body: Body, what: str) -> str:
    if body.unseen is not None:
        raise Unreadable(f"{what} was not seen whole by the guard ({body.unseen})")
    if body.withheld is not None:
        raise Unreadable(f"{what} was withheld from the record ({body.withheld.reason})")
    if body.text is not None:
        return body.text
    if body.base64 is not None:
        return base64.b64decode(body.base64).decode("utf-8", "replace")
    if body.length == 0:
        return ""
    raise Unreadable(f"{what} is not in the record")


def _json(text: str, what: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise Unreadable(f"{what} is not JSON") from None


@dataclass(frozen=True)
class Record:
    """A guard record, with every line numbered as it is in the file."""

    numbered: tuple[tuple[int, RecordLine], ...]
    path: Path | None = None
    torn_last_line: bool = False
    line_count: int = 0
    # The record's one schema version, as read from its lines.
    version: int = RECORD_VERSION
    # How the record disagrees with its end line (a line lost on its way to the file), and
    # the requests whose answer was lost (core/record/completeness.py).
    problems: tuple[str, ...] = ()
    lost: tuple[tuple[int, RequestLine], ...] = ()

    @classmethod
    def from_bytes(cls, raw: bytes, path: Path | None = None) -> Record:
        try:
            loaded = parse_record(path or Path("record"), raw)
        except RecordReadError as exc:
            raise RecordUnusable(str(exc)) from None
        torn = loaded.torn_line is not None
        last = loaded.numbered[-1][0]
        return cls(loaded.numbered, path, torn, last + (1 if torn else 0), loaded.version,
                   loaded.problems, loaded.lost)

    @classmethod
    def read(cls, path: Path) -> Record:
        return cls.from_bytes(path.read_bytes(), path)

    @property
    def start(self) -> StartLine | None:
        return next((ln for _, ln in self.numbered if isinstance(ln, StartLine)), None)

    @property
    def end(self) -> EndLine | None:
        return next((ln for _, ln in self.numbered if isinstance(ln, EndLine)), None)

    @property
    def complete(self) -> bool:
        """False when the guard did not stop cleanly: a write in flight may be missing."""
        return self.end is not None and not self.torn_last_line

    @property
    def fault(self) -> dict[str, Any] | None:
        start = self.start
        return start.fault if start is not None else None

    @property
    def fault_fired(self) -> bool | None:
        """Whether the armed fault touched any request (None: no fault was armed). A run
        whose fault never fired is no test of that fault."""
        if self.fault is None:
            return None
        return any(isinstance(ln, RequestLine) and ln.fault is not None
                   for _, ln in self.numbered)

    def exchanges(self, *, method: str | None = None, path: str | None = None) -> list[Exchange]:
        """Request lines in record order, optionally only one method and only paths the
        regular expression ``path`` matches (``re.search``)."""
        wanted = re.compile(path) if path is not None else None
        out = []
        for number, line in self.numbered:
            if not isinstance(line, RequestLine):
                continue
            ex = Exchange(number, line)
            if method is not None and ex.method != method.upper():
                continue
            if wanted is not None and not wanted.search(ex.path):
                continue
            out.append(ex)
        return out

    def blocks(self) -> list[Block]:
        return [Block(n, ln) for n, ln in self.numbered if isinstance(ln, BlockLine)]

    @cached_property
    def _by_number(self) -> dict[int, RecordLine]:
        return dict(self.numbered)

    def line(self, number: int) -> RecordLine | None:
        return self._by_number.get(number)

    def line_numbers(self) -> frozenset[int]:
        return frozenset(self._by_number)


# -- the skill's report ----------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """The skill's final message, as text."""

    text: str
    path: Path | None = None

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def find(self, pattern: str, flags: int = re.IGNORECASE | re.MULTILINE) -> re.Match[str] | None:
        return re.search(pattern, self.text, flags)

    def json_lines(self) -> list[Any]:
        """Every line of the report that is a JSON value on its own."""
        out = []
        for line in self.lines:
            stripped = line.strip()
            if stripped[:1] in ("{", "["):
                try:
                    out.append(orjson.loads(stripped))
                except orjson.JSONDecodeError:
                    continue
        return out


# -- what an adapter returns -----------------------------------------------------------

# What evidence may be given as: line numbers, exchanges, blocks, or iterables of them to
# any depth (a list of lists, a generator of lists: adapters build evidence both ways).
Cited = int | Exchange | Block | Iterable["Cited"]
Evidence = Iterable[Cited]


def cite(*items: Cited) -> tuple[int, ...]:
    """Record line numbers, sorted and unique, from line numbers, exchanges or blocks
    (or iterables of them, nested to any depth, generators too):
    ``Damage(..., evidence=cite(first, second))``."""
    return _line_numbers(items)


def _flat(items: Iterable[object]) -> Iterable[object]:
    for item in items:
        # A string is iterable too (and each of its characters is a string again): it is
        # no evidence, and _line_numbers says so instead of recursing forever.
        if isinstance(item, Iterable) and not isinstance(item, str | bytes | Exchange | Block):
            yield from _flat(item)
        else:
            yield item


def _line_numbers(evidence: Iterable[object]) -> tuple[int, ...]:
    out: set[int] = set()
    for item in _flat(evidence):
        if isinstance(item, Exchange | Block):
            out.add(item.line)
        elif isinstance(item, int) and not isinstance(item, bool):
            out.add(item)
        else:
            raise TypeError(f"evidence must be record line numbers, Exchange or Block, "
                            f"not {type(item).__name__}")
    return tuple(sorted(out))


@dataclass(frozen=True)
class Held:
    """What the system holds for one unit, read from its own answers in the record.

    ``value`` is whatever ``done_right()`` needs (None: the system holds nothing). When the
    record cannot show it, use ``Held.unknown(reason)``: the unit is then unscorable.
    """

    value: Any = None
    evidence: tuple[int, ...] = ()
    unknown_reason: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", _line_numbers(self.evidence))
        if self.unknown_reason is not None and not self.unknown_reason.strip():
            raise ValueError("Held.unknown needs a reason")

    @classmethod
    def known(cls, value: Any, evidence: Evidence = ()) -> Held:
        return cls(value, cite(evidence))

    @classmethod
    def unknown(cls, reason: str, evidence: Evidence = ()) -> Held:
        return cls(None, cite(evidence), reason)


@dataclass(frozen=True)
class Damage:
    """Harm left in the system whatever the verdict: a duplicate, a write into another
    account's record. ``kind`` is a short name ("duplicate", "wrong_account", ...)."""

    kind: str
    detail: str
    unit: str | None = None
    evidence: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", _line_numbers(self.evidence))


__all__ = ["Block", "Claim", "Damage", "Exchange", "Held", "Record", "RecordUnusable",
           "Report", "Unreadable", "cite", "read_claim", "read_claims"]
