"""``compare``: did reliability move between two results files, and which variants
moved it. Pure.

Only what both files ran is compared: the variants they share, pooled the same way for
the overall figure. Whatever else differs (variants only one file has, the agent, the
task, the repetitions, an interrupted or translated file) is said in one line, so "no
regression" never stands for "compared different things".

A variant regresses when its reliability falls by more than the tolerance, or when it
has more silent wrongs or more damage than before (the two silent failures). Every move
is shown with Newcombe's interval for the difference; a move whose interval excludes 0
is marked significant. With small suites (2-3 repetitions) hardly anything is significant, which
is why the gate, by default, is the point estimate: a CI run should stop on 3/3
becoming 1/3, and say how unsure that is.
"""

from __future__ import annotations

from dataclasses import dataclass

from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.core.scoring.reliability_stats import Interval, newcombe
from ajantik_cdp.gauntlet.score.results_file import ResultsView, VariantCounts


class NothingInCommon(BadInput, ValueError):
    """Two results files that share no variant: there is nothing to compare."""


@dataclass(frozen=True)
class VariantMove:
    variant: str
    before: VariantCounts
    after: VariantCounts
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
    moves: tuple[VariantMove, ...]  # the variants both files ran, in the first's order
    overall: Interval | None  # over those variants only
    differences: tuple[str, ...]  # what else differs between the files
    notes: tuple[str, ...]  # about a file on its own (translated, interrupted)

    @property
    def regressions(self) -> tuple[VariantMove, ...]:
        return tuple(m for m in self.moves if m.regressed)

    @property
    def exit_code(self) -> int:
        return 1 if self.regressions else 0

    @property
    def compared(self) -> tuple[str, ...]:
        return tuple(m.variant for m in self.moves)

    def differences_line(self) -> str | None:
        """One line for everything that differs, or None when the files ran the same."""
        if not self.differences:
            return None
        return (f"compared only what both ran ({len(self.moves)} variant"
                f"{'s' if len(self.moves) != 1 else ''}); they differ: "
                + "; ".join(self.differences))


def _rate(c: VariantCounts) -> float | None:
    return c.passes / c.scored if c.scored else None


def _move(name: str, a: VariantCounts, b: VariantCounts, confidence: float,
          tolerance: float, only_significant: bool) -> VariantMove:
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
        reasons.append("no scored runs in the second file")
    if b.silent_wrong > a.silent_wrong:
        regressed = True
        reasons.append(f"silent wrong {a.silent_wrong} -> {b.silent_wrong}")
    if b.damage > a.damage:
        regressed = True
        reasons.append(f"damage {a.damage} -> {b.damage}")
    return VariantMove(name, a, b, change, regressed, improved, tuple(reasons))


def _names(names: list[str]) -> str:
    return ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")


def _differences(before: ResultsView, after: ResultsView) -> list[str]:
    out: list[str] = []
    only_a = [v for v in before.variants if v not in after.variants]
    only_b = [v for v in after.variants if v not in before.variants]
    if only_a:
        out.append(f"only {before.source} ran {_names(only_a)}")
    if only_b:
        out.append(f"only {after.source} ran {_names(only_b)}")
    if before.agent != after.agent:
        out.append(f"agents {before.agent} -> {after.agent}")
    if before.task != after.task:
        out.append(f"tasks {before.task!r} -> {after.task!r}")
    if before.repetitions != after.repetitions:
        out.append(f"repetitions {before.repetitions} -> {after.repetitions}")
    return out


def compare(before: ResultsView, after: ResultsView, *, tolerance: float = 0.0,
            only_significant: bool = False) -> Comparison:
    common = [v for v in before.variants if v in after.variants]
    if not common:
        raise NothingInCommon(f"{before.source} and {after.source} share no variant: "
                              "there is nothing to compare")
    confidence = after.confidence
    moves = tuple(_move(n, before.variants[n], after.variants[n], confidence, tolerance,
                        only_significant) for n in common)
    a, b = before.pooled(common), after.pooled(common)
    overall = newcombe(b.passes, b.scored, a.passes, a.scored, confidence) \
        if a.scored and b.scored else None
    notes = [v.note for v in (before, after) if v.note]
    notes += [f"{v.source} is from an interrupted suite" for v in (before, after)
              if v.interrupted]
    return Comparison(before, after, moves, overall, tuple(_differences(before, after)),
                      tuple(notes))
