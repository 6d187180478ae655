"""The film's decisions: which screencast frames are kept, when a still is taken, and
which frame belongs to which record line (which client commands go on the timeline, and
how they read: ``client_actions.py``).

Pure: the guard's camera (``proxy/film.py``) tells this module what arrived and carries
out what it answers. Times are seconds on one clock chosen by the caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.rules import is_write, redact_rule
from ajantik_cdp.core.record.record_schema import (
    ActionLine,
    BlockLine,
    FrameLine,
    RecordLine,
    RequestLine,
)

# Measured by bench/bench_film.py on the project's 2-core machine (docs/record.md): 2
# frames a second adds 2% to a page load through the guard, 4 add 14%, 8 add 19%.
DEFAULT_FPS = 2.0
MAX_FPS = 30.0
# A frame rate of 0 films stills only: no screencast, and a picture of the page taken
# (Page.captureScreenshot) right after each write, block and fault line.
STILLS_ONLY = 0.0
# Whether `ajantik test run` and `ajantik demo` film every run unless given --no-film, and
# at which rate. On, with stills only: the issue allows filming to move the demo's wall
# time by at most 10%. The screencast at 2 fps moved it by 8-19% in every measurement
# of earlier days (bench/demo_bench.py --film 2; docs/record.md, "What filming costs")
# and by 0-2% in two on 2026-12-02 (Chromium 150), so it is not the default. Stills only
# moved it by nothing measurable (0.93x of the wall time in both runs of 2026-12-02, CPU
# 0.94x and 1.00x): what costs is Chrome capturing every repaint while a screencast is
# on, and with none on it captures only when asked.
FILM_RUNS_BY_DEFAULT = True
RUNS_DEFAULT_FPS = STILLS_ONLY
# Whether `ajantik gauntlet run` and `ajantik gauntlet demo` film every run unless given
# --no-film. On: the issue allows filming to move a suite's runs per minute by at most
# 10%, and with the acks held to the kept rate it moved them by -4.1% and -2.1% (the
# demo suite, 4 workers, median of 3 rounds each, load average 9-11, 2026-12-02:
# bench/bench_gauntlet.py --workers 4 --rounds 3 --film 2; docs/gauntlet.md, "Film").
# Before the acks were held it was -13.8% and -10.2%. Filming costs a suite as much CPU
# as the demo (+12-14%), but a suite's runs spend much of their time waiting (slow
# answers, setup, the shop), so little of it shows in runs per minute; the demo keeps
# both cores busy, so all of it shows in its wall time.
FILM_SUITE_RUNS_BY_DEFAULT = True


class FilmPolicyError(ValueError):
    pass


@dataclass(frozen=True)
class FilmPolicy:
    """How much the guard films. Frames past a limit are not kept and the end line's
    counts show it; stills after record lines have their own limit so that the picture
    at each write survives a long, busy screencast."""

    # Most screencast frames kept per second, per page; STILLS_ONLY (0): no screencast.
    fps: float = DEFAULT_FPS
    max_frames: int = 2000  # screencast frames kept per run
    max_stills: int = 2000  # stills after record lines kept per run
    max_bytes: int = 200 * 1024 * 1024  # bytes of JPEG kept per run, frames and stills
    quality: int = 60  # JPEG quality, 0-100
    max_width: int = 1280
    max_height: int = 800
    still_timeout: float = 2.0  # seconds a still may take before it is given up
    # Stills only: seconds a capture may take before the page's last picture stands in
    # for it (a capture asked for as the page navigates or closes may never be answered).
    still_deadline: float = 1.0

    def __post_init__(self) -> None:
        if not 0 <= self.fps <= MAX_FPS:
            raise FilmPolicyError(f"film frame rate must be 0 (stills only) to {MAX_FPS:g} "
                                  f"a second, not {self.fps:g}")
        if not 0 <= self.quality <= 100:
            raise FilmPolicyError(f"JPEG quality must be 0-100, not {self.quality}")
        if min(self.max_frames, self.max_stills, self.max_bytes) < 0:
            raise FilmPolicyError("film limits cannot be negative")

    @property
    def screencast(self) -> bool:
        return self.fps > 0

    @property
    def interval(self) -> float:
        return 1.0 / self.fps if self.fps > 0 else float("inf")

    def as_data(self) -> dict[str, Any]:
        return {"fps": self.fps, "max_frames": self.max_frames, "max_stills": self.max_stills,
                "max_bytes": self.max_bytes, "quality": self.quality,
                "max_width": self.max_width, "max_height": self.max_height}


class Choice(Enum):
    KEEP = "keep"  # write it now
    HOLD = "hold"  # too soon after the last kept frame: keep it as the page's pending
    # frame, written when the interval is over unless a newer frame replaces it
    SAME = "same"  # identical to the last kept frame of this page
    REDACTED = "redacted"  # the page (or a frame in it) is at a ``redact`` URL
    LIMIT = "limit"  # the run's frame or byte budget is spent


# Chrome's paint times and the guard's clock are the same machine's wall clock, but a
# navigation's events reach the guard late (up to seconds on a loaded machine). A page is
# taken to show a redacted document from a little before the guard heard that it started
# to go there, until a little after it heard of the next commit elsewhere; a redirect into
# a redacted URL is heard of only at its commit, so that window opens further back.
HEARD_EARLY = 0.25
HEARD_AT_COMMIT = 1.5
LEFT_MARGIN = 0.25


@dataclass
class _Page:
    last_kept: float | None = None
    last_digest: str | None = None
    pending_digest: str | None = None  # the HOLD frame, if any


@dataclass
class FilmBook:
    """Per run: the frame budget, each page's last kept frame, and which page a frame or
    worker target belongs to (a write from an iframe is pictured by its page)."""

    policy: FilmPolicy
    config: GuardConfig
    frames: int = 0
    stills: int = 0
    bytes: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    _pages: dict[str, _Page] = field(default_factory=dict)
    _parent: dict[str, str] = field(default_factory=dict)
    # page -> [start, end] wall-clock spans when it may show a redacted document; an end
    # of None means it still may.
    _hidden: dict[str, list[list[float | None]]] = field(default_factory=dict)

    # -- targets ------------------------------------------------------------------------

    def attached(self, target_id: str, parent_target_id: str | None) -> None:
        if parent_target_id is not None and parent_target_id != target_id:
            self._parent[target_id] = parent_target_id

    def page_of(self, target_id: str) -> str:
        seen = {target_id}
        while target_id in self._parent:
            target_id = self._parent[target_id]
            if target_id in seen:  # a loop can only come from a confused event stream
                break
            seen.add(target_id)
        return target_id

    def children(self, page_id: str) -> list[str]:
        return [t for t in self._parent if t != page_id and self.page_of(t) == page_id]

    def gone(self, target_id: str) -> None:
        self._parent.pop(target_id, None)
        self._pages.pop(target_id, None)

    # -- redaction ----------------------------------------------------------------------

    def shows_redacted(self, urls: Iterable[str]) -> bool:
        """True when any document on screen is at a URL matching a ``redact`` entry: the
        login page's pixels are as secret as its bodies."""
        return any(redact_rule(self.config, url) is not None for url in urls if url)

    def navigation(self, page_id: str, heard: float, urls_now: Sequence[str],
                   starting: str | None = None) -> None:
        """The guard heard at ``heard`` (wall clock) that a frame of the page started to
        go to ``starting``, or (``starting`` None) that one committed a document, after
        which ``urls_now`` are the page's documents."""
        spans = self._hidden.setdefault(page_id, [])
        open_span = spans[-1] if spans and spans[-1][1] is None else None
        if starting is not None and self.shows_redacted((starting,)):
            if open_span is None:
                spans.append([heard - HEARD_EARLY, None])
        elif self.shows_redacted(urls_now):
            if open_span is None:
                spans.append([heard - HEARD_AT_COMMIT, None])
        elif open_span is not None and starting is None:
            open_span[1] = heard + LEFT_MARGIN

    def hidden(self, page_id: str, painted: float) -> bool:
        """Whether a picture painted at ``painted`` may show a redacted document."""
        for start, end in self._hidden.get(page_id, ()):
            assert start is not None
            if painted >= start and (end is None or painted <= end):
                return True
        return False

    # -- screencast frames --------------------------------------------------------------

    def offer(self, page_id: str, now: float, digest: str, size: int,
              urls: Sequence[str]) -> Choice:
        page = self._pages.setdefault(page_id, _Page())
        if self.shows_redacted(urls):
            page.pending_digest = None  # nothing of this page leaves while it is redacted
            return self._drop(Choice.REDACTED)
        if digest == page.last_digest:
            page.pending_digest = None
            return self._drop(Choice.SAME)
        # A hair's tolerance: a frame asked for exactly one interval on (an ack held by
        # ack_delay) must not be held for a rounding error.
        if page.last_kept is not None and now - page.last_kept < self.policy.interval - 1e-9:
            page.pending_digest = digest
            return Choice.HOLD
        return self._take(page, now, digest, size)

    def due(self, page_id: str) -> float | None:
        """When the page's pending frame may be written, or None if it has none."""
        page = self._pages.get(page_id)
        if page is None or page.pending_digest is None or page.last_kept is None:
            return None
        return page.last_kept + self.policy.interval

    def ack_delay(self, page_id: str, now: float) -> float:
        """How long to hold the acknowledgement of the frame just offered. Chrome sends a
        page's next frame only once the last is acknowledged, so an ack held until the
        page's next keep is due spares Chrome encoding, and the guard receiving and
        parsing, frames the rate would not keep; the frame that comes after it shows the
        page as it is then, so the last change of a burst is still kept. A still that is
        wanted does not wait for this (the camera acknowledges at once)."""
        page = self._pages.get(page_id)
        if page is None or page.last_kept is None:
            return 0.0
        return max(0.0, page.last_kept + self.policy.interval - now)

    def flush(self, page_id: str, now: float, digest: str, size: int,
              urls: Sequence[str]) -> Choice:
        """The pending frame's turn has come: keep it unless it was replaced or the page
        has since moved to a redacted URL."""
        page = self._pages.get(page_id)
        if page is None or page.pending_digest != digest:
            return Choice.SAME
        page.pending_digest = None
        if self.shows_redacted(urls):
            return self._drop(Choice.REDACTED)
        return self._take(page, now, digest, size)

    def _take(self, page: _Page, now: float, digest: str, size: int) -> Choice:
        if self.frames >= self.policy.max_frames or self.bytes + size > self.policy.max_bytes:
            return self._drop(Choice.LIMIT)
        page.last_kept = now
        page.last_digest = digest
        self.frames += 1
        self.bytes += size
        return Choice.KEEP

    def _drop(self, choice: Choice) -> Choice:
        self.dropped[choice.value] = self.dropped.get(choice.value, 0) + 1
        return choice

    # -- stills after record lines ------------------------------------------------------

    def still_for(self, line: RecordLine, pages: Sequence[str]) -> tuple[str, ...]:
        """The pages to photograph right after ``line`` was written: the page of the
        target a write, block or fault came from; every filmed page if that target is not
        known to be on one (a request from the browser-wide net)."""
        if not wants_still(line):
            return ()
        if self.stills >= self.policy.max_stills:
            self._drop(Choice.LIMIT)
            return ()
        target = getattr(line, "target_id", None)
        if target is not None:
            page = self.page_of(target)
            if page in pages:
                return (page,)
        return tuple(pages)

    def still_taken(self, size: int) -> bool:
        """Account for a still; False when the byte budget says it must not be kept."""
        if self.bytes + size > self.policy.max_bytes:
            self._drop(Choice.LIMIT)
            return False
        self.stills += 1
        self.bytes += size
        return True


def wants_still(line: RecordLine) -> bool:
    """Writes, blocks and faults get a still: the moment a verdict is about."""
    if isinstance(line, BlockLine):
        return True
    if isinstance(line, RequestLine):
        return is_write(line.method) or line.fault is not None
    return False


def taken_before(frame: FrameLine, line_time: str) -> bool:
    """A still that stands in for a capture that never came (the page navigated or
    closed): the page's last picture, whose time is before its line's. Times compare as
    the record's ISO strings."""
    return frame.after_seq is not None and frame.time < line_time


def stills_lacking(lines: Sequence[RecordLine]) -> tuple[int, int]:
    """(lines that wanted a still and have none, lines that wanted one), for the player
    to say what the film lacks."""
    stilled = {f.after_seq for f in lines if isinstance(f, FrameLine)
               and f.after_seq is not None}
    wanted = [ln for ln in lines if wants_still(ln)]
    return sum(1 for ln in wanted if getattr(ln, "seq", None) not in stilled), len(wanted)


# -- frames for record lines ------------------------------------------------------------------


def frame_for_lines(lines: Sequence[RecordLine]) -> dict[int, FrameLine]:
    """Each request, block and action line's frame, keyed by its index in ``lines``.

    A still taken for a line (``after_seq``) is its frame. Otherwise the line gets the
    first frame of its page written after it, and failing that the last one before it;
    frames of other pages are used only when its page has none. Times compare as the
    record's ISO strings (one format, one zone), so no clock is parsed."""
    frames = sorted((ln for ln in lines if isinstance(ln, FrameLine)), key=lambda f: f.time)
    by_seq = {f.after_seq: f for f in frames if f.after_seq is not None}
    out: dict[int, FrameLine] = {}
    for index, line in enumerate(lines):
        if not isinstance(line, RequestLine | BlockLine | ActionLine):
            continue
        seq = getattr(line, "seq", None)
        if seq is not None and seq in by_seq:
            out[index] = by_seq[seq]
            continue
        # A line from an iframe or worker finds no frame of its own target: it falls back
        # to every page's frames, which is the right page whenever one page is filmed.
        mine = [f for f in frames if f.target_id == line.target_id] or frames
        if not mine:
            continue
        after = [f for f in mine if f.time >= line.time]
        out[index] = after[0] if after else mine[-1]
    return out


def choose_frames(frames: Sequence[FrameLine], limit: int) -> list[FrameLine]:
    """The frames a player embeds, at most ``limit`` files, in time order: every still
    first (the moments a verdict is about), then screencast frames spread evenly over
    the run. Frames sharing a file (one still for several lines) count once."""
    unique: dict[str, FrameLine] = {}
    for frame in frames:
        unique.setdefault(frame.file, frame)
    stills = [f for f in unique.values() if f.cause == "still"]
    rest = [f for f in unique.values() if f.cause != "still"]
    if len(stills) >= limit:
        step = len(stills) / limit if limit else 0
        chosen = [stills[int(i * step)] for i in range(limit)]
    else:
        room = limit - len(stills)
        if len(rest) > room:
            step = len(rest) / room if room else 0
            rest = [rest[int(i * step)] for i in range(room)]
        chosen = stills + rest
    return sorted(chosen, key=lambda f: (f.time, f.file))
