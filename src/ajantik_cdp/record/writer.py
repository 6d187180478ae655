"""The one place record lines reach the disk.

Each line goes out in a single ``os.write`` on an ``O_APPEND`` descriptor, with no
user-space buffer: once ``write`` returns, the line is in the kernel and survives the guard
being killed with SIGKILL. A crash can therefore only lose the line being written.
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
    ESCAPED_VERSION,
    FILM_VERSION,
    RECORD_VERSION,
    ActionLine,
    BlockLine,
    EndLine,
    EscapedLine,
    FrameLine,
    RecordLine,
    RequestLine,
    StartLine,
    encode,
)


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
        if isinstance(line, RequestLine):
            self.counts["request"] += 1
            if is_write(line.method):
                self.counts["write"] += 1
            if line.fault:
                self.counts["fault"] += 1
        elif isinstance(line, BlockLine):
            self.counts["block"] += 1
        elif isinstance(line, EscapedLine):
            self.counts["escaped"] += 1
        elif isinstance(line, FrameLine):
            self.counts["frame"] += 1
        elif isinstance(line, ActionLine):
            self.counts["action"] += 1
        if self.on_written is not None:
            self.on_written(line)

    def start(self, line: StartLine) -> None:
        self.write(line)

    def close(self, reason: str) -> None:
        if self._fd is None:
            return
        kinds: tuple[str, ...] = ("request", "write", "block", "fault")
        if self.version >= ESCAPED_VERSION:
            kinds += ("escaped",)
        if self.filmed:
            kinds += ("frame", "action")
        counts = {k: self.counts.get(k, 0) for k in kinds}
        self.on_written = None
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
