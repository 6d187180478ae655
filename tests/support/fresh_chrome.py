"""A Chromium of one test module's own, for tests of Chrome's "Preload pages" preference.

The preference is stored in the profile, and a guard that loses its connection to Chrome
leaves it off, on purpose (the safe side). The session's shared Chromium has seen hundreds
of guards, some of them cut off mid-run, so a test that first shows a speculative load
landing without the guard needs a profile no guard has touched. A module names it
``chrome``, so the ``guard`` fixture puts its guards in front of it too:

    chrome = module_chrome()
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ajantik_cdp.browser.launch import ChromeProcess, start_chrome


def module_chrome() -> Any:
    @pytest.fixture(scope="module")
    def chrome() -> Iterator[ChromeProcess]:
        proc = start_chrome()
        yield proc
        proc.close()

    return chrome
