"""The record's time stamps: ``iso_at`` spells a moment exactly as
``datetime.isoformat(timespec="milliseconds")`` does in UTC, whichever second it was
asked about before (it keeps the last second's text)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.record.record_schema import iso_at, now_iso
from tests.support.examples import examples

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# 1970 to 2100, to the nanosecond.
MOMENTS = st.integers(min_value=0, max_value=4_102_444_800 * 10**9)


def _expected(ns: int) -> str:
    moment = EPOCH + timedelta(microseconds=ns // 1000)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@examples(500)
@given(st.lists(MOMENTS, min_size=1, max_size=5))
def test_every_moment_is_spelt_as_isoformat_spells_it(moments: list[int]) -> None:
    for ns in moments:
        assert iso_at(ns) == _expected(ns)


def test_the_millisecond_is_truncated_and_the_second_follows_the_moment() -> None:
    second = 1_764_633_600 * 10**9  # 2025-12-02T00:00:00Z
    assert iso_at(second + 999_999_999) == "2025-12-02T00:00:00.999Z"
    assert iso_at(second + 1_000_000_000) == "2025-12-02T00:00:01.000Z"
    assert iso_at(second + 999_999_999) == "2025-12-02T00:00:00.999Z"  # back again


def test_now_is_now() -> None:
    before = datetime.now(UTC)
    stamp = datetime.fromisoformat(now_iso().replace("Z", "+00:00"))
    assert before - timedelta(milliseconds=1) <= stamp <= datetime.now(UTC)
