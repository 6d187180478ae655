"""The suite's HTML report: one file, built from the results data.

Inline CSS, a few lines of inline script, screenshots as inline PNGs; no font, no image
and no script from anywhere else, so the page opens offline and can be attached to a
ticket. A filmed suite's runs each have a player whose frames are linked from
``runs/<run id>/film/`` beside the page (embedded, thirty runs of frames would make it
too big to open): the page shows them while it stays beside its ``runs/`` folder.

It leads with how often the shop was done right, then the rate matrix (reliability and
silent failure rate side by side, each with its interval), the outcomes on the ladder,
the failure categories and every run, each one clickable down to its steps, its claim,
the state diff, the shop's action log and its end-of-run screenshot.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ajantik_cdp.gauntlet.report.figures import interval_from, pct, rate_text, span
from ajantik_cdp.gauntlet.score.classifier import CATEGORIES, RULES
from ajantik_cdp.gauntlet.score.run_outcome import LADDER, LEFT_OUT
from ajantik_cdp.html_pages import render_page_template

MAX_STATE_TEXT = 20_000
PASSES = {"done_right": "yes", "honest_failure": "only where the task cannot be done"}

@dataclass(frozen=True)
class Chip:
    run_id: str
    css: str
    mark: str
    title: str


def css_of(run: Mapping[str, Any]) -> str:
    return "ok" if run["passed"] else ("bad" if run["counted"] else "out")


def tag_of(run: Mapping[str, Any]) -> str:
    return "pass" if run["passed"] else ("FAIL" if run["counted"] else "left out")


def _show(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return ", ".join(f"{v} × {k}" for k, v in value.items()) or "empty"
    return str(value)


def _chips(data: Mapping[str, Any]) -> dict[str, list[Chip]]:
    chips: dict[str, list[Chip]] = {}
    marks = {"ok": "✓", "bad": "✗", "out": "–"}
    for run in data["runs"]:
        title = f"{run['run_id']}: {tag_of(run)}, {run['outcome'].replace('_', ' ')}"
        if run.get("category") and run["category"] != run["outcome"]:
            title += f" ({run['category']}: {run['rule']})"
        if run.get("fault_fired") is False and run["outcome"] != "fault_did_not_fire":
            title += ", fault did not fire"
        css = css_of(run)
        chips.setdefault(run["variant"], []).append(Chip(run["run_id"], css, marks[css],
                                                         title))
    return chips


def _category_rows(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for run in data["runs"]:
        cat = run.get("category")
        if not cat:
            continue
        row = rows.setdefault(cat, {"category": cat, "meaning": CATEGORIES.get(cat, ""),
                                    "rules": {}, "runs": []})
        row["rules"][run["rule"]] = row["rules"].get(run["rule"], 0) + 1
        row["runs"].append(run["run_id"])
    order = list(CATEGORIES)
    return sorted(rows.values(), key=lambda r: order.index(r["category"])
                  if r["category"] in order else 99)


def _state_json(state: Any) -> str:
    import orjson

    text = orjson.dumps(state, option=orjson.OPT_INDENT_2).decode() if state else ""
    return text if len(text) <= MAX_STATE_TEXT else text[:MAX_STATE_TEXT] + "\n…"


def _rate(k: int, n: int, data: Mapping[str, Any] | None) -> dict[str, str]:
    """A rate as the terminal prints it, and in two parts for a narrow table cell."""
    r = interval_from(data)
    return {"text": rate_text(k, n, r), "count": f"{k}/{n}",
            "pct": pct(r.estimate if r else None), "span": span(r)}


def _figures(g: Mapping[str, Any]) -> dict[str, Any]:
    n = g["scored"]
    left = [f"{g[k]} {what}" for k, what in (("infrastructure", "infrastructure"),
                                             ("not_fired", "fault did not fire")) if g[k]]
    return {
        "reliability": _rate(g["passes"], n, g["reliability"]),
        "silent_failures": _rate(g["silent_failures"], n, g["silent_failure_rate"]),
        "done_right": _rate(g["done_right"], n, g["done_right_rate"]),
        "left_out": ", ".join(left) or "0",
    }


def _headline(summary: Mapping[str, Any]) -> str:
    o = summary["overall"]
    if not o["scored"]:
        return "No run was scored."
    done = interval_from(o["done_right_rate"])
    return (f"The shop was done right in {o['done_right']} of {o['scored']} scored runs "
            f"({pct(done.estimate if done else None)}, interval {span(done)}).")


def page_data(data: Mapping[str, Any], screenshots: Mapping[str, bytes],
              films: Mapping[str, object] | None = None) -> dict[str, Any]:
    """``films``: each filmed run's player (``player.view.FilmView``), by run id."""
    summary = data["summary"]
    chips = _chips(data)
    runs = []
    for run in data["runs"]:
        ev = run["evidence"]
        png = screenshots.get(run["run_id"])
        runs.append({
            **run, "css": css_of(run), "tag": tag_of(run), "ev": ev,
            "actions": (ev.get("state") or {}).get("actions", []),
            "state_json": _state_json(ev.get("state")),
            "screenshot": base64.b64encode(png).decode() if png else None,
            "film": (films or {}).get(run["run_id"]),
        })
    variants = [{**v, "fig": _figures(v), "chips": chips.get(v["variant"], []),
                 "pass_k_last": list(v["pass_k"].values())[-1] if v["pass_k"] else None}
                for v in summary["variants"]]
    return {
        "d": data, "s": summary, "variants": variants, "runs": runs,
        "overall": _figures(summary["overall"]), "headline": _headline(summary),
        "ladder": [{"name": r.outcome.value, "label": r.outcome.label, "when": r.when,
                    "count": summary["overall"]["outcomes"].get(r.outcome.value, 0),
                    "left_out": r.outcome in LEFT_OUT,
                    "passes": PASSES.get(r.outcome.value, "no")} for r in LADDER],
        "categories": _category_rows(data),
        "rule_order": [r.name for r in RULES],
        "failed": [t for t in summary["thresholds"] if not t["met"]],
        "pct": pct, "show": _show, "k": data["suite"]["repetitions"],
        "filmed": any(r["film"] is not None for r in runs),
    }


def render_report(data: Mapping[str, Any], screenshots: Mapping[str, bytes],
                  films: Mapping[str, object] | None = None) -> str:
    return render_page_template("gauntlet/report/templates/report.html.j2",
                                **page_data(data, screenshots, films))
