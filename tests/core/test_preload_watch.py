"""What the guard does with a reading of "Preload pages" while it runs (issue 27)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.preload_watch import WatchAction, after_reading, preference_off

EVENT = {"disabledByPreference": True, "disabledByDataSaver": False,
         "disabledByBatterySaver": False}


def test_a_reading_is_chromes_disabled_by_preference() -> None:
    assert preference_off(EVENT) is True
    assert preference_off({**EVENT, "disabledByPreference": False}) is False
    # Another switch (data saver) turning preloading off is not the guard's preference:
    # the reading is only the preference's.
    assert preference_off({**EVENT, "disabledByPreference": False,
                           "disabledByDataSaver": True}) is False


@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.booleans()),
                 st.dictionaries(st.text(), st.none())))
def test_a_reading_without_the_field_is_no_reading(params: Any) -> None:
    assert preference_off(params) is None


@given(st.booleans(), st.sampled_from([True, False, None]))
def test_it_is_switched_off_again_only_when_held_and_read_on(held: bool,
                                                             off: bool | None) -> None:
    action = after_reading(held, off)
    assert (action is WatchAction.SWITCH_OFF) == (held and off is False)
