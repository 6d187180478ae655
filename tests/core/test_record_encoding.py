"""The record line's bytes: ``encode`` writes each line's fields in order after ``v``,
exactly as the dict of ``dataclasses.asdict`` would, and the reader takes them back.
A version-1 record is byte for byte what version 1 always was (no ``film`` field);
version 2 carries the film."""

from __future__ import annotations

from dataclasses import asdict, replace

import orjson
import pytest

from ajantik_cdp.core.record.record_schema import (
    FILM_VERSION,
    PLAIN_VERSION,
    RECORD_VERSION,
    ActionLine,
    EscapedLine,
    FrameLine,
    RecordFormatError,
    StartLine,
    decode,
    encode,
)
from tests.record.sample import sample_lines


def _v1_fields(line: object) -> dict[str, object]:
    data = asdict(line)  # type: ignore[call-overload]
    if isinstance(line, StartLine):
        del data["film"]
    return data


def test_every_kind_of_line_encodes_as_its_fields_after_the_version() -> None:
    lines = sample_lines()
    assert {line.kind for line in lines} == {"start", "request", "block", "end"}
    for line in lines:
        expected = orjson.dumps({"v": PLAIN_VERSION, **_v1_fields(line)}) + b"\n"
        assert encode(line, PLAIN_VERSION) == expected
        assert decode(encode(line, PLAIN_VERSION)) == line


def film_lines() -> list[object]:
    start = replace(sample_lines()[0], film={"dir": "film", "fps": 2.0})
    return [start,
            FrameLine(target_id="T", file="000001-still.jpg", bytes=10, cause="still",
                      url="http://a/", after_seq=3),
            ActionLine(target_id="T", method="Input.insertText", summary="insert text")]


def test_film_lines_encode_as_version_2_and_come_back() -> None:
    for line in [*sample_lines(), *film_lines()]:
        data = encode(line, FILM_VERSION)  # type: ignore[arg-type]
        assert data == orjson.dumps({"v": FILM_VERSION, **asdict(line)}) + b"\n"  # type: ignore[call-overload]
        assert decode(data) == line


def test_version_1_holds_no_film() -> None:
    for line in film_lines():
        with pytest.raises(ValueError, match="version 2"):
            encode(line, PLAIN_VERSION)  # type: ignore[arg-type]
    frame = orjson.dumps({"v": 1, **asdict(film_lines()[1])})  # type: ignore[call-overload]
    with pytest.raises(RecordFormatError, match="no film"):
        decode(frame)
    with pytest.raises(RecordFormatError, match="not supported"):
        decode(b'{"v": 4, "kind": "end", "reason": "x", "counts": {}}')


def escaped_line() -> EscapedLine:
    return EscapedLine(seq=4, source="websocket", reason="deny", rule="deny[0] 'x'",
                       target_id="T", target_type="page", frame_url="http://a/",
                       url="ws://a/x", stage="opened", closed="its renderer crashed")


def test_a_guard_writes_version_3_and_an_escaped_line_needs_it() -> None:
    assert RECORD_VERSION == 3
    line = escaped_line()
    data = encode(line)
    assert data == orjson.dumps({"v": 3, **asdict(line)}) + b"\n"
    assert decode(data) == line
    for line_ in [*sample_lines(), *film_lines()]:  # film or not, in version 3
        assert decode(encode(line_, RECORD_VERSION)) == line_  # type: ignore[arg-type]
    for old in (PLAIN_VERSION, FILM_VERSION):
        with pytest.raises(ValueError, match="version 3"):
            encode(line, old)
        forged = orjson.dumps({"v": old, **asdict(line)})
        with pytest.raises(RecordFormatError, match="no escaped line"):
            decode(forged)
