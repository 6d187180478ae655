"""The one place record lines reach the disk.

Each line goes out in a single ``os.write`` on an ``O_APPEND`` descriptor, with no
user-space buffer: once ``write`` returns, the line is in the kernel and survives the guard
being killed with SIGKILL. A crash can therefore only lose the line being written.

A recorded request's line is written when it leaves, ``pending`` its answer; the writer
keeps those lines until their ``answer`` line, so that whoever is told of a line (the film)
is told of the whole request once, and so that closing the record answers each one still
waiting as lost rather than leaving it open. The end line counts what was owed
(``core/record/completeness.py`` checks a record against it).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.core.policy.rules import is_write
from ajantik_cdp.core.record.record_schema import (
    FILM_VERSION,
    RECORD_VERSION,
    ActionLine,
    AnswerLine,
    BlockLine,
    EndLine,
    EscapedLine,
    FrameLine,
    RecordLine,
    RequestLine,
    StartLine,
    complete,
    encode,
)

STOPPED_WHY = "the guard stopped before its answer came"


class RecordOpenError(BadInput):
    """The record's path cannot be written (exit 2): named, with the reason."""


class RecordWriter:
    """``version`` is the record's one version (a guard writes ``RECORD_VERSION``;
    ``FILM_VERSION`` is for tools that write version-2 records); ``filmed``: the end line
    counts frame and action lines too."""

    def __init__(self, path: Path, version: int = RECORD_VERSION, *,
                 filmed: bool = False) -> None:
        self.path = path
        self.version = version
        self.filmed = filmed or version == FILM_VERSION
        try:
            self._fd: int | None = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                                           0o600)
        except OSError as exc:
            raise RecordOpenError(f"cannot write the record {path}: "
                                  f"{exc.strerror or exc}") from None
        self.counts: Counter[str] = Counter()
        self._seq = 0
        # Request lines written pending their answer, by seq.
        self._pending: dict[int, RequestLine] = {}
        # Requests the guard paused that owe a request line, as the guard counted them
        # (set before ``close``); None: not told, and the end line leaves it out.
        self.paused: int | None = None
        # Told of every line once it is on disk (the film takes a still after a write).
        self.on_written: Callable[[RecordLine], None] | None = None

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def write(self, line: RecordLine) -> None:
        if self._fd is None:
            return
        data = encode(line, self.version)
        written = os.write(self._fd, data)
        while written < len(data):  # a short write on a full disk: finish the line
            written += os.write(self._fd, data[written:])
        told: RecordLine | None = line
        if isinstance(line, RequestLine):
            self.counts["request"] += 1
            if is_write(line.method):
                self.counts["write"] += 1
            if line.fault:
                self.counts["fault"] += 1
            if line.answer == "pending":
                self._pending[line.seq] = line
                told = None
            elif line.answer == "lost":
                self.counts["lost"] += 1
        elif isinstance(line, AnswerLine):
            if line.answer == "lost":
                self.counts["lost"] += 1
            request = self._pending.pop(line.seq, None)
            told = None if request is None else complete(request, line)
        elif isinstance(line, BlockLine):
            self.counts["block"] += 1
        elif isinstance(line, EscapedLine):
            self.counts["escaped"] += 1
        elif isinstance(line, FrameLine):
            self.counts["frame"] += 1
        elif isinstance(line, ActionLine):
            self.counts["action"] += 1
        if self.on_written is not None and told is not None:
            self.on_written(told)

    @property
    def pending(self) -> int:
        """Request lines written whose answer line is still to come."""
        return len(self._pending)

    def start(self, line: StartLine) -> None:
        self.write(line)

    def close(self, reason: str) -> None:
        if self._fd is None:
            return
        self.on_written = None
        for seq in list(self._pending):  # normally none: the guard answered each already
            self.write(AnswerLine(seq=seq, answer="lost", system=None, client_status=None,
                                  why=STOPPED_WHY))
        kinds: tuple[str, ...] = ("request", "write", "block", "fault")
        if self.version >= RECORD_VERSION:
            kinds += ("escaped",)
        if self.filmed:
            kinds += ("frame", "action")
        counts = {k: self.counts.get(k, 0) for k in kinds}
        if self.version == RECORD_VERSION:
            counts["lost"] = self.counts.get("lost", 0)
            if self.paused is not None:
                counts["paused"] = self.paused
        self.write(EndLine(reason=reason, counts=counts))
        os.close(self._fd)
        self._fd = None


def set_aside(path: Path) -> Path | None:
    """Move an earlier, non-empty record out of the way so a new run never appends to it
    or overwrites it. Returns where it went."""
    try:
        if path.stat().st_size == 0:
            return None
    except FileNotFoundError:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"{path.stem}.{stamp}{path.suffix}")
    path.rename(target)
    return target
