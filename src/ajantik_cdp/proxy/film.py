"""The guard's camera: screencast frames and stills, taken on the guard's own session.

Because the pictures come from the guard's session on each page, they are there whatever
drives the page (Playwright, Puppeteer, a raw DevTools script, page scripts alone). What
to keep, when to take a still and when a frame must not be kept is decided by
``core/guard/film.py``; this module asks Chrome, writes the JPEGs into the film's folder and the
``frame`` lines into the record.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import dataclasses
import hashlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ajantik_cdp.core.guard.film import Choice, FilmBook, FilmPolicy
from ajantik_cdp.core.guard.targets import TargetBook
from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.record.record_schema import FrameLine, RecordLine
from ajantik_cdp.core.record.redaction import Redactor
from ajantik_cdp.proxy.cdp_connection import CdpConnection, CdpError, ConnectionLost
from ajantik_cdp.record.writer import RecordWriter

log = logging.getLogger("ajantik.cdp")

STILL_WAIT = 0.3  # seconds a still waits for a new frame before the last one stands
# Stills only: captures of one page under way at once. A capture asked for as the page
# navigates or closes may never be answered (issue 28: 3 of 3 on bare Chromium); a second
# one lets the next line's still be taken meanwhile, instead of queueing behind it.
SHOTS_AT_ONCE = 2
# Seconds a kept picture waits before it is written: news that the page went to a redacted
# URL can arrive after the first frames of that page (see core/guard/film.py).
SETTLE = 1.5


@dataclass(frozen=True)
class FilmSettings:
    folder: Path
    policy: FilmPolicy = field(default_factory=FilmPolicy)

    def start_data(self, record: Path) -> dict[str, Any]:
        """The record's start-line ``film`` field: the folder as readers find it
        (relative to the record's folder when it is inside it, so the two can be moved
        together, else absolute) and the policy."""
        try:
            folder = str(self.folder.resolve().relative_to(record.resolve().parent))
        except ValueError:
            folder = str(self.folder.resolve())
        return {"dir": folder, **self.policy.as_data()}


def prepare_folder(folder: Path) -> Path | None:
    """Create the film's folder (mode 0700: frames can show what a person saw). An earlier
    non-empty folder is moved aside, as an earlier record is. Returns where it went."""
    moved = None
    if folder.exists() and any(folder.iterdir()):
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        moved = folder.with_name(f"{folder.name}.{stamp}")
        folder.rename(moved)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return moved


@dataclass
class _Picture:
    jpeg: str  # base64, as Chrome sent it
    painted: float  # wall clock, seconds
    url: str  # the page's URL when the picture arrived
    before: bool = False  # stands for a line it was taken before (no capture came after)


@dataclass
class _Pending:
    picture: _Picture
    digest: str
    handle: asyncio.TimerHandle | None = None


class Camera:
    def __init__(self, conn: CdpConnection, targets: TargetBook, redactor: Redactor,
                 writer: RecordWriter, settings: FilmSettings, config: GuardConfig) -> None:
        self.conn = conn
        self.targets = targets
        self.redactor = redactor
        self.writer = writer
        self.folder = settings.folder
        self.policy = settings.policy
        self.book = FilmBook(settings.policy, config)
        self.filmed: dict[str, str] = {}  # page target id -> the guard's session on it
        self._pending: dict[str, _Pending] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._files = 0
        self._closing = False
        self._last: dict[str, _Picture] = {}  # each page's latest frame, kept or not
        # Lines waiting for a page's still: (seq, the line's time).
        self._wanted: dict[str, list[tuple[int | None, str]]] = {}
        # Pictures kept but not yet written: they wait SETTLE seconds for late news of a
        # navigation to a redacted URL.
        self._settling: dict[int, tuple[asyncio.TimerHandle, Callable[[], None]]] = {}
        self._settled = 0
        self._still_timers: dict[str, asyncio.TimerHandle] = {}
        self._docs: dict[str, dict[str, str]] = {}  # page -> frame id -> document URL
        # Acks held back to the kept rate: page -> (timer, its session, the frame's ack id).
        self._acks: dict[str, tuple[asyncio.TimerHandle, str, Any]] = {}
        # Stills only: lines waiting for a page's next capture, and how many captures of
        # each page are under way.
        self._shots: dict[str, list[tuple[int | None, str]]] = {}
        self._shooting: dict[str, int] = {}

    # -- wiring -------------------------------------------------------------------------

    def attach(self) -> None:
        """Listen on the guard's connection (after the guard's own handler) and on the
        record, and start filming every page the guard already holds."""
        inner = self.conn.on_event

        def both(msg: dict[str, Any]) -> None:
            inner(msg)
            self.on_event(msg)

        self.conn.on_event = both
        self.writer.on_written = self.on_line
        for target in self.targets:
            if target.target_type == "page" and target.session_id is not None:
                self._film(target.target_id, target.session_id)

    def _film(self, target_id: str, session_id: str) -> None:
        self.filmed[target_id] = session_id
        self._docs[target_id] = {}
        # Page events say which document each frame shows, in order with the screencast
        # frames on this session: a target's URL (targetInfoChanged) arrives too late,
        # and the first frames of a login page were kept with the previous page's URL.
        self.conn.post("Page.enable", None, session_id)
        if not self.policy.screencast:
            return  # stills only: each one is asked for (see on_line)
        # Chrome sends a frame only when the page changed; ``everyNthFrame`` is left at 1
        # and the rate is held by the book, which keeps the last change of a burst too.
        self.conn.post("Page.startScreencast", {
            "format": "jpeg", "quality": self.policy.quality,
            "maxWidth": self.policy.max_width, "maxHeight": self.policy.max_height,
        }, session_id)

    async def close(self) -> None:
        """Let stills under way finish (the picture at the last write matters most), then
        write each page's held frame."""
        self._closing = True
        for page_id in list(self._acks):
            self._cancel_ack(page_id)
        for page_id in list(self._still_timers):
            self._still_timers[page_id].cancel()
            self._no_change(page_id)
        pending = [t for t in self._tasks if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=self.policy.still_timeout)
        for page_id in list(self._pending):
            self._flush(page_id)
        for page_id in list(self._shots):
            self._stand_in(page_id, self._shots.pop(page_id))
        for handle, due in list(self._settling.values()):
            handle.cancel()
            due()  # write what was waiting: the guard is stopping
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        # A cancelled capture still gives its lines the page's last picture (_shot), and
        # must do so before the record is closed.
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- events -------------------------------------------------------------------------

    def on_event(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        params = msg.get("params") or {}
        if method == "Page.screencastFrame":
            self._on_frame(msg.get("sessionId"), params)
        elif method in ("Page.frameNavigated", "Page.navigatedWithinDocument",
                        "Page.frameDetached", "Page.frameStartedNavigating"):
            self._on_document(msg.get("sessionId"), method, params)
        elif method == "Target.attachedToTarget":
            info = params.get("targetInfo") or {}
            target_id, session_id = info.get("targetId"), params.get("sessionId")
            if not isinstance(target_id, str) or not isinstance(session_id, str):
                return
            if info.get("type") == "page":
                # A popup attaches through its opener's session, yet is a page of its own.
                self._film(target_id, session_id)
                return
            parent = self.targets.by_session(msg.get("sessionId") or "")
            self.book.attached(target_id, parent.target_id if parent else None)
        elif method == "Target.detachedFromTarget":
            gone = [t for t, s in self.filmed.items() if s == params.get("sessionId")]
            for target_id in gone:
                self._cancel_ack(target_id)
                self._flush(target_id)
                if target_id in self._wanted:
                    self._no_change(target_id)
                del self.filmed[target_id]
                if target_id in self._shots:
                    # The page closed: no capture will come, its last picture stands.
                    self._stand_in(target_id, self._shots.pop(target_id))
                if not self._shooting.get(target_id):
                    self._last.pop(target_id, None)  # else the captures under way use it
                self._docs.pop(target_id, None)
                self.book.gone(target_id)

    def _on_document(self, session_id: str | None, method: str,
                     params: dict[str, Any]) -> None:
        target = self.targets.by_session(session_id or "")
        docs = self._docs.get(target.target_id) if target is not None else None
        if target is None or docs is None:
            return
        if method == "Page.frameStartedNavigating":
            if isinstance(params.get("url"), str):
                self.book.navigation(target.target_id, time.time(), self._urls(target.target_id),
                                     starting=params["url"])
            return
        if method == "Page.frameNavigated":
            frame = params.get("frame") or {}
            if isinstance(frame.get("id"), str) and isinstance(frame.get("url"), str):
                docs[frame["id"]] = frame["url"]
        elif method == "Page.navigatedWithinDocument":
            if isinstance(params.get("frameId"), str) and isinstance(params.get("url"), str):
                docs[params["frameId"]] = params["url"]
        elif isinstance(params.get("frameId"), str):
            docs.pop(params["frameId"], None)
        self.book.navigation(target.target_id, time.time(), self._urls(target.target_id))

    def _urls(self, page_id: str) -> list[str]:
        """Every document URL the guard knows on this page: each frame's from the page's
        own events, and the target URLs of the page and its out-of-process frames."""
        out = list(self._docs.get(page_id, {}).values())
        for target_id in (page_id, *self.book.children(page_id)):
            target = self.targets.get(target_id)
            if target is not None:
                out.append(target.url)
        return out

    def _on_frame(self, session_id: str | None, params: dict[str, Any]) -> None:
        ack = params.get("sessionId")
        target = self.targets.by_session(session_id or "")
        data = params.get("data")
        if target is None or not isinstance(data, str) or self._closing:
            self._ack(None, session_id, ack, 0.0)
            return
        page_id = target.target_id
        picture = _Picture(data, _painted(params.get("metadata")), target.url)
        self._last[page_id] = picture
        if page_id in self._wanted:
            self._take_still(page_id, picture)
        digest = hashlib.blake2b(data.encode(), digest_size=16).hexdigest()
        choice = self.book.offer(page_id, time.monotonic(), digest, _size(data),
                                 self._urls(page_id))
        if choice is Choice.KEEP:
            self._drop_pending(page_id)
            self._settle(page_id, picture, "screencast", [(None, "")])
        elif choice is Choice.HOLD:
            self._hold(page_id, _Pending(picture, digest))
        else:
            self._drop_pending(page_id)
        # A still this frame served was taken above; a line that wants the next one acks
        # at once (on_line), so the ack can wait for the rate here.
        self._ack(page_id, session_id, ack, self.book.ack_delay(page_id, time.monotonic()))

    def _ack(self, page_id: str | None, session_id: str | None, ack: Any,
             delay: float) -> None:
        """Acknowledge a frame, now or after ``delay`` (core/guard/film.py, ack_delay):
        unacknowledged, Chrome sends no more frames of that page."""
        if session_id is None or ack is None:
            return
        if page_id is None or delay <= 0:
            self.conn.post("Page.screencastFrameAck", {"sessionId": ack}, session_id)
            return
        self._cancel_ack(page_id)
        handle = asyncio.get_running_loop().call_later(delay, self._ack_now, page_id)
        self._acks[page_id] = (handle, session_id, ack)

    def _ack_now(self, page_id: str) -> None:
        held = self._acks.pop(page_id, None)
        if held is not None:
            held[0].cancel()
            self.conn.post("Page.screencastFrameAck", {"sessionId": held[2]}, held[1])

    def _cancel_ack(self, page_id: str) -> None:
        held = self._acks.pop(page_id, None)
        if held is not None:
            held[0].cancel()

    def _hold(self, page_id: str, pending: _Pending) -> None:
        old = self._pending.get(page_id)
        due = self.book.due(page_id)
        if old is not None and old.handle is not None:
            pending.handle = old.handle  # one timer per page: it writes the newest
        elif due is not None:
            delay = max(0.0, due - time.monotonic())
            pending.handle = asyncio.get_running_loop().call_later(delay, self._flush,
                                                                   page_id)
        self._pending[page_id] = pending

    def _drop_pending(self, page_id: str) -> None:
        old = self._pending.pop(page_id, None)
        if old is not None and old.handle is not None:
            old.handle.cancel()

    def _flush(self, page_id: str) -> None:
        pending = self._pending.pop(page_id, None)
        if pending is None:
            return
        if pending.handle is not None:
            pending.handle.cancel()
        choice = self.book.flush(page_id, time.monotonic(), pending.digest,
                                 _size(pending.picture.jpeg), self._urls(page_id))
        if choice is Choice.KEEP:
            self._settle(page_id, pending.picture, "screencast", [(None, "")])

    # -- stills after record lines --------------------------------------------------------
    #
    # A still is the page's next screencast frame after the line, kept whatever the rate:
    # Chrome sends one as soon as the page changes. When none comes within STILL_WAIT the
    # page has not changed since its last frame, which is then the picture at the line.
    # (Page.captureScreenshot, tried first, took over 2 s on a page repainting every 50 ms
    # with the screencast running, on this project's machine.) Only a page that has sent
    # no frame at all is photographed with captureScreenshot.

    def on_line(self, line: RecordLine) -> None:
        if self._closing:
            return
        seq = getattr(line, "seq", None)
        loop = asyncio.get_running_loop()
        for page_id in self.book.still_for(line, tuple(self.filmed)):
            if not self.policy.screencast:
                self._shoot(page_id, (seq, line.time))
                continue
            self._wanted.setdefault(page_id, []).append((seq, line.time))
            self._ack_now(page_id)  # the page's next frame is the still: let it come
            if page_id not in self._still_timers:
                self._still_timers[page_id] = loop.call_later(STILL_WAIT, self._no_change,
                                                              page_id)

    def _take_still(self, page_id: str, picture: _Picture) -> None:
        """``picture`` is the still of every line waiting on this page."""
        waiting = self._wanted.pop(page_id, [])
        timer = self._still_timers.pop(page_id, None)
        if timer is not None:
            timer.cancel()
        if waiting:
            self._keep_still(page_id, picture, waiting)

    def _keep_still(self, page_id: str, picture: _Picture,
                    lines: list[tuple[int | None, str]]) -> None:
        """Keep ``picture`` as the still of ``lines`` unless the page shows a redacted
        document or the byte budget is spent."""
        if not self.book.shows_redacted(self._urls(page_id)) \
                and self.book.still_taken(_size(picture.jpeg)):
            self._settle(page_id, picture, "still", lines)

    def _no_change(self, page_id: str) -> None:
        timer = self._still_timers.pop(page_id, None)
        if timer is not None:
            timer.cancel()
        last = self._last.get(page_id)
        if last is not None:
            self._take_still(page_id, last)
            return
        if self._closing:
            self._wanted.pop(page_id, None)
            return
        task = asyncio.get_running_loop().create_task(self._screenshot(page_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _screenshot(self, page_id: str) -> None:
        picture = await self._photograph(page_id, self.policy.still_timeout)
        if picture is None:
            self._wanted.pop(page_id, None)
        else:
            self._take_still(page_id, picture)

    async def _photograph(self, page_id: str, timeout: float) -> _Picture | None:
        session_id = self.filmed.get(page_id)
        if session_id is None:
            return None
        try:
            result = await self.conn.send("Page.captureScreenshot", {
                "format": "jpeg", "quality": self.policy.quality, "optimizeForSpeed": True,
            }, session_id, timeout=timeout)
        except (CdpError, ConnectionLost, TimeoutError) as exc:
            log.warning("no still of %s: %r", page_id[:8], exc)
            return None
        data = result.get("data")
        if not isinstance(data, str):
            return None
        target = self.targets.get(page_id)
        return _Picture(data, time.time(), target.url if target else "")

    # -- stills only (no screencast) ------------------------------------------------------
    #
    # Each still is a capture asked for right after its line, so it shows the page after
    # the line (a capture asked for before a line could show the page before it). Lines
    # that come while SHOTS_AT_ONCE captures of the page are under way wait for the next
    # one. Each capture has a short deadline (``still_deadline``); one that fails, or is
    # not answered by then (the page navigated or closed), or is still waiting when the
    # page closes or the guard stops, gives its lines the page's last picture instead,
    # written as taken before the line (its frame line's time is the picture's, earlier
    # than the line's). A page with no picture yet leaves them without one.

    def _shoot(self, page_id: str, line: tuple[int | None, str]) -> None:
        self._shots.setdefault(page_id, []).append(line)
        self._start_shots(page_id)

    def _start_shots(self, page_id: str) -> None:
        if self._shooting.get(page_id, 0) >= SHOTS_AT_ONCE:
            return
        lines = self._shots.pop(page_id, None)
        if not lines:
            return
        self._shooting[page_id] = self._shooting.get(page_id, 0) + 1
        task = asyncio.get_running_loop().create_task(self._shot(page_id, lines))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _shot(self, page_id: str, lines: list[tuple[int | None, str]]) -> None:
        picture = None
        try:
            picture = await self._photograph(page_id, self.policy.still_deadline)
        finally:
            # Cancelled too (the guard stopping): the lines get what the page last showed.
            left = self._shooting.get(page_id, 1) - 1
            if left:
                self._shooting[page_id] = left
            else:
                self._shooting.pop(page_id, None)
            if picture is None:
                self._stand_in(page_id, lines)
            else:
                last = self._last.get(page_id)
                if last is None or last.painted <= picture.painted:
                    self._last[page_id] = picture
                self._keep_still(page_id, picture, lines)
            if page_id not in self.filmed and not left:
                self._last.pop(page_id, None)
            elif not self._closing:
                self._start_shots(page_id)

    def _stand_in(self, page_id: str, lines: list[tuple[int | None, str]]) -> None:
        """No capture came for ``lines``: the page's last picture stands for them, as
        taken before them."""
        last = self._last.get(page_id)
        if last is None or not lines:
            return
        self._keep_still(page_id, dataclasses.replace(last, before=True), lines)

    # -- files --------------------------------------------------------------------------

    def _settle(self, page_id: str, picture: _Picture, cause: str,
                lines: list[tuple[int | None, str]]) -> None:
        if self._closing:
            self._write(page_id, picture, cause, lines)
            return
        self._settled += 1
        key = self._settled

        def due() -> None:
            self._settling.pop(key, None)
            self._write(page_id, picture, cause, lines)

        self._settling[key] = (asyncio.get_running_loop().call_later(SETTLE, due), due)

    def _write(self, page_id: str, picture: _Picture, cause: str,
               lines: list[tuple[int | None, str]]) -> None:
        if self.book.hidden(page_id, picture.painted):
            return
        name = self._write_file(picture.jpeg, cause)
        if name is None:
            return
        if self.book.shows_redacted((picture.url,)):
            return
        url = self.redactor.url(picture.url)
        painted = _iso(picture.painted)
        for seq, line_time in lines:
            # A still is true from the line on: an unchanged page's last frame was
            # painted before it. A stand-in (no capture came) keeps its own, earlier
            # time: that is how the record says it was taken before the line.
            self.writer.write(FrameLine(
                target_id=page_id, file=name, bytes=_size(picture.jpeg),
                cause="still" if cause == "still" else "screencast", url=url,
                after_seq=seq, time=painted if picture.before else max(painted, line_time),
            ))

    def _write_file(self, data: str, cause: str) -> str | None:
        try:
            jpeg = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return None
        self._files += 1
        name = f"{self._files:06d}-{cause}.jpg"
        try:
            fd = os.open(self.folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with contextlib.closing(os.fdopen(fd, "wb")) as handle:
                handle.write(jpeg)
        except OSError as exc:
            log.error("could not write frame %s: %s", name, exc.strerror or exc)
            return None
        return name


def _size(data: str) -> int:
    return len(data) * 3 // 4


def _iso(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _painted(metadata: Any) -> float:
    """Chrome's paint time: seconds since the epoch, on the machine's clock."""
    stamp = metadata.get("timestamp") if isinstance(metadata, dict) else None
    if isinstance(stamp, int | float) and stamp > 0:
        return float(stamp)
    return time.time()

