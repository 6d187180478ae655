"""Write points from a run's writes, and the index that aims the guard's fault: checked
against the guard's own fault state machine (core/policy/faults.py), never against a copy."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ajantik_cdp.core.policy.faults import FaultState, parse_fault
from ajantik_cdp.testrun.plan.write_points import (
    Write,
    WritePoint,
    generalise_path,
    group,
    guard_at,
    is_id,
    overlaps,
    point_of,
    writes_of,
)
from tests.support.examples import examples

WORDS = ["api", "filings", "documents", "sections", "company", "items", "export", "v2",
         "oauth2", "s3", "login", ""]
IDS = ["R-101", "R-102", "R-1", "7", "123", "5f2b9c1e0a", "2024-01-01", "item_12",
       "a1b2c3d4", "%5Bwithheld%5D", "eyJhbGciOiJIUzI1NiJ9abcdef"]
METHODS = ["POST", "PUT", "DELETE", "PATCH"]
ORIGINS = ["http://127.0.0.1:8765", "https://app.example.com", "http://127.0.0.2:9"]

segments = st.lists(st.sampled_from(WORDS + IDS), min_size=1, max_size=4)
urls = st.builds(lambda o, segs, q: o + "/" + "/".join(segs) + q, st.sampled_from(ORIGINS),
                 segments, st.sampled_from(["", "?page=2", "#top", "?token=%5Bwithheld%5D"]))
writes = st.lists(st.builds(Write, st.sampled_from(METHODS), urls), max_size=25)


@pytest.mark.parametrize("segment", IDS)
def test_ids_are_generalised(segment: str) -> None:
    assert is_id(segment)


@pytest.mark.parametrize("segment", [*WORDS, "*", "accounts", "sections"])
def test_words_and_versions_are_kept(segment: str) -> None:
    assert not is_id(segment)


def test_the_portals_writes_group_into_one_point_per_kind_of_write() -> None:
    ws = [Write("PUT", f"http://127.0.0.1:1/api/filings/{r}/sections/{s}")
          for r in ("R-101", "R-102") for s in ("company", "capital")]
    ws += [Write("POST", f"http://127.0.0.1:1/api/filings/{r}/documents") for r in
           ("R-101", "R-102", "R-103")]
    found = [(u.point.label, u.writes) for u in group(ws)]
    assert found == [("PUT /api/filings/*/sections/company", 2),
                     ("PUT /api/filings/*/sections/capital", 2),
                     ("POST /api/filings/*/documents", 3)]


def test_only_writes_are_points() -> None:
    lines = [(1, "GET", "http://h/a/1"), (2, "post", "http://h/a/1"), (3, "HEAD", "http://h/"),
             (4, "OPTIONS", "http://h/a"), (5, "DELETE", "http://h/a/2")]
    assert [(w.method, w.line) for w in writes_of(lines)] == [("post", 2), ("DELETE", 5)]
    assert [u.point.label for u in group(writes_of(lines))] == ["POST /a/*", "DELETE /a/*"]


@settings(deadline=None)
@given(segments)
def test_generalising_twice_changes_nothing(segs: list[str]) -> None:
    path = "/" + "/".join(segs)
    assert generalise_path(generalise_path(path)) == generalise_path(path)


@settings(deadline=None)
@given(writes)
def test_points_partition_the_writes_and_each_regex_matches_its_own(ws: list[Write]) -> None:
    uses = group(ws)
    assert sum(u.writes for u in uses) == len(ws)
    assert len({u.point for u in uses}) == len(uses)
    for w in ws:
        p = point_of(w.method, w.url)
        assert p in {u.point for u in uses}
        assert re.search(p.regex, w.url), (p.regex, w.url)
        assert WritePoint.parse(p.label) == p


@settings(deadline=None)
@given(writes, writes)
def test_a_regex_matches_only_urls_of_points_it_overlaps(ws: list[Write], more: list[Write]
                                                         ) -> None:
    # overlaps() is what plan_from_points warns with: it must never miss a real overlap.
    points = {point_of(w.method, w.url) for w in ws}
    for p in points:
        for w in more:
            q = point_of(w.method, w.url)
            if q != p and re.search(p.regex, w.url):
                assert overlaps(p, q), (p, q, w.url)


@examples(300)
@given(writes, st.integers(1, 6), st.data())
def test_the_guard_fires_on_the_kth_write_of_the_point(ws: list[Write], k: int,
                                                       data: st.DataObject) -> None:
    uses = group(ws)
    if not uses:
        return
    use = data.draw(st.sampled_from(uses))
    at = guard_at(ws, use.point, k)
    if k > use.writes:
        assert at is None
        return
    assert at is not None
    # The guard's own state machine, fed the run's writes in order (it sees URLs only).
    state = FaultState(parse_fault(f"phantom_success:{use.point.regex}", at))
    fired = [w for w in ws if state.on_write(w.url) is not None]
    assert len(fired) == 1
    mine = [w for w in ws if point_of(w.method, w.url) == use.point]
    assert fired[0] is mine[k - 1]


def test_a_fault_aimed_past_an_overlapping_point_is_counted_among_both() -> None:
    ws = [Write("POST", "http://h/items/export"), Write("POST", "http://h/items/7"),
          Write("DELETE", "http://h/items/7"), Write("POST", "http://h/items/8")]
    items = WritePoint("POST", "/items/*")
    assert overlaps(items, WritePoint("POST", "/items/export"))
    assert overlaps(items, WritePoint("DELETE", "/items/*"))
    assert not overlaps(WritePoint("POST", "/items/export"), items)
    assert guard_at(ws, items, 1) == 2  # after /items/export, which its regex matches
    assert guard_at(ws, items, 2) == 4
    assert guard_at(ws, items, 3) is None


@pytest.mark.parametrize("bad", ["/api/x", "POST api/x", "POST", "P0ST /x", ""])
def test_a_bad_point_label_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="METHOD /path"):
        WritePoint.parse(bad)


def test_the_regex_keeps_literal_segments_and_the_end_of_the_path() -> None:
    p = WritePoint("PUT", "/api/filings/*/sections/company")
    assert re.search(p.regex, "http://x:1/api/filings/R-1/sections/company?x=1")
    assert not re.search(p.regex, "http://x:1/api/filings/R-1/sections/company-extra")
    assert not re.search(p.regex, "http://x:1/api/filings/R-1/sections/capital")
    assert not re.search(p.regex, "http://x:1/other/api/filings/R-1/sections/company")
    assert not re.search(p.regex, "http://x:1/api/filings/a/b/sections/company")
