"""A filmed suite through real Chromium: `ajantik gauntlet run --film` keeps frames and
frame lines in every run's folder, from the guard in a fault variant and from the
harness's own camera in a run with no guard, and report.html shows a player per run
whose frames are on disk; `--no-film` leaves no film and no player."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from ajantik_cdp.core.record.record_schema import RequestLine
from ajantik_cdp.record.reader import load_record
from tests.gauntlet.suites import write_suite
from tests.support.cli import Result, run

pytestmark = pytest.mark.browser

GUARDED, UNGUARDED = "transient_coupon-r0", "baseline-r0"


@dataclass
class Ran:
    result: Result
    out: Path

    def run_folder(self, run_id: str) -> Path:
        return self.out / "runs" / run_id

    def report(self) -> str:
        return (self.out / "report.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    folder = tmp_path_factory.mktemp("film-suites")
    filmed = write_suite(folder, "filmed", variants=["baseline", "transient_coupon"],
                         preset="resilient")
    plain = write_suite(folder, "plain", variants=["baseline"], preset="resilient",
                        workers=1)
    # Every shop page is under /r/<run>/: a suite that redacts them must film none.
    redacted = write_suite(folder, "redacted", variants=["baseline", "transient_coupon"],
                           preset="resilient", extra="redact: ['/r/']\n")
    out = {}
    for name, suite, flags in (("film", filmed, ["--film", "--film-fps", "4"]),
                               ("none", plain, ["--no-film"]),
                               # No --film: suite runs are filmed by default.
                               ("redacted", redacted, ["--film-fps", "4"])):
        target = folder / f"out-{name}"
        out[name] = Ran(run("gauntlet", "run", str(suite), "--out", str(target), *flags),
                        target)
    return out


def _frames_on_disk(record: Path, film: Path) -> list[str]:
    loaded = load_record(record)
    files = [f.file for f in loaded.frames]
    assert files, f"{record} lists no frame"
    missing = [f for f in files if not (film / f).is_file()]
    assert not missing, f"frames listed but not on disk: {missing[:3]}"
    return files


def test_a_run_with_no_guard_is_filmed_by_the_harness(ran: dict[str, Ran]) -> None:
    film = ran["film"]
    assert film.result.code == 0, film.result.stdout + film.result.stderr
    folder = film.run_folder(UNGUARDED)
    assert not (folder / "record.jsonl").exists()  # no guard in front of this run
    files = _frames_on_disk(folder / "film.jsonl", folder / "film")
    loaded = load_record(folder / "film.jsonl")
    assert loaded.start is not None and loaded.start.film is not None
    assert loaded.start.film["dir"] == "film" and loaded.start.film["fps"] == 4
    # The shop's pages were filmed, not only the browser's blank first tab.
    assert any("/r/" in f.url for f in loaded.frames), [f.url for f in loaded.frames]
    assert len(set(files)) == len(list((folder / "film").glob("*.jpg")))


def test_a_fault_run_is_filmed_by_its_guard(ran: dict[str, Ran]) -> None:
    folder = ran["film"].run_folder(GUARDED)
    assert not (folder / "film.jsonl").exists()
    _frames_on_disk(folder / "record.jsonl", folder / "film")
    loaded = load_record(folder / "record.jsonl")
    # The guard's own film: its frames share the record with the faulted request, and a
    # write has its still (a frame taken after that line).
    assert any(isinstance(ln, RequestLine) and ln.fault for ln in loaded.lines)
    assert any(f.after_seq is not None for f in loaded.frames)


def _players(page: str) -> dict[str, list[str]]:
    """Each player's id and the frame addresses it shows."""
    out: dict[str, list[str]] = {}
    for match in re.finditer(r'<div class="film" id="([^"]+)-film" data-film>(.*?)</ol>',
                             page, re.S):
        out[match.group(1)] = re.findall(r'<img[^>]* src="([^"]+)"', match.group(2))
    return out


def test_the_report_has_a_player_per_run_with_its_frames_on_disk(ran: dict[str, Ran]
                                                                  ) -> None:
    film = ran["film"]
    page = film.report()
    players = _players(page)
    assert set(players) == {GUARDED, UNGUARDED}
    for run_id, sources in players.items():
        assert sources, run_id
        for src in sources:
            assert src.startswith(f"runs/{run_id}/film/"), src  # linked, not embedded
            assert (film.out / src).is_file(), src
    assert "data:image/jpeg" not in page  # the page stays small
    assert "What the harness filmed" in page and "What the guard filmed" in page


def test_the_report_written_elsewhere_links_the_frames_from_there(
        ran: dict[str, Ran], tmp_path: Path) -> None:
    film = ran["film"]
    target = tmp_path / "elsewhere" / "again.html"
    again = run("gauntlet", "report", str(film.out / "results.json"), "--out", str(target))
    assert again.code == 0, again.stdout + again.stderr
    players = _players(target.read_text(encoding="utf-8"))
    assert set(players) == {GUARDED, UNGUARDED}
    for sources in players.values():
        for src in sources:
            assert not src.startswith("runs/"), src
            assert (target.parent / src).is_file(), src


def test_no_film_leaves_no_frames_and_no_player(ran: dict[str, Ran]) -> None:
    none = ran["none"]
    assert none.result.code == 0, none.result.stdout + none.result.stderr
    folder = none.run_folder(UNGUARDED)
    assert (folder / "end.png").is_file()  # the run did run
    assert not (folder / "film").exists() and not (folder / "film.jsonl").exists()
    page = none.report()
    assert "data-film" not in page and not _players(page)


def test_a_suite_redact_rule_keeps_its_pages_off_every_film(ran: dict[str, Ran]) -> None:
    """The same runs as the filmed suite (whose films show the shop's /r/ pages, above),
    with `redact: ['/r/']` and no `--film` (on by default): the harness's camera and the
    fault run's guard film, keep no frame of a shop page, and the runs still ran."""
    redacted = ran["redacted"]
    assert redacted.result.code == 0, redacted.result.stdout + redacted.result.stderr
    for run_id, record in ((UNGUARDED, "film.jsonl"), (GUARDED, "record.jsonl")):
        folder = redacted.run_folder(run_id)
        assert (folder / "end.png").is_file(), run_id
        loaded = load_record(folder / record)
        assert loaded.start is not None and loaded.start.film is not None, run_id
        # The shop is the only http page these runs open (the rest is about:blank).
        shown = [f.url for f in loaded.frames if f.url.startswith(("http:", "https:"))]
        assert not shown, (run_id, shown)
        on_disk = len(list((folder / "film").glob("*.jpg")))
        assert on_disk == len({f.file for f in loaded.frames}), run_id
