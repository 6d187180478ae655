"""The suite's HTML report: one self-contained file, built from the results data.

Inline CSS, a few lines of inline script, screenshots as inline PNGs; no font, no image
and no script from anywhere else, so the page opens offline and can be attached to a
ticket. It shows the rate matrix, the failure categories and every run, each one
clickable down to its steps, its claim, the state diff, the shop's action log and its
end-of-run screenshot.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ajantik_cdp.gauntlet.score.classifier import CATEGORIES, RULES
from ajantik_cdp.html_pages import render_page_template

MAX_STATE_TEXT = 20_000


@dataclass(frozen=True)
class Chip:
    run_id: str
    outcome: str
    title: str


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:.0f}%"


def _interval(r: Mapping[str, float] | None) -> str:
    return "–" if r is None else f"{r['low'] * 100:.0f}–{r['high'] * 100:.0f}%"


def _show(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return ", ".join(f"{v} × {k}" for k, v in value.items()) or "empty"
    return str(value)


def _css(outcome: str) -> str:
    return {"pass": "ok", "fail": "bad", "excluded": "out"}.get(outcome, "out")


def _chips(data: Mapping[str, Any]) -> dict[str, list[Chip]]:
    chips: dict[str, list[Chip]] = {}
    for run in data["runs"]:
        title = f"{run['run_id']}: {run['outcome']}, {run['verdict'].replace('_', ' ')}"
        if run.get("category"):
            title += f" ({run['category']}: {run['rule']})"
        chips.setdefault(run["variant"], []).append(Chip(run["run_id"], run["outcome"], title))
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


def page_data(data: Mapping[str, Any], screenshots: Mapping[str, bytes]) -> dict[str, Any]:
    summary = data["summary"]
    runs = []
    for run in data["runs"]:
        ev = run["evidence"]
        png = screenshots.get(run["run_id"])
        runs.append({
            **run, "css": _css(run["outcome"]), "ev": ev,
            "actions": (ev.get("state") or {}).get("actions", []),
            "state_json": _state_json(ev.get("state")),
            "screenshot": base64.b64encode(png).decode() if png else None,
        })
    variants = [{**v, "rate": _pct((v["reliability"] or {}).get("estimate")
                                   if v["reliability"] else None),
                 "interval": _interval(v["reliability"]),
                 "chips": _chips(data).get(v["variant"], []),
                 "pass_k_last": list(v["pass_k"].values())[-1] if v["pass_k"] else None}
                for v in summary["variants"]]
    overall = summary["overall"]
    return {
        "d": data, "s": summary, "variants": variants, "runs": runs,
        "overall_rate": _pct((overall["reliability"] or {}).get("estimate")
                             if overall["reliability"] else None),
        "overall_interval": _interval(overall["reliability"]),
        "categories": _category_rows(data),
        "rule_order": [r.name for r in RULES],
        "failed": [t for t in summary["thresholds"] if not t["met"]],
        "pct": _pct, "show": _show, "k": data["suite"]["repetitions"],
    }


def render_report(data: Mapping[str, Any], screenshots: Mapping[str, bytes]) -> str:
    return render_page_template("gauntlet/report/templates/report.html.j2",
                                **page_data(data, screenshots))
