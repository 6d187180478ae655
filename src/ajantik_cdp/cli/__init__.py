"""The `ajantik` command line: one module per command group."""
