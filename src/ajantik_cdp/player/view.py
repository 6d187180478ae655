"""What a player shows for one filmed run: the frames (embedded, so the page needs no
server and no network; or linked, for a page inside the output folder that holds them)
and one timeline of the client's actions and the record lines,
each pointing at its frame.

Built from a loaded record and its film folder; rendered by the ``player`` macro of
``player/templates/player.html.j2`` inside any page of the one Jinja environment.
"""

from __future__ import annotations

import base64
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote

import orjson

from ajantik_cdp.core.guard.client_actions import merge_typing, split_fold
from ajantik_cdp.core.guard.film import (
    choose_frames,
    frame_for_lines,
    stills_lacking,
    taken_before,
)
from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.record.record_schema import ActionLine, BlockLine, FrameLine, RequestLine
from ajantik_cdp.record.reader import LoadedRecord

FRAMES_SHOWN = 120  # frames embedded per run: a page with many runs stays openable
# Frames a run's player links in a report of many runs (a test run's, a suite's; every
# still comes first): such a report stays quick to open.
REPORT_FRAMES = 60
DETAIL_CHARS = 1500  # characters of a record line shown when it is expanded


@dataclass(frozen=True)
class Frame:
    src: str  # a data: URL, or the file's address relative to the page
    clock: str
    caption: str


@dataclass(frozen=True)
class Entry:
    clock: str
    kind: str  # "action", "request", "write", "fault" or "block"
    text: str  # one line
    frame: int | None  # index into the view's frames
    number: int | None = None  # the record line's number in the file
    detail: str = ""  # the whole line, shown when expanded
    note: str = ""  # an action's: the client's own calls folded into it


@dataclass(frozen=True)
class FilmView:
    slug: str
    frames: tuple[Frame, ...]
    entries: tuple[Entry, ...]
    notes: tuple[str, ...] = ()
    heading: str = "What the guard filmed"


def clock(time: str) -> str:
    _, sep, rest = time.partition("T")
    return rest.rstrip("Z") if sep else time


def line_text(line: RequestLine | BlockLine | ActionLine) -> str:
    """A record line collapsed to one line: method, URL, statuses, fault."""
    if isinstance(line, ActionLine):
        return split_fold(line.summary)[0]
    if isinstance(line, BlockLine):
        what = f"{line.method} {line.url}" if line.url else f"press on {line.label!r}"
        return f"BLOCKED {what} ({line.reason})"
    system = line.system
    seen = ("not sent" if system is None else
            str(system.status) if system.status is not None else f"error {system.error}")
    told = (str(line.client_status) if line.client_status is not None
            else f"error {line.client_error}")
    fault = f" · fault {line.fault}" if line.fault else ""
    return f"{line.method} {line.url} · system {seen} · client {told}{fault}"


def _kind(line: RequestLine | BlockLine | ActionLine) -> str:
    if isinstance(line, ActionLine):
        return "action"
    if isinstance(line, BlockLine):
        return "block"
    if line.fault:
        return "fault"
    return "request" if line.method.upper() in ("GET", "HEAD", "OPTIONS") else "write"


def _detail(line: RequestLine | BlockLine) -> str:
    text = orjson.dumps(asdict(line), option=orjson.OPT_INDENT_2).decode()
    if len(text) > DETAIL_CHARS:
        return text[:DETAIL_CHARS] + f"… ({len(text) - DETAIL_CHARS} more characters in the record)"
    return text


def film_view(record: LoadedRecord, slug: str, folder: Path | None = None,
              limit: int = FRAMES_SHOWN, linked: str | None = None) -> FilmView | None:
    """The player's data, or None when the record holds no film. Frames are embedded,
    unless ``linked`` is the film folder's address relative to the page (a report in the
    output folder the frames are in: the page stays small)."""
    all_frames = record.frames
    if not all_frames and not record.actions:
        return None
    notes: list[str] = []
    where = record.film_dir(folder)
    chosen = choose_frames(all_frames, limit)
    frames: list[Frame] = []
    index_of: dict[str, int] = {}
    missing = 0
    line_times = {ln.seq: ln.time for ln in record.lines
                  if isinstance(ln, RequestLine | BlockLine)}
    for frame in chosen:
        src = _frame_src(where, frame.file, linked)
        if src is None:
            missing += 1
            continue
        index_of[frame.file] = len(frames)
        frames.append(Frame(
            src=src,
            clock=clock(frame.time),
            caption=f"{clock(frame.time)} · {_still_of(frame, line_times)}{frame.url}",
        ))
    lacking, wanted = stills_lacking(record.lines)
    if all_frames and lacking:
        of = counted(wanted, "write, block and fault line")
        notes.append(f"{lacking} of {of} {'has' if lacking == 1 else 'have'} no still (the "
                     "page closed or went away before any picture of it, it was at a redact "
                     "URL, or the film's limit was reached)")
    if missing:
        notes.append(f"{counted(missing, 'frame file')} not found in {where}: the film folder was "
                     "moved or deleted (give it with --film)")
    if len({f.file for f in all_frames}) > len(chosen):
        notes.append(f"{len(chosen)} of {len({f.file for f in all_frames})} frames are "
                     "shown: every still, and screencast frames spread over the run")
    lines = record.lines
    paired = frame_for_lines(lines)
    kept = [(f, i) for f, i in ((c, index_of.get(c.file)) for c in chosen) if i is not None]
    entries: list[tuple[str, Entry]] = []
    for index, (number, line) in enumerate(record.numbered):
        if not isinstance(line, RequestLine | BlockLine | ActionLine):
            continue
        entries.append((line.time, Entry(
            clock=clock(line.time), kind=_kind(line), text=line_text(line),
            frame=_nearest(paired.get(index), kept), number=number,
            detail="" if isinstance(line, ActionLine) else _detail(line),
            note=split_fold(line.summary)[1] if isinstance(line, ActionLine) else "",
        )))
    entries.sort(key=lambda pair: pair[0])  # stable: record order within one millisecond
    shown = [e for _, e in entries]
    keep = merge_typing([e.text if e.kind == "action" else None for e in shown])
    return FilmView(slug, tuple(frames), tuple(e for e, k in zip(shown, keep, strict=True)
                                               if k), tuple(notes))


def _still_of(frame: FrameLine, line_times: dict[int, str]) -> str:
    if not frame.after_seq:
        return ""
    line_time = line_times.get(frame.after_seq)
    if line_time is not None and taken_before(frame, line_time):
        return f"still for line #{frame.after_seq}, taken before it (no capture came) · "
    return f"still after line #{frame.after_seq} · "


def _frame_src(where: Path | None, file: str, linked: str | None) -> str | None:
    if where is None:
        return None
    if linked is not None:
        return f"{linked}/{quote(file)}" if (where / file).is_file() else None
    try:
        data = (where / file).read_bytes()
    except OSError:
        return None
    return "data:image/jpeg;base64," + base64.b64encode(data).decode()


def _nearest(frame: FrameLine | None, kept: list[tuple[FrameLine, int]]) -> int | None:
    """The embedded frame for a paired frame: itself, or the embedded one closest after
    it in time (the player may embed fewer frames than the film holds)."""
    if frame is None or not kept:
        return None
    for shown, index in kept:
        if shown.file == frame.file:
            return index
    after = [index for shown, index in kept if shown.time >= frame.time]
    return after[0] if after else kept[-1][1]
