"""The judge's terminal table: one row per unit, worst verdicts easy to spot."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.scoring.run_gate import GateResult
from ajantik_cdp.core.scoring.verdicts import Said, Verdict
from ajantik_cdp.judge.judging import Judgement, UnitResult

VERDICT_STYLE = {
    Verdict.CORRECT: "green",
    Verdict.SILENT_WRONG: "bold white on red",
    Verdict.REPORTED_HONESTLY: "cyan",
    Verdict.OVER_CAUTIOUS: "blue",
    Verdict.UNSCORABLE: "bold yellow",
}


def verdict_text(v: Verdict) -> Text:
    label = v.label.upper() if v is Verdict.SILENT_WRONG else v.label
    return Text(label, style=VERDICT_STYLE[v])


def line_ranges(numbers: tuple[int, ...]) -> str:
    """``(3, 4, 5, 9)`` as ``"3-5, 9"``."""
    spans: list[list[int]] = []
    for n in sorted(numbers):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans) or "none"


def _holds(u: UnitResult) -> Text:
    lines = line_ranges(u.held.evidence)
    n = len(u.held.evidence)
    cited = "no record line" if n == 0 else f"record line{'s' if n > 1 else ''} {lines}"
    if u.world.done_right is None:
        head = f"cannot tell: {u.world.reason}"
    elif u.world.done_right:
        head = "done right"
    else:
        head = "not done right: " + "; ".join(u.problems)
    # Text, not markup: record content may hold square brackets.
    return Text(head) + Text(f" ({cited})", style="dim")


def _said(u: UnitResult) -> Text:
    claim = u.claim
    quote = claim.quote.strip()
    if claim.said is Said.SILENT:
        return Text(f"no claim ({claim.reason})", style="yellow")
    if claim.said is Said.UNREADABLE:
        return Text(claim.reason, style="yellow") + Text(f'\n"{quote}"', style="dim")
    said = claim.said.value.replace("_", " ")
    form = Text(f" (from a {claim.form})", style="dim") if claim.form else Text("")
    return Text(f'{said}: "{quote}"') + form


def held_words(u: UnitResult) -> str:
    """What the system holds, as the table says it, in plain words (CI outputs)."""
    return _holds(u).plain


def said_words(u: UnitResult) -> str:
    return _said(u).plain


def judgement_table(j: Judgement, title: str | None = None) -> Table:
    table = Table(title=title, show_lines=True, expand=False)
    table.add_column("Unit", no_wrap=True)
    table.add_column("Verdict", no_wrap=True)
    table.add_column("System holds (from the record)", ratio=3)
    table.add_column("Skill said", ratio=3)
    table.add_column("Damage", ratio=2)
    unfired = j.record.fault_fired is False
    for u in j.units:
        damage = "\n".join(f"{d.kind}: {d.detail}" for d in u.damage) or "-"
        verdict = verdict_text(u.verdict)
        if unfired:
            verdict.append("\n(fault did not fire)", style="yellow")
        table.add_row(Text(u.unit), verdict, _holds(u), _said(u),
                      Text(damage, style="red" if u.damage else ""))
    return table


def summary_line(j: Judgement) -> str:
    counts = j.summary()
    parts = [f"{n} {name.replace('_', ' ')}" for name, n in counts.items() if n]
    unit_free = [d for d in j.damage if d.unit is None]
    damage = f"; {len(j.damage)} damage" if j.damage else "; no damage"
    extra = f" ({len(unit_free)} tied to no unit)" if unit_free else ""
    fault = ("; the fault never fired" if j.record.fault_fired is False else "")
    return f"{counted(len(j.units), 'unit')}: " + ", ".join(parts) + damage + extra + fault


def gate_line(gate: GateResult) -> Text:
    """The gate's verdict on the run, in one line."""
    if gate.passed:
        text = Text("gate: passes", style="green")
    elif not gate.counted:
        text = Text(f"gate: no pass ({gate.outcome.label})", style="bold yellow")
    else:
        text = Text(f"gate: FAILS ({gate.outcome.label})", style="bold red")
    if gate.failing:
        text.append(": " + "; ".join(gate.failing))
    if gate.allowed:
        # Each allowed item names itself ("1 unscorable", "the record is incomplete: ...").
        flags = [f for f, part in (("--allow-unscorable", " unscorable ("),
                                   ("--allow-incomplete-record", "record is incomplete"))
                 if any(part in a for a in gate.allowed)]
        text.append(f" [allowed by {' and '.join(flags) or 'the policy'}: "
                    f"{'; '.join(gate.allowed)}]", style="yellow")
    return text


def print_judgement(console: Console, j: Judgement, gate: GateResult) -> None:
    console.print(judgement_table(j))
    for d in j.damage:
        if d.unit is None:
            console.print(Text(f"damage ({d.kind}): {d.detail}", style="red"))
    console.print(Text(summary_line(j)))
    console.print(gate_line(gate))
