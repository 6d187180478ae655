"""Resuming a suite from its output folder (``ajantik gauntlet run --resume OUT``).

What a resume keeps is what ``OUT/results.json`` holds: the suite writes that file after
every finished run (``suite_session``), so a suite whose process was killed, whose
machine went down or that was stopped with Ctrl-C loses at most the runs that were in
flight. Each kept run is scored again from its evidence (the same scoring code as when it
ran); a run lost to infrastructure is run again, since whatever broke may be mended. A
run is identified by its id (``<variant>-r<repetition>``), so none is counted twice.

A suite file changed since is refused with what changed: the kept runs measured that
suite, not this one. Where the runs run (workers, executor, browsers) is not the suite
and may differ. Pure but for reading the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.gauntlet.evidence.run_data import RunResult, result_from_data
from ajantik_cdp.gauntlet.score.results_file import ResultsFileError, results_of_version
from ajantik_cdp.gauntlet.suite.suite_file import Suite

# Not what the suite measures: the path it was read from, how many runs at a time.
IGNORED = frozenset({"source", "workers"})


class ResumeError(BadInput):
    """Nothing to resume, or a suite that is not the one that ran (exit code 2)."""


@dataclass(frozen=True)
class Resumed:
    suite_run: str  # the original's: the shop's jitter of every run stays reproducible
    kept: tuple[RunResult, ...]
    rerun: tuple[str, ...]  # run ids in the file that run again (lost to infrastructure)


def suite_changes(before: Any, after: Any, where: str = "") -> list[str]:
    """What differs between two suites' data, as ``key: before -> after`` lines."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        changes: list[str] = []
        for key in sorted({*before, *after}, key=str):
            if not where and key in IGNORED:
                continue
            path = f"{where}.{key}" if where else str(key)
            if key not in after:
                changes.append(f"{path}: removed")
            elif key not in before:
                changes.append(f"{path}: added")
            else:
                changes += suite_changes(before[key], after[key], path)
        return changes
    if before != after:
        return [f"{where}: {_short(before)} -> {_short(after)}"]
    return []


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # beyond JSON's numbers: not from a suite file, but say something
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def resume_from(out_dir: Path, suite: Suite) -> Resumed:
    path = out_dir / "results.json"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ResumeError(f"--resume {out_dir}: there is no results.json to resume from "
                          "(no run of this suite finished there)") from None
    except OSError as exc:
        raise ResumeError(f"--resume {out_dir}: cannot read {path}: "
                          f"{exc.strerror or exc}") from None
    return resumed_data(_decode(raw, path), suite, str(out_dir))


def _decode(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        return results_of_version(raw, str(path))[0]
    except ResultsFileError as exc:
        raise ResumeError(f"{exc}; it cannot be resumed") from None


def resumed_data(data: Mapping[str, Any], suite: Suite, label: str) -> Resumed:
    changes = suite_changes(data.get("suite"), suite.as_data())
    if changes:
        more = f" (and {len(changes) - 5} more)" if len(changes) > 5 else ""
        raise ResumeError(f"--resume {label}: the suite file changed since those runs: "
                          f"{'; '.join(changes[:5])}{more}. Run it into a new --out, or "
                          "put the suite back")
    planned = {f"{v}-r{r}" for r in range(suite.repetitions) for v in suite.variants}
    kept: dict[str, RunResult] = {}
    rerun: list[str] = []
    try:
        for entry in data["runs"]:
            result = result_from_data(entry["evidence"])
            if result.run_id not in planned:
                raise ResumeError(f"--resume {label}: results.json has run {result.run_id}, "
                                  "which this suite does not plan")
            if result.run_id in kept:
                raise ResumeError(f"--resume {label}: results.json has run {result.run_id} "
                                  "twice")
            if result.infra is not None:
                rerun.append(result.run_id)
            else:
                kept[result.run_id] = result
        suite_run = str(data["suite_run"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ResumeError(f"--resume {label}: results.json is missing a field a results "
                          f"file has ({exc!r})") from None
    return Resumed(suite_run, tuple(kept.values()), tuple(rerun))
