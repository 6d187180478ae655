"""The forms agents write their per-unit claims in: named examples, and a Hypothesis
grammar of lists, marks, dashes, parentheses, tables, headings and JSON lines.

Every generator renders a known ``{unit: Said}`` into a report, so a test can check that
the claim reader reads back exactly what was written. Notes after a status may say
anything a real note says ("not uploaded", "failed once", "done?" in the middle) but never
name a unit and never start with words that change the claim ("except", "?").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from ajantik_cdp.core.scoring.verdicts import Said

Claims = dict[str, Said]
UNITS = ("R-101", "R-102", "R-103")
COMPANY = {"R-101": "Northwind Trading Ltd, FY2023", "R-102": "Bluebird Studio Ltd, FY2024",
           "R-103": "Northwind Trading Ltd, FY2024"}
WORD = {Said.DONE: "done", Said.NOT_DONE: "not done", Said.UNSURE: "unsure"}
JSON_WORD = {Said.DONE: "done", Said.NOT_DONE: "not_done", Said.UNSURE: "unsure"}
NOTE = {Said.DONE: "every section and document read back as asked",
        Said.NOT_DONE: "the accounts upload is not held (HTTP 500, retried once)",
        Said.UNSURE: "could not read the filing back; it may or may not be done"}


def _lines(claims: Claims, line: Callable[[str, Said], str], head: str = "FILING REPORT",
           ) -> str:
    return "\n".join([head, *(line(u, s) for u, s in claims.items())]) + "\n"


def _table(claims: Claims) -> str:
    rows = [f"| {u} | {COMPANY[u]} | {WORD[s]} | {NOTE[s]} |" for u, s in claims.items()]
    return "\n".join(["Filing report:", "", "| Record | Company | Status | Notes |",
                      "|---|---|---|---|", *rows]) + "\n"


def _status_first(claims: Claims) -> str:
    parts = []
    for said in (Said.DONE, Said.NOT_DONE, Said.UNSURE):
        units = [u for u, s in claims.items() if s is said]
        if units:
            parts.append(f"{WORD[said].capitalize()}: {', '.join(units)}.")
    return " ".join(parts) + "\n"


def _headings(claims: Claims) -> str:
    out = ["# Filing report", ""]
    for u, s in claims.items():
        out += [f"### {u} ({COMPANY[u]})", f"- **Status:** {WORD[s]}", f"- Notes: {NOTE[s]}",
                ""]
    return "\n".join(out)


def _transposed(claims: Claims) -> str:
    units = list(claims)
    return "\n".join(["| | " + " | ".join(units) + " |",
                      "|---" * (len(units) + 1) + "|",
                      "| Status | " + " | ".join(WORD[claims[u]] for u in units) + " |"]) + "\n"


def _json(claims: Claims) -> str:
    units = {u: JSON_WORD[s] for u, s in claims.items()}
    return ("I filed what I could; details above.\n"
            + json.dumps({"status": "completed", "summary": "see units", "units": units})
            + "\n")


def _checkboxes(claims: Claims) -> str:
    assert Said.UNSURE not in claims.values(), "a checkbox cannot say unsure"
    return "\n".join(f"- [{'x' if s is Said.DONE else ' '}] {u} — {NOTE[s]}"
                     for u, s in claims.items()) + "\n"


EMOJI = {Said.DONE: "✅", Said.NOT_DONE: "❌", Said.UNSURE: "❓"}

# The five forms first, then the SKILL.md plain form, the JSON line, and more.
NAMED_FORMS: dict[str, Callable[[Claims], str]] = {
    "numbered list": lambda c: _lines(c, lambda u, s: f"{list(c).index(u) + 1}. {u}: "
                                      f"{WORD[s]} — {NOTE[s]}"),
    "bold bullets": lambda c: _lines(c, lambda u, s: f"- **{u}**: {WORD[s]}"),
    "en dash": lambda c: _lines(c, lambda u, s: f"{u} – {WORD[s]}"),
    "company in parentheses": lambda c: _lines(c, lambda u, s: f"{u} ({COMPANY[u]}): "
                                               f"{WORD[s]}"),
    "markdown table": _table,
    "plain (SKILL.md)": lambda c: _lines(c, lambda u, s: f"{u}: {WORD[s]} — {NOTE[s]}"),
    "JSON units line": _json,
    # Beyond the forms: each one is a way agents were seen to write.
    "code marks, upper case": lambda c: _lines(c, lambda u, s: f"* `{u}` — {WORD[s].upper()}"),
    "bold label with colon inside": lambda c: _lines(c, lambda u, s: f"**{u}:** {WORD[s]}"),
    "emoji before the unit": lambda c: _lines(c, lambda u, s: f"- {EMOJI[s]} **{u}** — "
                                              f"{NOTE[s]}"),
    "non-breaking hyphens": lambda c: _lines(c, lambda u, s: f"{u.replace('-', chr(0x2011))}"
                                             f" — {WORD[s]}"),
    "status first, several units a line": _status_first,
    "heading with a Status line": _headings,
    "units as table columns": _transposed,
    "prose copula": lambda c: _lines(c, lambda u, s: f"{u} is {WORD[s]}.", head="Summary"),
    "arrow and lower case": lambda c: _lines(c, lambda u, s: f"{u.lower()} → {WORD[s]}"),
    "italic, em dash, no spaces": lambda c: _lines(c, lambda u, s: f"_{u}_—{WORD[s]}"),
}
# Forms that cannot say every claim.
CHECKBOX_FORM = _checkboxes


# -- the grammar -------------------------------------------------------------------------

SAID_SPELLINGS = {
    Said.DONE: ["done", "Done", "DONE", "completed", "Complete", "finished", "✅ done",
                "✅", "done ✅", "ok", "successfully completed", "all done"],
    Said.NOT_DONE: ["not done", "Not done", "NOT DONE", "failed", "incomplete", "❌ not done",
                    "❌", "not-done", "skipped", "blocked", "not completed", "partially done",
                    "almost done", "pending", "in progress"],
    Said.UNSURE: ["unsure", "Unsure", "UNSURE", "unknown", "unverified", "not sure", "❓",
                  "not verified", "uncertain"],
}
STATUS_FIRST = {"done", "Done", "DONE", "completed", "Complete", "finished", "✅", "ok",
                "not done", "Not done", "NOT DONE", "failed", "incomplete", "❌", "skipped",
                "blocked", "pending", "unsure", "Unsure", "unknown", "unverified", "not sure",
                "❓"}
# Notes start with a separator and hold no unit and no claim-changing opener.
NOTES = ["", " — every section saved", " – the upload failed (HTTP 500)",
         ": read back from the review page", " - not uploaded yet, see the log",
         " (the registry may not hold it)", "; done or not done, the page said Saved",
         " — failed once, then retried: done", ". Nothing was submitted."]
MARKERS = ["", "- ", "* ", "+ ", "• ", "1. ", "2) ", "(3) ", "> ", "a) ", "  - "]
SEPARATORS = [": ", ":", " : ", " - ", " – ", " — ", "—", " ― ", " − ", " = ", " => ",
              " -> ", " → ", " | ", "：", " ", " is ", " was ", " has been ", " status: ",
              " — status: "]
PARENS = ["", " (Northwind Trading Ltd, FY2023)", " [FY2024]", " (Bluebird Studio Ltd)",
          " (filing for FY2024, 3 sections)"]
HYPHENS = ["-", "\u2011", "\u2010", "\u2013"]


def _spell_unit(draw: st.DrawFn, unit: str) -> str:
    text = unit.replace("-", draw(st.sampled_from(HYPHENS)))
    return draw(st.sampled_from([text, text.lower()]))


def _mark(draw: st.DrawFn, text: str) -> str:
    mark = draw(st.sampled_from(["", "**", "*", "`", "__", "_", "~~"]))
    if mark == "~~":
        return text  # strike-through would say the opposite; not a mark to test with
    return f"{mark}{text}{mark}"


@st.composite
def claim_line(draw: st.DrawFn, unit: str, said: Said) -> str:
    """One line claiming ``said`` for ``unit``: unit first or status first."""
    marker = draw(st.sampled_from(MARKERS))
    name = _mark(draw, _spell_unit(draw, unit))
    status = _mark(draw, draw(st.sampled_from(SAID_SPELLINGS[said])))
    note = draw(st.sampled_from(NOTES))
    if draw(st.booleans()):
        paren = draw(st.sampled_from(PARENS))
        sep = draw(st.sampled_from(SEPARATORS))
        if sep.strip() in ("is", "was", "has been") and status.startswith(("*", "_", "`")):
            sep = ": "  # "is **done**" reads fine, but keep copulas next to plain words
        return f"{marker}{name}{paren}{sep}{status}{note}"
    # Status first: one status token (no adverb, no second mark), as "Done: R-101".
    word = draw(st.sampled_from([w for w in SAID_SPELLINGS[said] if w in STATUS_FIRST]))
    status = _mark(draw, word)
    lead = " " if word in EMOJI.values() else draw(st.sampled_from([": ", " — ", " - "]))
    note = draw(st.sampled_from([n for n in NOTES if "failed once" not in n]))
    return f"{marker}{status}{lead}{name}{note}"


@st.composite
def grouped_line(draw: st.DrawFn, units: list[str], said: Said) -> str:
    """Several units sharing one claim: "R-101, R-103 (Northwind): done"."""
    joins = [", ", " and ", " & ", " / ", ", and "]
    names = [_mark(draw, _spell_unit(draw, u)) + draw(st.sampled_from(["", *PARENS[1:2]]))
             for u in units]
    text = names[0]
    for name in names[1:]:
        text += draw(st.sampled_from(joins)) + name
    status = draw(st.sampled_from(SAID_SPELLINGS[said]))
    return f"{draw(st.sampled_from(MARKERS))}{text}{draw(st.sampled_from([': ', ' — ']))}" \
           f"{status}{draw(st.sampled_from(NOTES))}"


@st.composite
def table(draw: st.DrawFn, claims: Claims) -> str:
    columns = draw(st.permutations(["unit", "company", "status", "notes"]))
    names = {"unit": draw(st.sampled_from(["Record", "Filing", "ID"])),
             "company": "Company",
             "status": draw(st.sampled_from(["Status", "Result", "Outcome", "State",
                                             "**Status**"])),
             "notes": draw(st.sampled_from(["Notes", "Details"]))}
    pipes = draw(st.booleans())
    align = draw(st.sampled_from(["---", ":---", ":---:", "–––", "-----"]))

    def row(cells: list[str]) -> str:
        body = " | ".join(cells)
        return f"| {body} |" if pipes else body

    out = [row([names[c] for c in columns]), row([align] * len(columns))]
    for unit, said in draw(st.permutations(list(claims.items()))):
        cell = {"unit": _mark(draw, _spell_unit(draw, unit)), "company": COMPANY[unit],
                "status": _mark(draw, draw(st.sampled_from(SAID_SPELLINGS[said]))),
                "notes": NOTE[said]}
        out.append(row([cell[c] for c in columns]))
    return "\n".join(out)


@st.composite
def json_line(draw: st.DrawFn, claims: Claims) -> str:
    spelled = {Said.DONE: ["done", "DONE", "completed"], Said.NOT_DONE: ["not_done",
               "not done", "failed"], Said.UNSURE: ["unsure", "Unsure"]}
    units: dict[str, Any] = {}
    for unit, said in claims.items():
        word = draw(st.sampled_from(spelled[said]))
        units[draw(st.sampled_from([unit, unit.lower()]))] = (
            {"status": word, "note": NOTE[said]} if draw(st.booleans()) else word)
    data: dict[str, Any] = {"units": units}
    if draw(st.booleans()):
        data = {"status": "completed", "summary": "filings prepared", **data}
    return json.dumps(data, ensure_ascii=draw(st.booleans()))


HEADS = ["", "FILING REPORT", "## Filing report", "Here is what I did:",
         "**Summary of the run**"]
TAILS = ["", "Nothing was submitted; submission is the operator's decision.",
         "Let me know if you want me to retry anything."]


@st.composite
def report(draw: st.DrawFn, claims: Claims) -> str:
    """A whole report saying exactly ``claims``, in one of the layouts agents use."""
    layout = draw(st.sampled_from(["lines", "lines", "grouped", "table", "headings",
                                   "json"]))
    items = draw(st.permutations(list(claims.items())))
    if layout == "lines":
        body = [draw(claim_line(u, s)) for u, s in items]
    elif layout == "grouped":
        body = []
        for said in (Said.DONE, Said.NOT_DONE, Said.UNSURE):
            units = [u for u, s in items if s is said]
            if len(units) > 1:
                body.append(draw(grouped_line(units, said)))
            elif units:
                body.append(draw(claim_line(units[0], said)))
    elif layout == "table":
        body = [draw(table(dict(items)))]
    elif layout == "headings":
        body = []
        for u, s in items:
            heading = draw(st.sampled_from(["### ", "## ", "**", ""]))
            close = "**" if heading == "**" else ""
            status = draw(st.sampled_from(SAID_SPELLINGS[s]))
            label = draw(st.sampled_from(["Status", "**Status**", "Outcome", "Result"]))
            body += [f"{heading}{u}{draw(st.sampled_from(PARENS))}{close}",
                     f"- {label}: {status}", f"- Notes: {NOTE[s]}", ""]
    else:
        body = [draw(st.sampled_from(["", "Done with the run."])), draw(json_line(dict(items)))]
    head = draw(st.sampled_from(HEADS))
    tail = draw(st.sampled_from(TAILS))
    return "\n".join(x for x in [head, *body, tail]) + draw(st.sampled_from(["\n", "", "\r\n"]))


claims_st = st.fixed_dictionaries({u: st.sampled_from([Said.DONE, Said.NOT_DONE, Said.UNSURE])
                                   for u in UNITS})
