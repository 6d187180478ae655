"""Reading a record file: every way it can fail gives one clear reason; a torn last line
is reported, not fatal. And `ajantik record show` on top of it."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.cli.main import cli, main
from ajantik_cdp.record.reader import MissingRecord, RecordReadError, load_record, parse_record
from ajantik_cdp.record.table import body_cell, rows
from tests.record.sample import DRAFT, sample_bytes, sample_lines
from tests.support.examples import examples


def write(tmp_path: Path, data: bytes, name: str = "r.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_reads_every_line_kind(tmp_path: Path) -> None:
    record = load_record(write(tmp_path, sample_bytes()))
    assert list(record.lines) == sample_lines()
    assert record.start is not None and record.end is not None
    assert len(record.requests) == 6 and len(record.blocks) == 2
    assert record.notes() == []


@examples(200)
@given(st.data())
def test_a_record_cut_anywhere_loses_at_most_the_line_in_flight(data: st.DataObject) -> None:
    raw = sample_bytes()
    cut = data.draw(st.integers(1, len(raw)))
    kept = raw[:cut]
    # Lines that survived whole: ended by a newline, or cut just before it.
    whole = kept.count(b"\n") + (1 if cut < len(raw) and raw[cut:cut + 1] == b"\n" else 0)
    torn = not kept.endswith(b"\n") and raw[cut:cut + 1] != b"\n" and cut < len(raw)
    if whole == 0:
        with pytest.raises(RecordReadError, match="incomplete first line"):
            parse_record(Path("r.jsonl"), kept)
        return
    record = parse_record(Path("r.jsonl"), kept)
    assert list(record.lines) == sample_lines()[:whole]
    assert (record.torn_line is not None) == torn


@pytest.mark.parametrize(("data", "message"), [
    (b"", "is empty"),
    (b"\n\n", "is empty"),
    (b"hello world\n", "is not an ajantik record"),
    (b'{"name": "Ada"}\n', "is not an ajantik record"),
    (b"hello", "is not an ajantik record"),
    (b'{"v": 4, "kind": "start"}\n', "is record version 4; this ajantik reads versions 1, 2, 3"),
    (sample_bytes().replace(b"\n", b"\ngarbage\n", 1), "line 2 is damaged"),
    (sample_bytes().replace(b'"kind":"request"', b'"kind":"reqest"', 1), "line 2 is damaged"),
])
def test_unreadable_files_give_one_clear_reason(tmp_path: Path, data: bytes,
                                                message: str) -> None:
    with pytest.raises(RecordReadError, match=message) as info:
        load_record(write(tmp_path, data))
    assert "\n" not in str(info.value)


def test_a_version_change_midway_is_refused(tmp_path: Path) -> None:
    later = orjson.dumps({"v": 2, "kind": "request"}) + b"\n"
    with pytest.raises(RecordReadError, match="version 2"):
        load_record(write(tmp_path, sample_bytes() + later))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(MissingRecord, match="no such file"):
        load_record(tmp_path / "absent.jsonl")
    with pytest.raises(MissingRecord, match="is a directory"):
        load_record(tmp_path)


def test_torn_last_line_is_reported(tmp_path: Path) -> None:
    raw = sample_bytes()
    cut = raw[: raw.rindex(b"\n", 0, len(raw) - 1) + 20]  # 19 bytes of the end line
    record = load_record(write(tmp_path, cut))
    assert record.torn_line == "19 bytes at line 10"
    assert record.end is None
    assert any("incomplete" in n for n in record.notes())
    assert any("no end line" in n for n in record.notes())


def test_rows_keep_system_and_client_apart() -> None:
    record = parse_record(Path("r.jsonl"), sample_bytes())
    table = {row.seq: row for row in rows(record)}
    assert (table[3].system, table[3].fault, table[3].client) == ("201", "phantom_failure",
                                                                  "500")
    assert (table[4].system, table[4].client) == ("not sent", "204")
    assert table[5].client == "error ConnectionRefused"
    assert table[2].body == "withheld: field 'password' (57 B, fp 0123456789ab)"
    assert table[1].body == DRAFT
    assert table[7].client == "BLOCKED by deny[0] 'submission'"
    assert table[8].method == "CLICK" and "Submit filing" in table[8].url
    assert 6 not in {row.seq for row in rows(record, writes_only=True)}


def test_body_cell_cuts_long_bodies_only_when_asked() -> None:
    from ajantik_cdp.core.record.record_schema import Body

    long = Body(length=500, text="x" * 500)
    assert len(body_cell(long, 120)) == 120 and body_cell(long, None) == "x" * 500


def test_show_prints_a_table(tmp_path: Path) -> None:
    path = write(tmp_path, sample_bytes())
    result = CliRunner().invoke(cli, ["record", "show", "--width", "250", str(path)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Chrome/156.0.8078.108" in out and "phantom_failure on write #1" in out
    assert "Ada Lovelace" in out and "https://app.example.com/api/save" in out
    assert "withheld: field 'password'" in out
    assert "ended 2025-03-04T10:00:09.000Z (signal SIGTERM)" in out


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The real entry point, in-process: its exit code, stdout and stderr."""
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


@pytest.mark.parametrize(("data", "code", "needle"), [
    (None, 2, "no such file"),
    (b"just text\n", 2, "is not an ajantik record"),
    (b'{"v": 9, "kind": "start"}\n', 2, "is record version 9"),
])
def test_show_and_har_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          data: bytes | None, code: int, needle: str) -> None:
    path = tmp_path / "r.jsonl"
    if data is not None:
        path.write_bytes(data)
    for command in ("show", "har"):
        status, _, err = run_main(capsys, "record", command, str(path))
        assert status == code
        lines = err.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], err
        assert lines[0].startswith(f"ajantik record {command}: error: ")
    assert not (tmp_path / "r.har").exists()


def test_show_warns_on_a_torn_line_and_still_shows(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, sample_bytes()[:-30])
    status, out, err = run_main(capsys, "record", "show", str(path))
    assert status == 0
    assert "warning: the last line is incomplete" in err and "Traceback" not in err
    assert "/api/submission" in out


def test_har_refuses_to_overwrite_the_record(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, sample_bytes(), "run.har")
    status, _, err = run_main(capsys, "record", "har", str(path))
    assert status == 2 and "is the record itself" in err
    assert path.read_bytes() == sample_bytes()
