"""What ``ajantik gauntlet`` prints when a suite ends, and what ``compare`` prints."""

from __future__ import annotations

from rich.table import Table

from ajantik_cdp.gauntlet.score.comparison import Comparison
from ajantik_cdp.gauntlet.score.suite_summary import Summary


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:.0f}%"


def summary_table(s: Summary, repetitions: int) -> Table:
    t = Table(title=f"Reliability per variant (Wilson {s.confidence * 100:.0f}%)",
              title_justify="left")
    for col, justify in (("variant", "left"), ("kind", "left"), ("pass", "right"),
                         ("reliability", "right"), ("interval", "right"),
                         ("silent wrong", "right"), (f"pass^{repetitions}", "right"),
                         ("steps", "right"), ("left out", "right"), ("why not", "left")):
        t.add_column(col, justify=justify)  # type: ignore[arg-type]
    for v in s.variants:
        g = v.group
        r = g.reliability
        steps = "–" if g.median_steps is None else f"{g.median_steps:g}"
        if v.steps_ratio is not None and v.steps_ratio != 1:
            steps += f" ×{v.steps_ratio:.1f}"
        why = ", ".join(f"{k} {n}" for k, n in g.categories.items())
        t.add_row(v.variant + (" (flaky)" if v.flaky else ""), v.kind,
                  f"{g.passes}/{g.scored}", _pct(r.estimate if r else None),
                  "–" if r is None else f"{r.low * 100:.0f}–{r.high * 100:.0f}%",
                  str(g.silent_wrong), _pct(v.pass_k.get(repetitions)), steps,
                  str(g.excluded), why)
    o = s.overall
    r = o.reliability
    t.add_section()
    t.add_row("overall", "", f"{o.passes}/{o.scored}", _pct(r.estimate if r else None),
              "–" if r is None else f"{r.low * 100:.0f}–{r.high * 100:.0f}%",
              str(o.silent_wrong), _pct(s.pass_k.get(repetitions)),
              "–" if o.median_steps is None else f"{o.median_steps:g}", str(o.excluded), "")
    return t


def comparison_table(c: Comparison) -> Table:
    t = Table(title=f"{c.before.source} -> {c.after.source}", title_justify="left")
    for col in ("variant", "before", "after", "change (interval)", "silent wrong", "moved"):
        t.add_column(col)
    for m in c.moves:
        a, b = m.before, m.after
        before = f"{a.passes}/{a.scored}" if a else "–"
        after = f"{b.passes}/{b.scored}" if b else "–"
        change = "–" if m.change is None else (
            f"{m.change.estimate * 100:+.0f} pts ({m.change.low * 100:+.0f} to "
            f"{m.change.high * 100:+.0f})" + (" significant" if m.significant else ""))
        sw = f"{a.silent_wrong if a else '–'} -> {b.silent_wrong if b else '–'}"
        moved = "REGRESSED" if m.regressed else ("improved" if m.improved else "")
        if m.reasons and not m.regressed:
            moved = "; ".join(m.reasons)
        t.add_row(m.variant, before, after, change, sw, moved)
    return t
