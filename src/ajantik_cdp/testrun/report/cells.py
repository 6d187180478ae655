"""What a matrix cell says, in the terminal and in the page alike: the verdict (or the
count of each over repetitions), damage, runs that are no test of the cell, and the
held-up rate with its Wilson interval when there are repetitions."""

from __future__ import annotations

from dataclasses import dataclass

from ajantik_cdp.core.scoring.verdicts import VERDICT_ORDER, Verdict
from ajantik_cdp.testrun.score.matrix import Cell, Firing, interval_text


@dataclass(frozen=True)
class CellText:
    verdict: Verdict | None  # the worst verdict among counted runs (None: none counted)
    text: str  # "silent wrong", or "silent wrong 1/2, correct 1/2"
    note: str  # damage, runs not counted, the interval


def cell_text(cell: Cell, reps: int) -> CellText:
    counts = cell.verdicts()
    worst = next((v for v in VERDICT_ORDER if v in counts), None)
    n = len(cell.counted)
    if reps == 1 and len(cell.marks) == 1:
        text = worst.label if worst else "not counted"
    else:
        text = ", ".join(f"{v.label} {counts[v]}/{n}" for v in VERDICT_ORDER if v in counts)
        text = text or "not counted"
    notes = sorted({d for u in cell.counted for d in u.damage})
    not_counted = [r for r, u in cell.marks if not r.counted or u is None]
    for r in not_counted:
        why = ("fault did not fire" if r.firing is Firing.NOT_FIRED else
               "fault fired elsewhere" if r.firing is Firing.ELSEWHERE else r.outcome.label)
        notes.append(f"rep {r.run.rep}: {why}, not counted" if reps > 1 else
                     f"{why}, not counted")
    if reps > 1 and n:
        notes.append(f"held up {cell.held_up}/{n}: {interval_text(cell.interval())}")
    return CellText(worst, text, "; ".join(notes))
