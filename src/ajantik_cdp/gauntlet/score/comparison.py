"""``compare``: did reliability move between two results files, and which variants
moved it. Pure.

A variant regresses when its reliability falls by more than the tolerance, or when it
has more silent wrongs than before. Every move is shown with Newcombe's interval for the
difference; a move whose interval excludes 0 is marked significant. With small suites
(2-3 repetitions) hardly anything is significant, which is why the gate, by default,
is the point estimate: a CI run should stop on 3/3 becoming 1/3, and say how unsure
that is.
"""

from __future__ import annotations

from dataclasses import dataclass

from ajantik_cdp.core.reliability_stats import Interval, newcombe
from ajantik_cdp.gauntlet.score.results_file import ResultsView, VariantCounts


@dataclass(frozen=True)
class VariantMove:
    variant: str
    before: VariantCounts | None
    after: VariantCounts | None
    change: Interval | None  # after minus before
    regressed: bool
    improved: bool
    reasons: tuple[str, ...]

    @property
    def significant(self) -> bool:
        return self.change is not None and (self.change.low > 0 or self.change.high < 0)


@dataclass(frozen=True)
class Comparison:
    before: ResultsView
    after: ResultsView
    moves: tuple[VariantMove, ...]
    overall: Interval | None
    warnings: tuple[str, ...]

    @property
    def regressions(self) -> tuple[VariantMove, ...]:
        return tuple(m for m in self.moves if m.regressed)

    @property
    def exit_code(self) -> int:
        return 1 if self.regressions else 0


def _rate(c: VariantCounts) -> float | None:
    return c.passes / c.scored if c.scored else None


def _move(name: str, a: VariantCounts | None, b: VariantCounts | None, confidence: float,
          tolerance: float, only_significant: bool) -> VariantMove:
    if a is None or b is None:
        return VariantMove(name, a, b, None, False, False,
                           ("only in the second file",) if a is None else
                           ("only in the first file",))
    change = newcombe(b.passes, b.scored, a.passes, a.scored, confidence)
    reasons: list[str] = []
    ra, rb = _rate(a), _rate(b)
    regressed = improved = False
    if ra is not None and rb is not None:
        significant = change is not None and (change.low > 0 or change.high < 0)
        if rb < ra - tolerance and (significant or not only_significant):
            regressed = True
            reasons.append(f"reliability {ra:.2f} -> {rb:.2f}")
        elif rb > ra + tolerance:
            improved = True
    elif rb is None and ra is not None:
        reasons.append("no scorable runs in the second file")
    if b.silent_wrong > a.silent_wrong:
        regressed = True
        reasons.append(f"silent wrong {a.silent_wrong} -> {b.silent_wrong}")
    return VariantMove(name, a, b, change, regressed, improved, tuple(reasons))


def compare(before: ResultsView, after: ResultsView, *, tolerance: float = 0.0,
            only_significant: bool = False) -> Comparison:
    confidence = after.confidence
    names = list(before.variants) + [v for v in after.variants if v not in before.variants]
    moves = tuple(_move(n, before.variants.get(n), after.variants.get(n), confidence,
                        tolerance, only_significant) for n in names)
    pa, sa, _ = before.pooled()
    pb, sb, _ = after.pooled()
    overall = newcombe(pb, sb, pa, sa, confidence) if sa and sb else None
    warnings = []
    if before.task != after.task:
        warnings.append(f"the files are about different tasks ({before.task!r} and "
                        f"{after.task!r})")
    if before.agent != after.agent:
        warnings.append(f"agents differ: {before.agent} -> {after.agent}")
    for view in (before, after):
        if view.interrupted:
            warnings.append(f"{view.source} is from an interrupted suite")
    return Comparison(before, after, moves, overall, tuple(warnings))
