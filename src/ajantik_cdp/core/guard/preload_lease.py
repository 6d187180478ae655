"""Who holds Chrome's "Preload pages" preference off, when several guards share a Chrome.

The preference is browser-wide, so guards on one Chrome must agree on it. Measured before
this existed: guard A turned it off (it had been on), guard B read "off" as the value to
give back, A stopped and turned it on while B still ran (B's pages could prefetch denied
pages again), and B stopped and left it off for good.

So the value to give back belongs to the lease, not to a guard: the first holder turns the
preference off and records what it was; later holders only join; the last one to leave
gives the value back. A holder whose process has died no longer counts, so a killed guard
cannot keep the preference off forever, nor be counted as still protecting anyone.

The lease is plain data; where it is kept and how it is locked is the caller's business.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

LEASE_VERSION = 1


@dataclass(frozen=True)
class Holder:
    pid: int
    token: str


@dataclass(frozen=True)
class Lease:
    original: int | None = None  # the value to give back; None while nobody holds it
    holders: tuple[Holder, ...] = ()


@dataclass(frozen=True)
class Joined:
    lease: Lease
    switch_off: bool  # True: the caller is first and must turn the preference off itself


@dataclass(frozen=True)
class Left:
    lease: Lease
    give_back: int | None  # the value to write back now; None: others still hold it


def _live(lease: Lease, alive: Collection[int]) -> tuple[Holder, ...]:
    return tuple(h for h in lease.holders if h.pid in alive)


def join(lease: Lease, me: Holder, alive: Collection[int]) -> Joined:
    """``alive``: the pids among the holders whose processes still run."""
    live = tuple(h for h in _live(lease, alive) if h != me)
    if live and lease.original is not None:
        return Joined(Lease(lease.original, (*live, me)), switch_off=False)
    # Nobody alive holds it, or no holder recorded a value (its switch failed): this
    # caller switches. The preference may still be off from a holder that died; the
    # caller reads it anew, and a dead holder's value is not given back.
    return Joined(Lease(None, (*live, me)), switch_off=True)


def switched_off(lease: Lease, original: int) -> Lease:
    """The first holder turned the preference off; ``original`` is what it read before."""
    return Lease(original, lease.holders)


def leave(lease: Lease, me: Holder, alive: Collection[int]) -> Left:
    remaining = tuple(h for h in _live(lease, alive) if h != me)
    if remaining:
        return Left(Lease(lease.original, remaining), give_back=None)
    return Left(Lease(), give_back=lease.original)


def lease_data(lease: Lease) -> dict[str, Any]:
    return {"version": LEASE_VERSION, "original": lease.original,
            "holders": [{"pid": h.pid, "token": h.token} for h in lease.holders]}


def lease_from_data(data: Any) -> Lease:
    """A lease read back; anything unreadable is an empty lease (the next guard then turns
    the preference off itself, the safe side)."""
    if not isinstance(data, dict) or data.get("version") != LEASE_VERSION:
        return Lease()
    original = data.get("original")
    holders = data.get("holders")
    if not isinstance(holders, list):
        return Lease()
    parsed = tuple(Holder(h["pid"], h["token"]) for h in holders
                   if isinstance(h, dict) and isinstance(h.get("pid"), int)
                   and isinstance(h.get("token"), str))
    return Lease(original if isinstance(original, int) else None, parsed)
