"""Carrying suites out on this machine: the asyncio and file-system side.

``suite_session`` (a suite from start to files: the shop, the executor, the runs,
``results.json`` and ``report.html``), ``executor`` (the interface: where a run happens
is its business), ``local_executor`` (one headless Chromium per worker),
``run_harness`` (one run on one worker, start to finish), ``command_agent`` (any
program as the agent), ``suite_loading`` (a suite file from disk) and ``doctor`` (what
is installed, which browser would run).
"""
