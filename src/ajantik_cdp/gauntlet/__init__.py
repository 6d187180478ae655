"""`ajantik gauntlet`: perturbation suites over the bundled shop.

Pure modules (no asyncio, no network, no files; unit- and property-tested):
``variant_set``, ``task_intents``, ``expected_state``, ``suite_file``, ``claim_line``,
``evidence``, ``classifier``, ``scoring``, ``reliability_stats``, ``suite_summary``,
``comparison``, ``results_file``, ``reference_vocabulary``, ``preset_table``.

The asyncio layer moves runs and messages and carries out what those decide:
``executor`` (the interface), ``local_executor`` and ``run_harness`` (one Chromium per
worker, one run at a time on it), ``reference_agent``, ``command_agent``,
``suite_runner``, ``progress_display``, ``report_page``, ``doctor``.
"""
