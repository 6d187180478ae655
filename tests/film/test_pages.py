"""A filmed record read without a browser: ``record show --film`` names each line's
frame, ``record film`` writes a self-contained player, and the judge's page carries the
player (and no script at all for a record without film)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from ajantik_cdp.cli.main import main
from ajantik_cdp.core.record.record_schema import (
    FILM_VERSION,
    ActionLine,
    FrameLine,
    RequestLine,
    StartLine,
    encode,
)
from ajantik_cdp.record.reader import load_record
from tests.judge.conftest import TEMPLATE
from tests.support.records import RecordBuilder

JPEG = b"\xff\xd8\xff\xe0" + b"0" * 40 + b"\xff\xd9"


def film(record: Path, folder: Path | None = None) -> Path:
    """Turn a record into a filmed one: a still after every write, a screencast frame
    first, an action, frames in ``folder`` (default: ``film`` beside the record)."""
    folder = folder or record.parent / "film"
    folder.mkdir(exist_ok=True)
    out = []
    n = 0
    requests = 0
    start: datetime | None = None
    for line in load_record(record).lines:
        if isinstance(line, RequestLine) and start is not None:
            # Times of our own: the builder's come from the clock. A line's frame is the
            # first one written at or after it, so the first read, at the start, gets the
            # screencast frame; on a loaded machine it had come a millisecond later and
            # got the write's still.
            at = start + timedelta(seconds=10 * requests)
            requests += 1
            line = replace(line, time=at.isoformat(timespec="milliseconds")
                           .replace("+00:00", "Z"))
        if isinstance(line, StartLine):
            start = datetime.fromisoformat(line.time.replace("Z", "+00:00"))
            line = replace(line, film={"dir": "film", "fps": 2.0})
            out.append(line)
            n += 1
            (folder / f"{n:06d}-screencast.jpg").write_bytes(JPEG)
            out.append(FrameLine(target_id="T1", file=f"{n:06d}-screencast.jpg",
                                 bytes=len(JPEG), cause="screencast", url="http://a/",
                                 time=line.time))
            out.append(ActionLine(target_id="T1", method="Input.insertText",
                                  summary="type text · after 3 calls of Playwright's own",
                                  time=line.time))
            continue
        out.append(line)
        if isinstance(line, RequestLine) and line.method != "GET":
            n += 1
            (folder / f"{n:06d}-still.jpg").write_bytes(JPEG)
            out.append(FrameLine(target_id=line.target_id, file=f"{n:06d}-still.jpg",
                                 bytes=len(JPEG), cause="still", url="http://a/",
                                 after_seq=line.seq, time=line.time))
    record.write_bytes(b"".join(encode(ln, FILM_VERSION) for ln in out))
    return record


def cli(*args: str) -> int:
    with pytest.raises(SystemExit) as caught:
        main(list(args))
    return int(caught.value.code or 0)


@pytest.fixture
def filmed(tmp_path: Path) -> Path:
    rec = RecordBuilder(tmp_path / "record.jsonl")
    rec.exchange("GET", "/api/records/A-1", answer={"record": {"id": "A-1"}})
    rec.exchange("PUT", "/api/records/A-1", sent={"status": "approved"},
                 answer={"record": {"id": "A-1", "status": "approved"}})
    return film(rec.close())


def test_record_show_film_names_each_lines_frame(filmed: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(filmed.parent)
    assert cli("record", "show", filmed.name, "--film", "film", "--width", "300") == 0
    out = capsys.readouterr().out
    put = next(line for line in out.splitlines() if " PUT " in line)
    assert "film/000002-still.jpg" in put
    get = next(line for line in out.splitlines() if " GET " in line)
    assert "film/000001-screencast.jpg" in get  # no still for a read: the nearest frame


def test_record_film_writes_a_self_contained_player(filmed: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    page = tmp_path / "p.html"
    assert cli("record", "film", str(filmed), "-o", str(page)) == 0
    html = page.read_text()
    assert html.count("data:image/jpeg;base64,") >= 2
    assert not re.search(r'(src|href)="https?:', html)
    assert "type text <span class=\"t fold\">after 3 calls of Playwright&#39;s own</span>" \
        in html and "PUT" in html
    assert "2 frames" in capsys.readouterr().err


def test_record_film_refuses_a_record_without_film(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rec = RecordBuilder(tmp_path / "plain.jsonl")
    rec.exchange("PUT", "/api/x", sent={"a": 1}, answer={"ok": True})
    path = rec.close()
    assert cli("record", "film", str(path)) == 2  # bad input, as the README's table says
    err = capsys.readouterr().err.strip()
    assert "holds no film" in err and len(err.splitlines()) == 1


def test_a_moved_film_folder_is_said_and_found_with_film(filmed: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    moved = tmp_path / "elsewhere"
    (filmed.parent / "film").rename(moved)
    page = tmp_path / "p.html"
    assert cli("record", "film", str(filmed), "-o", str(page)) == 0
    assert "not found" in capsys.readouterr().err
    assert cli("record", "film", str(filmed), "--film", str(moved), "-o", str(page)) == 0
    assert page.read_text().count("data:image/jpeg;base64,") >= 2


def test_judge_page_carries_the_player(filmed: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    report.write_text("A-1: done — approved\n")
    page = tmp_path / "v.html"
    cli("test", "judge", "--adapter", str(TEMPLATE), "--record", str(filmed),
        "--message", str(report), "--html", str(page))
    html = page.read_text()
    assert 'data-film' in html and "<script>" in html
    assert html.count("data:image/jpeg;base64,") >= 2
