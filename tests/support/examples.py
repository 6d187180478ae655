"""How hard the property tests search: one knob for the whole suite.

A property test says how many examples it runs in CI, the depth its author chose for it
(``@examples(300)``); the Hypothesis profile scales that number:

- ``dev``, the default: a fifth of it (at least 10), so ``pytest -m "not browser"`` stays
  a loop of seconds while working;
- ``ci`` (``--hypothesis-profile=ci``, what ``.ci/run`` passes): exactly as written;
- ``thorough``: ten times as many, for a long hunt before a release.

A ``@given`` test without ``@examples`` runs the profile's own count (20, 100 or 1000),
the same as ``@examples(100)``. Every profile sets no deadline: the machines these run on
are shared and slow, and a property never asserts a timing.

The profiles are registered in tests/conftest.py, before any test module is imported, so
the counts are fixed when the decorators run.
"""

from __future__ import annotations

from typing import Any

from hypothesis import settings

CI_EXAMPLES = 100  # the ci profile's max_examples: the scale on which counts are written
PROFILES = {"dev": 20, "ci": CI_EXAMPLES, "thorough": 1000}
FEWEST = 10


def register_profiles() -> None:
    for name, count in PROFILES.items():
        settings.register_profile(name, max_examples=count, deadline=None)


def examples(in_ci: int, **more: Any) -> settings:
    """Settings for a property that runs ``in_ci`` examples under the ci profile."""
    scaled = in_ci * settings.default.max_examples // CI_EXAMPLES
    return settings(max_examples=max(FEWEST, scaled), deadline=None, **more)
