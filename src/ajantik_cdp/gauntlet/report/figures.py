"""A suite's figures as text, the same on the terminal, in the report page and in the
docs' preset table: a rate always with its count and its interval, runs left out always
with what left them out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ajantik_cdp.core.scoring.reliability_stats import Interval
from ajantik_cdp.gauntlet.score.suite_summary import Group


def interval_from(data: Mapping[str, Any] | None) -> Interval | None:
    """An interval as ``results.json`` holds it."""
    if data is None:
        return None
    return Interval(float(data["estimate"]), float(data["low"]), float(data["high"]))


def pct(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:.0f}%"


def span(r: Interval | None) -> str:
    return "–" if r is None else f"{r.low * 100:.0f}–{r.high * 100:.0f}%"


def rate_text(k: int, n: int, r: Interval | None) -> str:
    """``22/30 73% (54–86%)``; ``0/0 –`` when nothing was scored."""
    if r is None or n == 0:
        return f"{k}/{n} –"
    return f"{k}/{n} {pct(r.estimate)} ({span(r)})"


def left_out_text(g: Group, *, short: bool = False) -> str:
    parts = [f"{n} {what}" for n, what in (
        (g.infrastructure, "infra" if short else "infrastructure"),
        (g.not_fired, "not fired" if short else "fault did not fire")) if n]
    return ", ".join(parts)


def steps_text(g: Group, ratio: float | None) -> str:
    """The median steps of passing runs (and their ratio to the baseline's); when no
    run passed, the median of the scored runs, in parentheses."""
    if g.median_steps is not None:
        text = f"{g.median_steps:g}"
        if ratio is not None and ratio != 1:
            text += f" ×{ratio:.1f}"
        return text
    if g.median_steps_all is not None:
        return f"({g.median_steps_all:g})"
    return "–"


def headline(g: Group, confidence: float) -> str:
    """The line a reader needs first: how often the shop was done right, then
    reliability and the silent failure rate, and what was left out."""
    level = f"{confidence * 100:.0f}%"
    if g.scored == 0:
        text = f"No run was scored ({g.runs} run{'s' if g.runs != 1 else ''} finished)"
    else:
        text = (f"Done right in {g.done_right} of {g.scored} scored runs "
                f"({pct(g.done_right_rate.estimate if g.done_right_rate else None)}, "
                f"{level} interval {span(g.done_right_rate)}). "
                f"Reliability {rate_text(g.passes, g.scored, g.reliability)}; "
                f"silent failures {rate_text(g.silent_failures, g.scored, g.silent_failure_rate)}"
                f"; silent wrong {g.silent_wrong}")
    out = left_out_text(g)
    return text + (f"; left out: {out}" if out else "") + "."
