"""Harbour Registry, an invented portal, and a skill that files on it: the complete
example behind ``ajantik demo`` (see examples/portal-pilot/README.md)."""
