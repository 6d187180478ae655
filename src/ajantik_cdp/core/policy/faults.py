"""One write fault per run, on the write the operator chooses.

``--fault KIND:PATTERN [--fault-at N]``: the fault fires on the N-th write whose URL the
pattern matches. The state machine counts matching writes and says, for each, whether
(and how) it is faulted. It never touches what the real system answered; the record keeps
that apart from what the client was told.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum


class FaultKind(Enum):
    PHANTOM_SUCCESS = "phantom_success"  # answered 204, never sent
    TRANSIENT_ERROR = "transient_error"  # answered 503 once, never sent
    PHANTOM_FAILURE = "phantom_failure"  # sent, the system answers, the client gets 500
    SESSION_DROP = "session_drop"  # answered 401, never sent; so is every later match


# What the client is told, per kind. phantom_failure's status replaces the real one.
CLIENT_STATUS = {
    FaultKind.PHANTOM_SUCCESS: 204,
    FaultKind.TRANSIENT_ERROR: 503,
    FaultKind.PHANTOM_FAILURE: 500,
    FaultKind.SESSION_DROP: 401,
}
REASON_PHRASE = {204: "No Content", 503: "Service Unavailable", 500: "Internal Server Error",
                 401: "Unauthorized"}


class FaultSpecError(ValueError):
    pass


@dataclass(frozen=True)
class FaultSpec:
    kind: FaultKind
    pattern: str
    regex: re.Pattern[str] = field(compare=False, repr=False)
    at: int = 1

    def as_data(self) -> dict[str, object]:
        return {"kind": self.kind.value, "pattern": self.pattern, "at": self.at}


def parse_fault(text: str, at: int = 1) -> FaultSpec:
    kind_name, sep, pattern = text.partition(":")
    known = ", ".join(k.value for k in FaultKind)
    if not sep:
        raise FaultSpecError(f"--fault must be KIND:PATTERN (kinds: {known}), got {text!r}")
    try:
        kind = FaultKind(kind_name)
    except ValueError:
        raise FaultSpecError(f"unknown fault kind {kind_name!r} (kinds: {known})") from None
    if not pattern:
        raise FaultSpecError("--fault needs a URL pattern after the colon")
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise FaultSpecError(f"--fault pattern {pattern!r} does not compile: {exc}") from None
    if at < 1:
        raise FaultSpecError(f"--fault-at must be 1 or more, got {at}")
    return FaultSpec(kind, pattern, regex, at)


@dataclass
class FaultState:
    spec: FaultSpec | None
    matching_writes: int = 0
    fired: bool = False

    def on_write(self, url: str) -> FaultKind | None:
        """Called once per allowed write, in the order Chrome issues them."""
        spec = self.spec
        if spec is None or spec.regex.search(url) is None:
            return None
        if self.fired:
            # A dropped session stays dropped; every other kind fires exactly once.
            return spec.kind if spec.kind is FaultKind.SESSION_DROP else None
        self.matching_writes += 1
        if self.matching_writes == spec.at:
            self.fired = True
            return spec.kind
        return None
