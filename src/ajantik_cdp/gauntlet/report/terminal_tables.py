"""What ``ajantik gauntlet`` prints when a suite ends, and what ``compare`` prints."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich import box
from rich.table import Table

from ajantik_cdp.core.scoring.reliability_stats import wilson
from ajantik_cdp.gauntlet.report.figures import (
    headline,
    left_out_text,
    rate_text,
    steps_text,
)
from ajantik_cdp.gauntlet.score.comparison import Comparison
from ajantik_cdp.gauntlet.score.run_outcome import Outcome
from ajantik_cdp.gauntlet.score.scoring import Scored
from ajantik_cdp.gauntlet.score.suite_summary import Group, Summary

# The agent's own failures whose reason a person acts on (a missing import, a bad claim
# line); the table only counts them.
AGENT_FAILURES = (Outcome.AGENT_CRASHED, Outcome.NO_CLAIM)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:.0f}%"


def _why(g: Group, flaky: bool = False) -> str:
    return ", ".join((["flaky"] if flaky else [])
                     + [f"{k} {n}" for k, n in g.categories.items()])


CAPTION = ("Rates are over scored runs. Silent failures: damage + silent wrong outcomes. "
           "Steps: median of passing runs; (n) when none passed, of the scored runs. "
           "Left out of every rate: infra (the harness could not judge), not fired (no "
           "write matched the fault).")


def summary_table(s: Summary, repetitions: int) -> Table:
    t = Table(title=f"Per variant (Wilson {s.confidence * 100:.0f}% intervals)",
              title_justify="left", box=box.SIMPLE_HEAD, caption=CAPTION,
              caption_justify="left", pad_edge=False)
    for col, justify in (("variant", "left"), ("kind", "left"),
                         ("reliability", "right"), ("silent\nfailures", "right"),
                         ("silent\nwrong", "right"), ("done\nright", "right"),
                         (f"pass^{repetitions}", "right"), ("steps", "right"),
                         ("left out", "left"), ("why not", "left")):
        t.add_column(col, justify=justify)  # type: ignore[arg-type]
    for v in s.variants:
        g = v.group
        t.add_row(v.variant, v.kind,
                  rate_text(g.passes, g.scored, g.reliability),
                  rate_text(g.silent_failures, g.scored, g.silent_failure_rate),
                  str(g.silent_wrong), f"{g.done_right}/{g.scored}",
                  _pct(v.pass_k.get(repetitions)), steps_text(g, v.steps_ratio),
                  left_out_text(g, short=True), _why(g, v.flaky))
    o = s.overall
    t.add_section()
    t.add_row("overall", "", rate_text(o.passes, o.scored, o.reliability),
              rate_text(o.silent_failures, o.scored, o.silent_failure_rate),
              str(o.silent_wrong), f"{o.done_right}/{o.scored}",
              _pct(s.pass_k.get(repetitions)), steps_text(o, None),
              left_out_text(o, short=True), "")
    return t


def summary_headline(s: Summary) -> str:
    return headline(s.overall, s.confidence)


def agent_failure_lines(runs: Sequence[Scored], limit: int = 3) -> list[str]:
    """The commonest reasons the agent itself failed, one line each, most runs first:
    "agent crashed in 10 runs: exited with code 1 and no claim: ModuleNotFoundError..."."""
    seen = Counter((r.outcome, r.decision.reason) for r in runs if r.outcome in AGENT_FAILURES)
    return [f"{o.label} in {n} run{'s' if n != 1 else ''}: {reason}"
            for (o, reason), n in seen.most_common(limit)]


def _rate(k: int, n: int, confidence: float) -> str:
    return rate_text(k, n, wilson(k, n, confidence))


def comparison_table(c: Comparison) -> Table:
    conf = c.after.confidence
    t = Table(title=f"{c.before.source} -> {c.after.source} (Wilson {conf * 100:.0f}% "
              "intervals)", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("variant", "before", "after", "change (interval)", "silent failures",
                "silent\nwrong", "moved"):
        t.add_column(col)
    for m in c.moves:
        a, b = m.before, m.after
        change = "–" if m.change is None else (
            f"{m.change.estimate * 100:+.0f} pts ({m.change.low * 100:+.0f} to "
            f"{m.change.high * 100:+.0f})" + (" significant" if m.significant else ""))
        moved = "REGRESSED" if m.regressed else ("improved" if m.improved else "")
        if m.reasons and not m.regressed:
            moved = "; ".join(m.reasons)
        if b.not_fired or a.not_fired:
            moved = "; ".join(x for x in (moved, f"not fired {a.not_fired} -> {b.not_fired}")
                              if x)
        t.add_row(m.variant, _rate(a.passes, a.scored, conf), _rate(b.passes, b.scored, conf),
                  change, f"{a.silent_failures}/{a.scored} -> "
                  f"{_rate(b.silent_failures, b.scored, conf)}",
                  f"{a.silent_wrong} -> {b.silent_wrong}", moved)
    return t
