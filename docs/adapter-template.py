"""Adapter template for `ajantik test judge` (docs/adapter.md explains each part).

Copy this file next to your skill as adapter.py and change what the comments point at.
As it stands it judges a skill whose task is to set the status of a few records through

    PUT  /api/records/<id>               body {"status": ...}   answer {"record": {...}}
    GET  /api/records/<id>                                      answer {"record": {...}}
    POST /api/records/<id>/attachments   body {"name": ...}     answer {"attachment": {...}}

and whose final report says, per record, "done", "not done" or "unsure" (in any form the
shared claim reader knows: "A-1: done — ...", "- **A-1** – not done", a markdown table,
or one JSON line {"units": {"A-1": "done"}}; docs/adapter.md lists them). Run it with:

    ajantik test judge --adapter adapter.py --record ajantik-cdp.jsonl --message report.txt
"""

from __future__ import annotations

import re
from typing import Any

from ajantik_cdp.judge import Claim, Damage, Held, Record, Report, Unreadable, cite, read_claim

# CHANGE: the units of work and what "done right" means for each, usually read from the
# same task file the skill was given (json.loads(Path(__file__).with_name(...).read_text())).
TASK: dict[str, dict[str, Any]] = {
    "A-1": {"status": "approved"},
    "A-2": {"status": "approved"},
}


def units(record: Record, report: Report) -> list[str]:
    """Which units the work is about. Judge every unit the skill was asked to do, not
    only those it touched: a unit it skipped must still get a verdict."""
    return list(TASK)


def held(unit: str, record: Record) -> Held:
    """What the system holds for ``unit``, from the system's own answers in the record."""
    state: dict[str, Any] | None = None
    cannot_tell: str | None = None
    evidence = []
    # CHANGE: the requests that read or change this unit.
    for ex in record.exchanges(path=rf"^/api/records/{re.escape(unit)}$"):
        evidence.append(ex)
        if ex.reached == "no":
            continue  # a fault answered it; the system never saw it
        if ex.reached == "unknown":
            if ex.is_write:  # sent, no answer: it may or may not have landed
                cannot_tell = f"{ex.describe()} was sent but no answer came back" + (
                    f" (its answer was lost: {ex.lost})" if ex.lost else "")
            continue
        if ex.answered_ok:
            try:
                # CHANGE: where the unit's state is in the answer.
                state = ex.answer_json()["record"]
            except Unreadable as exc:
                # Withheld by redaction, lost, or not JSON: this answer cannot show the
                # state, but a later one can, so only the last word makes it unscorable.
                cannot_tell = f"{ex.describe()}: {exc}"
                continue
            cannot_tell = None  # a later answer shows the state after that write
    if cannot_tell is not None:
        return Held.unknown(cannot_tell, evidence)
    if state is None:
        return Held.unknown(f"the record holds no answer from the system about {unit}",
                            evidence)
    return Held.known(state, evidence)


def done_right(unit: str, holds: Any) -> list[str]:
    """What is wrong with the unit as the system holds it; [] means done right."""
    want = TASK[unit]
    return [f"{key} is {holds.get(key)!r}, the task says {value!r}"
            for key, value in want.items() if holds.get(key) != value]


def claim(unit: str, report: Report) -> Claim:
    """What the report claims for ``unit``, with the words it used (quoted verbatim).

    The shared reader finds the claim in plain lines, lists, bold or code marks, tables,
    headings with a "Status:" line, or a JSON units line. A unit it cannot read comes
    back unreadable (unscorable, the line quoted), never as "unsure"."""
    # CHANGE: only if your skill's report names units differently from TASK's keys.
    return read_claim(report.text, unit, list(TASK))


def damage(record: Record) -> list[Damage]:
    """Optional. Harm left behind whatever the verdicts: here, an attachment that landed
    twice (a skill that retried a create whose first answer it did not trust)."""
    found = []
    for unit in TASK:
        landed: dict[str, list[Any]] = {}
        for ex in record.exchanges(method="POST",
                                   path=rf"^/api/records/{re.escape(unit)}/attachments$"):
            if ex.answered_ok:
                landed.setdefault(ex.sent_json()["name"], []).append(ex)
        for name, writes in landed.items():
            if len(writes) > 1:
                found.append(Damage("duplicate", f"{unit} holds {name} {len(writes)} times",
                                    unit, cite(writes)))
    return found
