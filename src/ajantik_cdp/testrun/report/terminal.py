"""The terminal side of a test: the plan before it runs, progress while it runs (a live
bar on a terminal, one line per finished run otherwise), the matrix and a summary per
fault kind at the end."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_cdp.core.scoring.verdicts import Verdict
from ajantik_cdp.judge.verdict_table import VERDICT_STYLE
from ajantik_cdp.live_bar import LiveBar
from ajantik_cdp.testrun.plan.run_plan import Plan
from ajantik_cdp.testrun.report.cells import cell_text
from ajantik_cdp.testrun.run.runner import JudgedRun, SkillTestResult
from ajantik_cdp.testrun.score.matrix import by_kind, interval_text, matrix


def plan_lines(plan: Plan, skill: str = "") -> list[str]:
    """The plan as a person reads it before saying yes."""
    who = f" of {skill}" if skill else ""
    out = [f"Write points{who} (from {plan.source}):"]
    for use in plan.points:
        writes = "? writes" if use.writes < 0 else counted(use.writes, "write")
        out.append(f"  {use.point.label:<52} {writes}")
    kinds = ", ".join(k.value for k in plan.kinds)
    live = len({r.point for r in plan.runs})
    out.append(f"Plan: {counted(len(plan.runs), 'run')} = {counted(live, 'write point')} x "
               f"{counted(len(plan.kinds), 'fault kind')} ({kinds}) x "
               f"{counted(plan.reps, 'rep')}, the fault on the {plan.at.text} write of its "
               "point")
    for s in plan.skipped:
        out.append(f"  not planned: {s.reason}")
    out.extend(f"  note: {n}" for n in plan.notes)
    reaching = plan.writes_reaching()
    if reaching is None:
        out.append("Writes that reach the real system: unknown (the adapter's list does not "
                   "say how many writes each point makes). Every write but the faulted one "
                   "really happens, once per run: use a test account.")
    else:
        sends = (", which phantom_failure sends too" if FaultKind.PHANTOM_FAILURE in {
            r.kind for r in plan.runs} else "")
        out.append(f"Writes that reach the real system: about {reaching} in all "
                   f"({plan.writes_per_run} per run, as in the clean run, less the faulted "
                   f"one{sends}). They really happen, once per run: use a test account.")
    return out


def run_line(r: JudgedRun) -> str:
    verdicts = ", ".join(f"{u.unit} {u.verdict.label}" for u in r.judgement.units)
    damage = (f"; damage: {', '.join(d.kind for d in r.judgement.damage)}"
              if r.judgement.damage else "")
    gate = "pass" if r.gate.passed else f"FAIL ({r.gate.outcome.label})"
    who = f"{r.test} · " if r.test else ""
    ended = r.skill.timed_out or r.skill.crashed
    return (f"{who}{r.planned.label}: {verdicts}{damage}; gate {gate}"
            f"{'; ' + ended if ended else ''} ({r.seconds:.1f}s)")


class RunProgress(LiveBar):
    """Implements the runner's Progress: a bar on a terminal, lines otherwise."""

    def __init__(self, console: Console, *, lines: bool | None = None) -> None:
        super().__init__("test run", console, lines=lines)

    def __enter__(self) -> RunProgress:
        self._open("clean run", None)
        return self

    def pause(self) -> None:
        """Take the live bar off the screen (to print the plan and ask)."""
        if self._bar is not None:
            self._bar.stop()

    def resume(self) -> None:
        if self._bar is not None:
            self._bar.start()

    def planned(self, result: SkillTestResult, total: int) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, total=total, description="faulted runs")

    def finished(self, run: JudgedRun, done: int, total: int) -> None:
        line = f"  [{done}/{total}] {run_line(run)}"
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done)
            self._bar.console.print(line, highlight=False, markup=False, soft_wrap=True)
        else:
            self.console.print(line, highlight=False, markup=False, soft_wrap=True)


def _verdict(v: Verdict | None, text: str) -> Text:
    if v is None:
        return Text(text, style="yellow")
    return Text(text.upper() if v is Verdict.SILENT_WRONG else text, style=VERDICT_STYLE[v])


def matrix_table(result: SkillTestResult) -> Table | None:
    if result.plan is None or not result.runs:
        return None
    units = [u.unit for u in (result.clean or result.runs[0]).judgement.units]
    rows = matrix([r.mark() for r in result.runs], units)
    title = f"Verdict matrix{': ' + result.test.name if result.test.name else ''}"
    table = Table(title=title, show_lines=result.plan.reps > 1)
    table.add_column("fault", no_wrap=True)
    table.add_column("write point")
    for unit in units:
        table.add_column(unit, min_width=10)
    table.add_column("gate", no_wrap=True)
    if result.clean is not None:
        clean = result.clean
        cells: list[Text | str] = ["clean", "-"]
        for unit in units:
            u = next(x for x in clean.judgement.units if x.unit == unit)
            cells.append(_verdict(u.verdict, u.verdict.label))
        cells.append(_gate(sum(r.gate.passed for r in [clean]), 1))
        table.add_row(*cells)
    for row in rows:
        cells = [row.kind.value, f"{row.point.label} (write {row.runs[0].run.write})"]
        for cell in row.cells:
            ct = cell_text(cell, result.plan.reps)
            text = _verdict(ct.verdict, ct.text)
            if ct.note:
                text.append(f" + {ct.note}", style="bold red" if cell.counted and any(
                    u.damage for u in cell.counted) else "dim")
            cells.append(text)
        cells.append(_gate(row.passed, len(row.runs)))
        table.add_row(*cells)
    return table


def _gate(passed: int, runs: int) -> Text:
    if passed == runs:
        return Text("pass" if runs == 1 else f"pass {passed}/{runs}", style="green")
    return Text("FAIL" if runs == 1 else f"FAIL {runs - passed}/{runs}", style="bold red")


def kinds_table(result: SkillTestResult) -> Table | None:
    if not result.runs:
        return None
    table = Table(title="Per fault kind (95% Wilson intervals)")
    for name in ("fault", "runs", "counted", "gate passes", "silent wrong units",
                 "runs with damage"):
        table.add_column(name, no_wrap=True)
    for s in by_kind(r.mark() for r in result.runs):
        table.add_row(s.kind.value, str(s.runs), str(s.counted),
                      f"{s.passed}/{s.counted} {interval_text(s.pass_interval())}",
                      f"{s.silent_wrong}/{s.units} {interval_text(s.silent_wrong_interval())}",
                      str(s.damaged_runs))
    return table


def print_result(console: Console, result: SkillTestResult) -> None:
    for table in (matrix_table(result), kinds_table(result)):
        if table is not None:
            console.print(table)
