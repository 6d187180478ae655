"""``report.html``: one self-contained page for a test (or the demo's two): the plan, a
summary per fault kind with intervals, the matrix, and every run judged. Each cell links
to its run's verdicts in the page (with the record lines they rest on, embedded) and to
the run's own verdict page and record in its folder."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ajantik_cdp.html_pages import render_page_template
from ajantik_cdp.judge.verdict_file import InputFile, InputFiles
from ajantik_cdp.judge.verdict_page import RunView
from ajantik_cdp.testrun.plan.write_points import WritePoint
from ajantik_cdp.testrun.report.cells import cell_text
from ajantik_cdp.testrun.report.terminal import plan_lines
from ajantik_cdp.testrun.run.runner import (
    FILM,
    RECORD,
    JudgedRun,
    SessionResult,
    SkillTestResult,
    run_facts,
    run_film,
)
from ajantik_cdp.testrun.score.matrix import Cell, by_kind, interval_text, matrix


@dataclass(frozen=True)
class RunLink:
    label: str  # "run" or "rep 2"
    anchor: str  # the unit's row in this page
    page: str  # the unit's row in the run's own verdicts.html
    record: str  # the run's record file
    css: str


@dataclass(frozen=True)
class CellView:
    text: str
    css: str
    note: str
    links: tuple[RunLink, ...]


@dataclass(frozen=True)
class RowView:
    fault: str
    point: str
    cells: tuple[CellView, ...]
    gate: str
    gate_ok: bool


@dataclass(frozen=True)
class SkillTestView:
    name: str
    skill: str
    adapter: str
    stopped: str | None
    plan: tuple[str, ...]
    units: tuple[str, ...]
    rows: tuple[RowView, ...]
    kinds: tuple[tuple[str, ...], ...]
    runs: tuple[RunView, ...]


@dataclass(frozen=True)
class ReportPage:
    title: str
    intro: str
    status: str  # "complete", or why not
    conclusions: tuple[tuple[bool, str], ...]
    tests: tuple[SkillTestView, ...]

    @property
    def filmed(self) -> bool:
        """Whether any run has a player (the page then carries the player's script)."""
        return any(r.film is not None for t in self.tests for r in t.runs)


def _slug(r: JudgedRun) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", f"{r.test}-{r.planned.slug}" if r.test
                  else r.planned.slug)


def _link(r: JudgedRun, unit: str, label: str) -> RunLink:
    u = next((x for x in r.judgement.units if x.unit == unit), None)
    css = f"v-{u.verdict.value}" if u is not None else "v-unscorable"
    return RunLink(label, f"#{_slug(r)}-{unit}", f"{r.folder}/verdicts.html#run-{unit}",
                   f"{r.folder}/{RECORD}", css)


def _cell(cell: Cell, runs: list[JudgedRun], reps: int) -> CellView:
    ct = cell_text(cell, reps)
    by_number = {r.planned.number: r for r in runs}
    links = tuple(_link(by_number[m.run.number], cell.unit,
                        "run" if reps == 1 else f"rep {m.run.rep}")
                  for m, _ in cell.marks if m.run.number in by_number)
    css = f"v-{ct.verdict.value}" if ct.verdict else "v-unscorable"
    return CellView(ct.text, css, ct.note, links)


def _clean_row(r: JudgedRun, units: list[str]) -> RowView:
    cells = []
    for unit in units:
        u = next(x for x in r.judgement.units if x.unit == unit)
        damage = ", ".join(sorted({d.kind for d in u.damage}))
        cells.append(CellView(u.verdict.label, f"v-{u.verdict.value}", damage,
                              (_link(r, unit, "run"),)))
    return RowView("clean", "-", tuple(cells), r.gate.summary(), r.gate.passed)


def run_view(t: SkillTestResult, r: JudgedRun) -> RunView:
    folder = r.folder
    # Paths as the page's reader finds them: relative to the page.
    sources = InputFiles(InputFile(str(t.test.adapter.path), t.test.adapter.sha256),
                      _relative(r.judgement.record.path, f"{folder}/{RECORD}"),
                      _relative(r.judgement.report.path, f"{folder}/report.txt"))
    title = f"{t.test.name + ' · ' if t.test.name else ''}{r.planned.label}"
    return RunView(_slug(r), title, r.judgement, sources, t.test.options.policy,
                   (("folder", folder), *run_facts(r)), r.gate,
                   film=run_film(r, _slug(r), f"{folder}/{FILM}"))


def _relative(path: Path | None, shown: str) -> InputFile:
    return InputFile(shown, InputFile.of(path).sha256 if path is not None else "")


def test_view(t: SkillTestResult) -> SkillTestView:
    units = [u.unit for u in t.clean.judgement.units] if t.clean else []
    reps = t.plan.reps if t.plan else 1
    runs = sorted(t.runs, key=lambda r: r.planned.number)
    rows = [_clean_row(t.clean, units)] if t.clean else []
    for row in matrix([r.mark() for r in runs], units):
        cells = tuple(_cell(c, runs, reps) for c in row.cells)
        ok = row.passed == len(row.runs)
        gate = ("pass" if ok else "FAIL") + (f" {row.passed}/{len(row.runs)}" if reps > 1
                                             else "")
        rows.append(RowView(row.kind.value, _point(row.point, row.runs[0].run.write), cells,
                            gate, ok))
    kinds = tuple((s.kind.value, str(s.runs), str(s.counted),
                   f"{s.passed}/{s.counted} {interval_text(s.pass_interval())}",
                   f"{s.silent_wrong}/{s.units} {interval_text(s.silent_wrong_interval())}",
                   str(s.damaged_runs)) for s in by_kind(r.mark() for r in runs))
    return SkillTestView(
        name=t.test.name, skill=t.test.skill.label, adapter=str(t.test.adapter.path),
        stopped=t.stopped, plan=tuple(plan_lines(t.plan)) if t.plan else (),
        units=tuple(units), rows=tuple(rows), kinds=kinds,
        runs=tuple(run_view(t, r) for r in t.all_runs))


def _point(point: WritePoint, write: int) -> str:
    return f"{point.label} (write {write})"


def report_page(outcome: SessionResult, title: str, intro: str,
                conclusions: tuple[tuple[bool, str], ...] = ()) -> ReportPage:
    status = ("interrupted (Ctrl-C): the runs that finished are shown" if outcome.interrupted
              else "stopped before the faulted runs: the plan was declined"
              if outcome.declined else "")
    return ReportPage(title, intro, status, conclusions,
                      tuple(test_view(t) for t in outcome.tests))


def render_report(page: ReportPage) -> str:
    return render_page_template("testrun/report/templates/report.html.j2", page=page)
