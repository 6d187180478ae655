"""Each run's player for the suite's report (``gauntlet/report``, which reads no files),
from the film in the run's folder.

A fault variant's run is filmed by its guard (the frames are listed in the guard's
record, beside its requests and faults); any other run by the harness's own camera (the
frames listed in ``film.jsonl``). Either way the frames stay in ``runs/<run id>/film/``
and the report links them, so a report of many filmed runs stays small. A run with no
film has no player.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ajantik_cdp.gauntlet.evidence.run_files import FILM, FILM_RECORD, RECORD
from ajantik_cdp.player.view import REPORT_FRAMES, FilmView, film_view
from ajantik_cdp.record.reader import RecordReadError, load_record

BY_THE_HARNESS = "What the harness filmed (no guard in front of this run)"


def run_film(folder: Path, run_id: str, linked: str) -> FilmView | None:
    """The player of the run whose files are in ``folder``, its frames linked as
    ``linked`` (the film folder's address from the page); None when it was not filmed."""
    for name, heading in ((RECORD, None), (FILM_RECORD, BY_THE_HARNESS)):
        path = folder / name
        if not path.is_file():
            continue
        try:
            view = film_view(load_record(path), run_id, folder / FILM, limit=REPORT_FRAMES,
                             linked=linked)
        except RecordReadError:
            continue  # its facts already say the record could not be read
        if view is not None:
            return view if heading is None else replace(view, heading=heading)
    return None


def films_for(out_dir: Path, data: Mapping[str, Any],
              page_dir: Path | None = None) -> dict[str, FilmView]:
    """The players of the runs a results file names, read from ``out_dir/runs/<id>/``,
    for a page in ``page_dir`` (the report's usual place, ``out_dir``, unless given)."""
    films: dict[str, FilmView] = {}
    for run in data["runs"]:
        folder = out_dir / "runs" / run["run_id"]
        linked = Path(os.path.relpath(folder / FILM, page_dir or out_dir)).as_posix()
        view = run_film(folder, run["run_id"], quote(linked))
        if view is not None:
            films[run["run_id"]] = view
    return films
