"""Log lines on stderr, each prefixed with the command that wrote it."""

from __future__ import annotations

import logging
import sys


def configure(prefix: str, verbose: bool = False) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{prefix}: %(message)s"))
    root = logging.getLogger("ajantik")
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    root.propagate = False
