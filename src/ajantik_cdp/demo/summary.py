"""The demo's outputs: the verdict matrix on the terminal, one HTML report, one JSON file."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from ajantik_cdp.core.run_gate import DEFAULT_POLICY
from ajantik_cdp.core.verdicts import Verdict
from ajantik_cdp.demo.plan import FAULT_PATTERN, Conclusion, RunOutcome, cell_text
from ajantik_cdp.judge.verdict_file import gate_data, unit_data
from ajantik_cdp.judge.verdict_page import Matrix, MatrixCell, Page, RunView
from ajantik_cdp.judge.verdict_table import VERDICT_STYLE

CAPTION = (f"Each fault fires on the first write matching {FAULT_PATTERN} (R-102's accounts "
           "upload). Verdicts come from each run's record; damage is shown next to the "
           "verdict. The gate column is the rule of ajantik test judge: a run passes only "
           "when every unit was scored and none is silent wrong or damaged.")


def _units(outcomes: list[RunOutcome]) -> list[str]:
    return [u.unit for u in outcomes[0].judgement.units] if outcomes else []


def matrix_table(outcomes: list[RunOutcome]) -> Table:
    table = Table(title="Verdict matrix", show_lines=False)
    table.add_column("skill", no_wrap=True)
    table.add_column("fault", no_wrap=True)
    for unit in _units(outcomes):
        table.add_column(unit, min_width=9)
    table.add_column("gate", no_wrap=True)
    for o in outcomes:
        cells: list[Text | str] = [o.spec.skill, o.spec.fault or "clean"]
        for unit in _units(outcomes):
            label, note = cell_text(o, unit)
            verdict = Verdict(label.replace(" ", "_"))
            text = Text(label.upper() if verdict is Verdict.SILENT_WRONG else label,
                        style=VERDICT_STYLE[verdict])
            if note:
                text.append(f" + {note}", style="bold red")
            cells.append(text)
        cells.append(gate_text(o))
        table.add_row(*cells)
    return table


def gate_text(o: RunOutcome) -> Text:
    gate = o.gate()
    if gate.passed:
        return Text("pass", style="green")
    return Text(f"FAIL ({gate.outcome.label})", style="bold red")


def demo_page(outcomes: list[RunOutcome], found: list[Conclusion], seconds: float) -> Page:
    units = _units(outcomes)
    rows = []
    for o in outcomes:
        cells = []
        for unit in units:
            label, note = cell_text(o, unit)
            cells.append(MatrixCell(label, "v-" + label.replace(" ", "_"),
                                    f"#{o.spec.slug}-{unit}", note))
        rows.append((o.spec.label, tuple(cells)))
    runs = tuple(
        RunView(o.spec.slug, o.spec.label, o.judgement, facts=(
            ("record", f"{o.spec.slug}/ajantik-cdp.jsonl"),
            ("portal agrees", "yes" if not o.disagreements else "; ".join(o.disagreements)),
            ("gate", o.gate().summary()),
            *((("skill error", o.skill_error),) if o.skill_error else ()),
        ))
        for o in outcomes)
    return Page(
        title="ajantik demo: two skills, four faults, verdicts from the record",
        intro=(f"{len(outcomes)} runs in {seconds:.0f}s. A blind skill trusts every answer "
               "the portal's page shows; a verifying skill reads its writes back. Each ran "
               "once clean and once per fault through a fresh guard; each run was judged "
               "from its own record only, then checked against the portal's own state."),
        matrix=Matrix(tuple(units), tuple(rows), CAPTION),
        runs=runs,
        conclusions=tuple((c.holds, c.text) for c in found),
    )


def demo_data(outcomes: list[RunOutcome], found: list[Conclusion],
              seconds: float) -> dict[str, Any]:
    return {
        "format": "ajantik-demo",
        "version": 2,  # 2: units as in ajantik-verdicts 2, and a gate per run
        "seconds": round(seconds, 1),
        "fault_pattern": FAULT_PATTERN,
        "conclusions": [{"holds": c.holds, "text": c.text} for c in found],
        "runs": [{
            "skill": o.spec.skill,
            "fault": o.spec.fault,
            "folder": o.spec.slug,
            "seconds": round(o.seconds, 1),
            "units": [unit_data(u) for u in o.judgement.units],
            "damage": [d.kind for d in o.judgement.damage],
            "gate": gate_data(o.gate(), DEFAULT_POLICY),
            "portal_disagreements": list(o.disagreements),
            "skill_error": o.skill_error,
        } for o in outcomes],
    }
