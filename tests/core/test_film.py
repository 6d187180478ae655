"""The film's decisions, as properties: the frame rate holds whatever arrives, the last
change of a burst is kept, nothing of a redacted page is kept, budgets hold, every write,
block and fault asks for a still, and each line's frame is its still or the nearest
frame of its page. (Which client commands are actions, and how they read:
test_client_actions.py.)"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.film import (
    Choice,
    FilmBook,
    FilmPolicy,
    FilmPolicyError,
    choose_frames,
    frame_for_lines,
    stills_lacking,
    taken_before,
    wants_still,
)
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.record.record_schema import (
    ActionLine,
    BlockLine,
    Body,
    FrameLine,
    RequestLine,
)
from tests.support.examples import examples

CONFIG = parse_config({"redact": ["/login"]})

arrivals = st.lists(st.tuples(st.floats(0.0, 0.5), st.integers(0, 5)), min_size=1,
                    max_size=60)


def run_book(book: FilmBook, steps: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """Offer frames (gap since the previous, picture id); flush held frames when due,
    as the camera's timer does. Returns the (time, picture) kept."""
    now, kept, held = 0.0, [], None
    for gap, picture in steps:
        due = book.due("P")
        if held is not None and due is not None and due <= now + gap:
            if book.flush("P", due, held, 10, ["http://a/"]) is Choice.KEEP:
                kept.append((due, int(held)))
            held = None
        now += gap
        choice = book.offer("P", now, str(picture), 10, ["http://a/"])
        if choice is Choice.KEEP:
            kept.append((now, picture))
            held = None
        elif choice is Choice.HOLD:
            held = str(picture)
        else:
            held = None
    due = book.due("P")
    if held is not None and due is not None and \
            book.flush("P", due, held, 10, ["http://a/"]) is Choice.KEEP:
        kept.append((due, int(held)))
    return kept


@given(arrivals, st.sampled_from([1.0, 2.0, 4.0, 10.0]))
def test_kept_frames_respect_the_rate_and_the_last_change_is_kept(
        steps: list[tuple[float, int]], fps: float) -> None:
    book = FilmBook(FilmPolicy(fps=fps), CONFIG)
    kept = run_book(book, steps)
    times = [t for t, _ in kept]
    assert all(b - a >= 1 / fps - 1e-9 for a, b in itertools.pairwise(times))
    # What the page finally showed is in the film, unless it was already the last kept.
    assert kept and kept[-1][1] == steps[-1][1]
    # Never the same picture twice in a row.
    assert all(a[1] != b[1] for a, b in itertools.pairwise(kept))


@given(arrivals, st.sampled_from([1.0, 2.0, 4.0, 10.0]))
def test_acks_held_to_the_rate_keep_every_frame_sent_and_the_last_picture(
        steps: list[tuple[float, int]], fps: float) -> None:
    """Chrome, modelled: it sends what the page shows when the page has changed since its
    last frame and that frame was acknowledged. Acks held by ``ack_delay`` mean no frame
    arrives too early to keep (none is held, so none is encoded for nothing), the rate
    holds, and what the page finally shows is still kept."""
    book = FilmBook(FilmPolicy(fps=fps), CONFIG)
    kept: list[tuple[float, int]] = []
    choices: list[Choice] = []
    shown: int | None = None
    sent: int | None = None
    ack_at = 0.0  # when Chrome may send again

    def send(t: float) -> None:
        nonlocal sent, ack_at
        sent = shown
        choice = book.offer("P", t, str(shown), 10, ["http://a/"])
        choices.append(choice)
        if choice is Choice.KEEP:
            kept.append((t, shown))  # type: ignore[arg-type]
        ack_at = t + book.ack_delay("P", t)

    now = 0.0
    for gap, picture in steps:
        if shown is not None and shown != sent and ack_at < now + gap:
            send(ack_at)  # the ack came before this change: the current picture goes
        now += gap
        shown = picture
        if ack_at <= now and shown != sent:
            send(now)
    if shown != sent:
        send(max(ack_at, now))
    assert Choice.HOLD not in choices
    times = [t for t, _ in kept]
    assert all(b - a >= 1 / fps - 1e-9 for a, b in itertools.pairwise(times))
    assert kept and kept[-1][1] == steps[-1][1]


def test_a_page_with_nothing_kept_is_acknowledged_at_once() -> None:
    book = FilmBook(FilmPolicy(fps=2), CONFIG)
    assert book.ack_delay("P", 5.0) == 0.0
    assert book.offer("P", 5.0, "a", 10, ["http://a/"]) is Choice.KEEP
    assert book.ack_delay("P", 5.1) == pytest.approx(0.4)
    assert book.ack_delay("P", 6.0) == 0.0


@given(arrivals)
def test_nothing_is_kept_while_a_redacted_document_is_on_screen(
        steps: list[tuple[float, int]]) -> None:
    book = FilmBook(FilmPolicy(fps=30), CONFIG)
    now = 0.0
    for gap, picture in steps:
        now += gap
        urls = ["http://a/home", "http://sso.example/Login?next=1"]
        assert book.offer("P", now, str(picture), 10, urls) is Choice.REDACTED
    assert book.frames == 0 and book.due("P") is None


@given(st.lists(st.floats(0, 100), min_size=1, max_size=20), st.floats(0, 100))
def test_a_picture_painted_while_the_page_went_to_a_redacted_url_is_hidden(
        events: list[float], painted: float) -> None:
    book = FilmBook(FilmPolicy(), CONFIG)
    heard = sorted(events)
    book.navigation("P", heard[0], ["http://a/home"], starting="http://a/login")
    book.navigation("P", heard[-1], ["http://a/home"])  # committed elsewhere
    if heard[0] - 0.25 <= painted <= heard[-1] + 0.25:
        assert book.hidden("P", painted)
    else:
        assert not book.hidden("P", painted)
    assert not book.hidden("other page", painted)


def test_a_redirect_heard_only_at_commit_hides_further_back() -> None:
    book = FilmBook(FilmPolicy(), CONFIG)
    book.navigation("P", 10.0, ["http://a/home"], starting="http://a/home")
    assert not book.hidden("P", 9.9)
    book.navigation("P", 11.0, ["http://a/login"])  # the redirect's commit
    assert book.hidden("P", 9.6) and book.hidden("P", 50.0)  # still at the login page
    book.navigation("P", 60.0, ["http://a/home"], starting="http://a/home")
    assert book.hidden("P", 60.1)  # only started: the login page is still shown
    book.navigation("P", 61.0, ["http://a/home"])
    assert book.hidden("P", 61.2) and not book.hidden("P", 61.3)


@given(st.integers(0, 30), st.integers(1, 40))
def test_frame_and_byte_budgets_hold(max_frames: int, size: int) -> None:
    book = FilmBook(FilmPolicy(fps=30, max_frames=max_frames, max_bytes=400), CONFIG)
    for i in range(100):
        book.offer("P", i * 1.0, str(i), size, ["http://a/"])
    assert book.frames <= max_frames and book.bytes <= 400
    assert book.frames == min(max_frames, 400 // size)


def request(seq: int, method: str = "POST", fault: str | None = None,
            time: str = "2026-01-01T00:00:01.000Z", target: str = "P") -> RequestLine:
    return RequestLine(seq=seq, target_id=target, target_type="page", frame_url=None,
                       method=method, url="http://a/x", resource_type="Fetch",
                       request_headers={}, request_body=Body(0, ""), system=None,
                       fault=fault, client_status=204, time=time)


def test_writes_blocks_and_faults_ask_for_a_still_reads_do_not() -> None:
    assert wants_still(request(1, "POST"))
    assert wants_still(request(1, "GET", fault="transient_error"))
    assert not wants_still(request(1, "GET"))
    assert wants_still(BlockLine(seq=2, source="click", reason="deny_clicks", rule=None,
                                 target_id="P", target_type="page", frame_url=None))
    book = FilmBook(FilmPolicy(max_stills=1), CONFIG)
    book.attached("IFRAME", "P")
    assert book.still_for(request(1, target="IFRAME"), ("P", "Q")) == ("P",)
    assert book.still_for(request(1, target="WORKER?"), ("P", "Q")) == ("P", "Q")
    book.still_taken(5)
    assert book.still_for(request(2), ("P",)) == ()  # the still budget is spent


def frame(file: str, time: str, after: int | None = None, target: str = "P") -> FrameLine:
    return FrameLine(target_id=target, file=file, bytes=1,
                     cause="still" if after else "screencast", url="http://a/",
                     after_seq=after, time=time)


def test_each_line_gets_its_still_or_the_next_frame_of_its_page() -> None:
    t = "2026-01-01T00:00:0{}.000Z".format
    lines = [frame("1", t(1)), request(1, time=t(2)), frame("2", t(3), after=1),
             request(2, "GET", time=t(4)), frame("3", t(5), target="Q"),
             frame("4", t(6)), ActionLine(target_id="Q", method="Page.reload",
                                          summary="reload", time=t(7))]
    paired = frame_for_lines(lines)  # type: ignore[arg-type]
    assert paired[1].file == "2"  # its still
    assert paired[3].file == "4"  # the next frame of page P, not Q's
    assert paired[6].file == "3"  # Q's last frame: none came after
    assert frame_for_lines([request(1)]) == {}


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 9)), max_size=60),
       st.integers(0, 50))
def test_the_player_keeps_stills_first_within_its_limit(
        kinds: list[tuple[bool, int]], limit: int) -> None:
    frames = [frame(f"{i:03d}", f"2026-01-01T00:00:{s:02d}.000Z", after=i + 1 if still
                    else None) for i, (still, s) in enumerate(kinds)]
    chosen = choose_frames(frames, limit)
    assert len(chosen) == min(limit, len(frames))
    stills = [f for f in frames if f.cause == "still"]
    assert sum(f.cause == "still" for f in chosen) == min(len(stills), limit)
    assert [f.time for f in chosen] == sorted(f.time for f in chosen)


@examples(20)
@given(st.floats(-5, 100) | st.just(0.0) | st.just(-0.0))
def test_policy_refuses_impossible_values(fps: float) -> None:
    if 0 < fps <= 30:
        assert FilmPolicy(fps=fps).interval == pytest.approx(1 / fps)
        assert FilmPolicy(fps=fps).screencast
    elif fps == 0:
        assert not FilmPolicy(fps=fps).screencast  # stills only
        assert FilmPolicy(fps=fps).interval == float("inf")
    else:
        with pytest.raises(FilmPolicyError):
            FilmPolicy(fps=fps)


def test_a_stand_in_still_is_told_by_its_earlier_time_and_lacking_stills_are_counted() -> None:
    first = request(1, time="2026-01-01T00:00:01.000Z")
    second = request(2, time="2026-01-01T00:00:02.000Z")
    read = request(3, "GET", time="2026-01-01T00:00:03.000Z")
    third = request(4, time="2026-01-01T00:00:04.000Z")
    captured = frame("1.jpg", "2026-01-01T00:00:01.040Z", after=1)
    stand_in = frame("2.jpg", "2026-01-01T00:00:01.040Z", after=2)  # 1.jpg again
    assert not taken_before(captured, first.time)
    assert taken_before(stand_in, second.time)
    assert not taken_before(frame("s.jpg", "2026-01-01T00:00:00.500Z"), first.time)
    # The read wants no still; the third write has none.
    assert stills_lacking([first, captured, second, stand_in, read, third]) == (1, 3)
    assert stills_lacking([read]) == (0, 0)
