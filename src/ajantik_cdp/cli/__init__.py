"""The `ajantik` command line: one module per command group. ``main`` is the entry point
and the one place errors become exit codes."""
