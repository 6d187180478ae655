"""A YAML syntax error as one clause naming where it is, for a message that already names
the file. PyYAML's own text names "<unicode string>" and spans several lines."""

from __future__ import annotations

import yaml


def yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    what = getattr(exc, "problem", None) or (str(exc).splitlines() or ["unreadable"])[0]
    if mark is None:
        return f"not valid YAML: {what}"
    return f"line {mark.line + 1}, column {mark.column + 1}: not valid YAML: {what}"
