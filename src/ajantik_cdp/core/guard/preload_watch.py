"""Noticing "Preload pages" turned back on while the guard holds it off.

The guard turns the preference off at start (``proxy/preloading.py``), but a person in
chrome://settings, or a program on Chrome's own port with a settings tab of its own, can
turn it back on while the guard runs; speculative loads then escape the net again.

Chrome reports whether speculative loading is off by the preference in
``Preload.preloadEnabledStateUpdated`` (``disabledByPreference``). Measured on Chrome 156:
it sends the event when a session enables the Preload domain, and not again when the
preference changes; a disable and enable sends it anew, with the current value, in well
under 0.1 s. So the guard reads the preference that way, on one of its own page sessions,
every ``WATCH_INTERVAL`` seconds, with no settings tab. What it does with a reading is
decided here; the reading and the switch are the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

# Seconds between readings: the longest a preference turned back on goes unnoticed (plus
# the few seconds the settings page takes to turn it off again).
WATCH_INTERVAL = 1.0
STATE_EVENT = "Preload.preloadEnabledStateUpdated"


class WatchAction(Enum):
    KEEP = "keep"  # nothing to do: off as it should be, not held, or nothing to read on
    SWITCH_OFF = "switch_off"  # on while held: turn it off again, and say so


def preference_off(params: Any) -> bool | None:
    """``disabledByPreference`` from the event's parameters; None when it is missing."""
    if not isinstance(params, Mapping):
        return None
    value = params.get("disabledByPreference")
    return value if isinstance(value, bool) else None


def after_reading(held: bool, off: bool | None) -> WatchAction:
    """``held``: this guard holds the lease (it is meant to be off); ``off``: the reading,
    None when nothing could be read (no page to read on yet: none can prefetch either)."""
    if held and off is False:
        return WatchAction.SWITCH_OFF
    return WatchAction.KEEP
