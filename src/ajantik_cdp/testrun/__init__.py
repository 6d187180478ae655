"""``ajantik test run`` and ``ajantik test plan``: crash-test a skill on its own system.

A clean run first, through a fresh guard; its record's writes grouped into write points
(``plan/``); one run per write point x fault kind x repetition, each through a fresh guard
with that fault, judged from its own record (``run/``); the matrix, results.json and
report.html (``score/``, ``report/``). ``ajantik demo`` is this, applied to the bundled
portal with its two scripted skills.
"""
