"""The preload lease as a conversation between guards sharing one Chrome."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.preload_lease import (
    Holder,
    Lease,
    join,
    lease_data,
    lease_from_data,
    leave,
    switched_off,
)

A, B, C = Holder(10, "a"), Holder(11, "b"), Holder(12, "c")
ALL = {10, 11, 12}


def test_only_the_first_switches_and_only_the_last_gives_back() -> None:
    joined = join(Lease(), A, ALL)
    assert joined.switch_off
    lease = switched_off(joined.lease, 1)
    joined = join(lease, B, ALL)
    assert not joined.switch_off
    left = leave(joined.lease, A, ALL)
    assert left.give_back is None  # B still runs: preloading stays off
    left = leave(left.lease, B, ALL)
    assert left.give_back == 1 and left.lease == Lease()


def test_a_dead_holder_neither_keeps_it_nor_counts() -> None:
    lease = switched_off(join(Lease(), A, ALL).lease, 1)
    joined = join(lease, B, {11})  # A's process is gone
    assert joined.switch_off, "a dead holder's switch is trusted"
    assert joined.lease.holders == (B,)
    assert leave(lease, B, {11}).give_back == 1  # B leaving a lease only A held


def test_a_holder_that_never_recorded_a_value_makes_the_next_switch() -> None:
    unfinished = Lease(None, (A,))
    joined = join(unfinished, B, ALL)
    assert joined.switch_off and joined.lease.holders == (A, B)


def test_unreadable_leases_are_empty() -> None:
    for data in (None, [], {"version": 99}, {"version": 1, "holders": "x"}, "{}"):
        assert lease_from_data(data) == Lease()



@given(order=st.permutations([A, B, C]), leave_order=st.permutations([A, B, C]),
       original=st.integers(0, 2))
def test_whatever_the_order_the_value_comes_back_once_at_the_end(
        order: list[Holder], leave_order: list[Holder], original: int) -> None:
    lease = Lease()
    switches = 0
    for h in order:
        joined = join(lease, h, ALL)
        lease = joined.lease
        if joined.switch_off:
            switches += 1
            lease = switched_off(lease, original)
        assert lease_from_data(lease_data(lease)) == lease
    assert switches == 1
    given_back = []
    for h in leave_order:
        left = leave(lease, h, ALL)
        lease = left.lease
        if left.give_back is not None:
            given_back.append(left.give_back)
    assert given_back == [original] and lease == Lease()
