"""The record line's bytes: ``encode`` writes each line's fields in order after ``v``,
exactly as the dict of ``dataclasses.asdict`` would, and the reader takes them back.
A version-1 record is byte for byte what version 1 always was (no ``film`` field);
version 2 carries the film; version 3 (written now) adds a request line's ``answer`` and
``why``, and answer lines."""

from __future__ import annotations

from dataclasses import asdict, replace

import orjson
import pytest

from ajantik_cdp.core.record.record_schema import (
    FILM_VERSION,
    RECORD_VERSION,
    VERSION_1,
    ActionLine,
    AnswerLine,
    EscapedLine,
    FrameLine,
    RecordFormatError,
    RequestLine,
    StartLine,
    SystemAnswer,
    complete,
    decode,
    encode,
)
from tests.record.sample import sample_lines


def _old_fields(line: object, version: int) -> dict[str, object]:
    data = asdict(line)  # type: ignore[call-overload]
    if isinstance(line, StartLine) and version == VERSION_1:
        del data["film"]
    if isinstance(line, RequestLine):
        del data["answer"], data["why"], data["request_body"]["unseen"]
        if data["system"] is not None and data["system"]["body"] is not None:
            del data["system"]["body"]["unseen"]
    return data


def test_every_kind_of_line_encodes_as_its_fields_after_the_version() -> None:
    lines = sample_lines()
    assert {line.kind for line in lines} == {"start", "request", "block", "end"}
    for line in lines:
        expected = orjson.dumps({"v": RECORD_VERSION, **asdict(line)}) + b"\n"  # type: ignore[call-overload]
        assert encode(line) == expected
        assert decode(encode(line)) == line
        old = orjson.dumps({"v": VERSION_1, **_old_fields(line, VERSION_1)}) + b"\n"
        assert encode(line, VERSION_1) == old
        assert decode(old) == line


def test_an_answer_line_completes_its_pending_request_line() -> None:
    request = next(ln for ln in sample_lines() if isinstance(ln, RequestLine))
    pending = replace(request, answer="pending", system=None, client_status=None)
    answer = AnswerLine(seq=pending.seq, answer="lost", system=None, client_status=None,
                        why="the page closed")
    for line in (pending, answer):
        assert decode(encode(line)) == line
        with pytest.raises(ValueError, match="version 3"):
            encode(line, FILM_VERSION)
    folded = complete(pending, answer)
    assert (folded.answer, folded.why, folded.system, folded.time) == (
        "lost", "the page closed", None, answer.time)
    given = AnswerLine(seq=pending.seq, answer="given", system=SystemAnswer(status=201),
                       client_status=201)
    assert complete(pending, given).system == SystemAnswer(status=201)
    data = orjson.loads(encode(pending))
    data["v"] = 2
    with pytest.raises(RecordFormatError, match="no answer lines"):
        decode(orjson.dumps(data))


def film_lines() -> list[object]:
    start = replace(sample_lines()[0], film={"dir": "film", "fps": 2.0})
    return [start,
            FrameLine(target_id="T", file="000001-still.jpg", bytes=10, cause="still",
                      url="http://a/", after_seq=3),
            ActionLine(target_id="T", method="Input.insertText", summary="insert text")]


def test_film_lines_encode_as_version_2_and_come_back() -> None:
    for line in [*sample_lines(), *film_lines()]:
        data = encode(line, FILM_VERSION)  # type: ignore[arg-type]
        assert data == orjson.dumps({"v": FILM_VERSION,
                                     **_old_fields(line, FILM_VERSION)}) + b"\n"
        assert decode(data) == line


def test_version_1_holds_no_film() -> None:
    for line in film_lines():
        with pytest.raises(ValueError, match="version 2"):
            encode(line, VERSION_1)  # type: ignore[arg-type]
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
    for old in (VERSION_1, FILM_VERSION):
        with pytest.raises(ValueError, match="version 3"):
            encode(line, old)
        forged = orjson.dumps({"v": old, **asdict(line)})
        with pytest.raises(RecordFormatError, match="no escaped line"):
            decode(forged)


def test_a_body_not_seen_whole_is_version_3_only() -> None:
    from ajantik_cdp.core.record.record_schema import Body
    request = next(ln for ln in sample_lines() if isinstance(ln, RequestLine))
    unseen = replace(request, request_body=Body(length=288, unseen="a file from disk"))
    assert decode(encode(unseen)) == unseen
    with pytest.raises(ValueError, match="version 3"):
        encode(unseen, FILM_VERSION)
