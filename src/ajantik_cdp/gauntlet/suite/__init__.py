"""What a suite asks for. Pure: no I/O, no asyncio (tests/test_layout.py checks it).

``suite_file`` (the suite file, parsed and validated in one pass), ``demo_suite`` (the
bundled one), ``task_intents`` (the task in words as a list of intents),
``expected_state`` (what the shop must hold at the end, and how a held state differs)
and ``variant_set`` (the shop's UI variants and the guard's write-fault variants).
"""
