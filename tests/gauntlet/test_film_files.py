"""A run's film as files, without a browser: a Ray node ships the frames back beside the
run's other files (and nothing outside the run's folder), and a run with no film has no
player in the suite's report."""

from __future__ import annotations

from pathlib import Path

from ajantik_cdp.gauntlet.run.ray_executor import _write_files
from ajantik_cdp.gauntlet.run.ray_node import _read_files
from ajantik_cdp.gauntlet.run.run_films import films_for, run_film


def test_a_nodes_film_comes_back_into_the_runs_film_folder(tmp_path: Path) -> None:
    node = tmp_path / "node"
    (node / "film").mkdir(parents=True)
    (node / "end.png").write_bytes(b"png")
    (node / "film.jsonl").write_bytes(b"{}\n")
    (node / "film" / "000001-screencast.jpg").write_bytes(b"jpeg")
    files, notes = _read_files(node)
    assert not notes
    assert dict(files) == {"end.png": b"png", "film.jsonl": b"{}\n",
                           "film/000001-screencast.jpg": b"jpeg"}
    here = tmp_path / "here"
    _write_files(here, files)
    assert (here / "film" / "000001-screencast.jpg").read_bytes() == b"jpeg"
    assert (here / "end.png").read_bytes() == b"png"


def test_names_from_a_node_stay_inside_the_run_and_its_film(tmp_path: Path) -> None:
    here = tmp_path / "run"
    _write_files(here, (("../escaped", b"x"), ("other/x.jpg", b"x"), ("film/../y", b"x"),
                        ("film/a/b.jpg", b"x"), (".hidden", b"x"), ("film/ok.jpg", b"ok")))
    assert not (tmp_path / "escaped").exists()
    assert sorted(p.relative_to(here).as_posix() for p in here.rglob("*")) == \
        ["film", "film/ok.jpg"]


def test_a_run_with_no_film_has_no_player(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "baseline-r0"
    run.mkdir(parents=True)
    (run / "end.png").write_bytes(b"png")
    assert run_film(run, "baseline-r0", "runs/baseline-r0/film") is None
    assert films_for(tmp_path, {"runs": [{"run_id": "baseline-r0"},
                                         {"run_id": "gone-r0"}]}) == {}
