"""Scoring, shared by the judge, ``test run``, the demo and suites: one verdict per unit,
one outcome per run and whether it passes, and the statistics every rate is given with.
Pure."""
