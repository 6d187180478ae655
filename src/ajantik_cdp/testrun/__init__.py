"""``ajantik test run`` and ``ajantik test plan``: crash-test a skill on its own system.

An adapter's optional ``operator(event)`` and ``report(output)`` use what this package
exports: ``from ajantik_cdp.testrun import Answer, OperatorEvent, SkillOutput``.

A clean run first, through a fresh guard; its record's writes grouped into write points
(``plan/``); one run per write point x fault kind x repetition, each through a fresh guard
with that fault, judged from its own record (``run/``); the matrix, results.json and
report.html (``score/``, ``report/``). ``ajantik demo`` is this, applied to the bundled
portal with its two scripted skills.
"""

from ajantik_cdp.testrun.adapter_hooks import OperatorEvent, SkillOutput
from ajantik_cdp.testrun.run.ask_lines import Answer

__all__ = ["Answer", "OperatorEvent", "SkillOutput"]
