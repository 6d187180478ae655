"""Opening a record file for people and tools: ``record show``, the HAR export, the judge.

Every way a file can fail to be a record ends in one ``RecordReadError`` with a sentence
for the person who gave the path. The one damage a record can carry by design, a last line
cut short because the guard was killed while writing it, is reported and skipped.

Answer lines (version 3) are folded into their request lines here, so every reader sees
one request line per request, and ``notes()`` says where the record disagrees with its end
line or holds answers that never came (``core/record/completeness.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.core.record.completeness import Folded, fold, lost_notes
from ajantik_cdp.core.record.record_schema import (
    RECORD_VERSION,
    VERSIONS,
    ActionLine,
    BlockLine,
    EndLine,
    FrameLine,
    RecordFormatError,
    RecordLine,
    RequestLine,
    StartLine,
    decode,
)

_LINE_START = b'{"v":'


class RecordReadError(BadInput):
    """A one-line reason a file cannot be read as a record (exit 2, as for any input
    that is not what it should be: a wrong path and a damaged file alike)."""


class MissingRecord(RecordReadError):
    """No file at the path given."""


@dataclass(frozen=True)
class LoadedRecord:
    path: Path
    # Every whole line, with its line number in the file (the judge cites them).
    numbered: tuple[tuple[int, RecordLine], ...]
    # Set when the last line was cut short (a guard killed mid-write): what was seen.
    torn_line: str | None = None
    version: int = RECORD_VERSION
    # How the record disagrees with itself (a line lost on its way to the file), and the
    # requests whose answer was lost: see ``core/record/completeness.py``.
    problems: tuple[str, ...] = ()
    lost: tuple[tuple[int, RequestLine], ...] = ()

    @property
    def frames(self) -> list[FrameLine]:
        return [ln for ln in self.lines if isinstance(ln, FrameLine)]

    @property
    def actions(self) -> list[ActionLine]:
        return [ln for ln in self.lines if isinstance(ln, ActionLine)]

    def film_dir(self, given: Path | None = None) -> Path | None:
        """Where this record's frames are: ``given``, else the folder its guard was told
        (a relative one is taken from the record's own folder, where the guard ran)."""
        if given is not None:
            return given
        film = self.start.film if self.start is not None else None
        folder = film.get("dir") if isinstance(film, dict) else None
        if not isinstance(folder, str):
            return None
        path = Path(folder)
        return path if path.is_absolute() else self.path.parent / path

    @property
    def lines(self) -> tuple[RecordLine, ...]:
        return tuple(line for _, line in self.numbered)

    @property
    def start(self) -> StartLine | None:
        first = self.lines[0] if self.lines else None
        return first if isinstance(first, StartLine) else None

    @property
    def end(self) -> EndLine | None:
        last = self.lines[-1] if self.lines else None
        return last if isinstance(last, EndLine) else None

    @property
    def requests(self) -> list[RequestLine]:
        return [ln for ln in self.lines if isinstance(ln, RequestLine)]

    @property
    def blocks(self) -> list[BlockLine]:
        return [ln for ln in self.lines if isinstance(ln, BlockLine)]

    def notes(self) -> list[str]:
        """What a reader should know about this record's completeness."""
        out = []
        if self.torn_line is not None:
            out.append(f"the last line is incomplete ({self.torn_line}); the guard was "
                       "killed while writing it, so that one line is missing")
        if self.end is None:
            out.append("no end line: the guard is still running, or it was killed "
                       "before it could finish the record")
        out += [f"incomplete: {problem}" for problem in self.problems]
        out += lost_notes(Folded(self.numbered, self.lost, self.problems))
        return out


def _version_of(chunk: bytes) -> tuple[bool, object]:
    """(looks like a record line, its "v") for a line that parses as a JSON object."""
    try:
        data = orjson.loads(chunk)
    except orjson.JSONDecodeError:
        return False, None
    if not isinstance(data, dict) or "kind" not in data or "v" not in data:
        return False, None
    return True, data["v"]


def parse_record(path: Path, raw: bytes) -> LoadedRecord:
    """Parse a record's bytes; raises RecordReadError with a one-line reason."""
    chunks = raw.split(b"\n")
    numbered = [(n, c) for n, c in enumerate(chunks, start=1) if c.strip()]
    if not numbered:
        raise RecordReadError(f"{path} is empty: it is not an ajantik record")
    last_unterminated = not raw.endswith(b"\n")
    lines: list[tuple[int, RecordLine]] = []
    torn: str | None = None
    first_version: object = None
    for index, (number, chunk) in enumerate(numbered):
        # The writer puts "v" first, so a line cut short still starts like a record line.
        head = chunk[: len(_LINE_START)]
        is_last = (index == len(numbered) - 1 and last_unterminated
                   and head == _LINE_START[: len(head)])
        looks, version = _version_of(chunk)
        if index == 0 and not looks and not is_last:
            raise RecordReadError(f"{path} is not an ajantik record (line 1 is not a "
                                  "record line)")
        if looks and version not in VERSIONS:
            raise RecordReadError(
                f"{path} is record version {version!r}; this ajantik reads versions "
                f"{', '.join(map(str, VERSIONS))} (use the ajantik that wrote it, or a "
                "newer one)")
        if looks:
            if first_version is None:
                first_version = version
            elif version != first_version:
                raise RecordReadError(f"{path} line {number} is record version {version}, "
                                      f"line 1 version {first_version}: a record holds one "
                                      "version throughout")
        try:
            lines.append((number, decode(chunk)))
        except RecordFormatError as exc:
            if is_last:
                torn = f"{len(chunk)} bytes at line {number}"
                continue
            raise RecordReadError(f"{path} line {number} is damaged ({exc}); only a "
                                  "record's last line can be incomplete") from None
    if not lines:
        raise RecordReadError(f"{path} holds only an incomplete first line: the guard was "
                              "killed before it wrote one whole line")
    folded = fold(lines)
    return LoadedRecord(path, folded.numbered, torn,
                        first_version if isinstance(first_version, int) else RECORD_VERSION,
                        folded.problems, folded.lost)


def load_record(path: Path) -> LoadedRecord:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MissingRecord(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MissingRecord(f"{path} is a directory, not a record file") from None
    except OSError as exc:
        raise RecordReadError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_record(path, raw)
