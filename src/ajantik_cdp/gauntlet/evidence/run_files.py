"""The files a run leaves in its folder (``runs/<run id>/``), named once for the harness
that writes them and the report that reads them."""

from __future__ import annotations

RECORD = "record.jsonl"  # the guard's record (fault variants)
FILM = "film"  # the run's frames, listed in the guard's record or in FILM_RECORD
FILM_RECORD = "film.jsonl"  # the frame lines of a run filmed with no guard in front
