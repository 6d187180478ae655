"""From evidence to numbers, and the file that keeps them. Pure.

``scoring`` (one run: pass, fail or left out, with its world x claim verdict),
``classifier`` (why a run failed: an ordered chain of rules), ``suite_summary`` (per
variant and overall, thresholds), ``results_file`` (the versioned ``results.json``:
written from these, read back by ``compare`` and ``report``) and ``comparison`` (two
results files: which variant moved). The intervals (Wilson, Newcombe, pass^k) live in
``core/reliability_stats``, shared with ``ajantik test run``.
"""
