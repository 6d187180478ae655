"""The record line's bytes: ``encode`` writes each line's fields in order after ``v``,
exactly as the dict of ``dataclasses.asdict`` would, and the reader takes them back."""

from __future__ import annotations

from dataclasses import asdict

import orjson

from ajantik_cdp.core.record_schema import RECORD_VERSION, decode, encode
from tests.record.sample import sample_lines


def test_every_kind_of_line_encodes_as_its_fields_after_the_version() -> None:
    lines = sample_lines()
    assert {line.kind for line in lines} == {"start", "request", "block", "end"}
    for line in lines:
        expected = orjson.dumps({"v": RECORD_VERSION, **asdict(line)}) + b"\n"
        assert encode(line) == expected
        assert decode(encode(line)) == line
