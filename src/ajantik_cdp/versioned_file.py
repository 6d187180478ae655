"""The one reader of the project's versioned JSON files (verdicts, test-run and suite
results): each names its ``format`` and ``version``, so a script or a later ajantik can
refuse a file it does not understand instead of misreading it."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import orjson

from ajantik_cdp.core.errors import BadInput


class VersionedFileError(BadInput, ValueError):
    """Not JSON, not the format asked for, or a version this code does not read."""


def read_versioned(raw: bytes, fmt: str, versions: Collection[int], *, kind: str,
                   what: str, source: str = "the file") -> tuple[dict[str, Any], int]:
    """The file's data and its version, which is one of ``versions``. Messages name the
    file as ``kind`` ("an ajantik verdicts file") and its version as ``what`` ("verdicts
    version 1")."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise VersionedFileError(f"{source} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise VersionedFileError(f"{source} is not {kind} (format {fmt!r})")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version not in versions:
        known = ", ".join(str(v) for v in sorted(versions))
        raise VersionedFileError(f"{source} is {what} version {version!r}; this ajantik "
                                 f"reads version {known}")
    return data, version
