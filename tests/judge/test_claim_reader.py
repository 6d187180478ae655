"""The shared claim reader: every form agents write, the unreadable rule, and properties
over a grammar of lists, marks, dashes, parentheses, tables, headings and JSON lines."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from ajantik_cdp.core.scoring.verdicts import Said
from ajantik_cdp.judge.claims import Claim, normalise, read_claim, read_claims
from tests.judge.claim_forms import (
    CHECKBOX_FORM,
    NAMED_FORMS,
    UNITS,
    Claims,
    claim_line,
    claims_st,
    report,
)
from tests.support.examples import examples

D, N, U = Said.DONE, Said.NOT_DONE, Said.UNSURE
MIXED: Claims = {"R-101": D, "R-102": N, "R-103": U}
PROPERTY = examples(300, suppress_health_check=[HealthCheck.too_slow])


def said(text: str, units: tuple[str, ...] = UNITS) -> dict[str, Said]:
    return {u: c.said for u, c in read_claims(text, units).items()}


@pytest.mark.parametrize("form", list(NAMED_FORMS))
@pytest.mark.parametrize("claims", [MIXED, {"R-101": N, "R-102": D, "R-103": D},
                                    {"R-103": U, "R-101": D, "R-102": N}])
def test_every_named_form_is_read_back_exactly(form: str, claims: Claims) -> None:
    text = NAMED_FORMS[form](claims)
    got = read_claims(text, UNITS)
    assert {u: c.said for u, c in got.items()} == claims, text
    for unit, claim in got.items():
        assert claim.quote and claim.quote in text
        assert claim.form
        # The quote is the text that was read: it names the unit.
        assert unit.casefold() in normalise(claim.quote).casefold()


def test_there_are_at_least_ten_forms_beyond_the_issues_five() -> None:
    assert len(NAMED_FORMS) - 5 >= 10


def test_checkboxes() -> None:
    claims = {"R-101": D, "R-102": N, "R-103": D}
    assert said(CHECKBOX_FORM(claims)) == claims


@pytest.mark.parametrize(("text", "expected"), [
    ("R-101: done\nR-102: done — but the upload failed", {"R-101": D, "R-102": D}),
    ("R-102: done?", {"R-102": U}),
    ("R-102: done except the accounts upload", {"R-102": N}),
    ("R-102: almost done", {"R-102": N}),
    ("R-102 isn't done", {"R-102": N}),
    ("R-102 is not sure", {"R-102": U}),
    ("R-102: partially done", {"R-102": N}),
    ("Summary: 2 done (R-101, R-103), 1 not done (R-102)", {"R-101": D, "R-102": N,
                                                            "R-103": D}),
    ("R-101, R-103 (Northwind Trading Ltd): done; R-102 – not done",
     {"R-101": D, "R-102": N, "R-103": D}),
    ("Completed: R-101 and R-103. Failed: R-102.", {"R-101": D, "R-102": N, "R-103": D}),
    ("<b>R-101</b>: <i>done</i>", {"R-101": D}),
    ("[R-101](http://127.0.0.1:8765/filings/R-101/review): done", {"R-101": D}),
    ("| Record | Done? |\n|---|---|\n| R-101 | yes |\n| R-102 | no |",
     {"R-101": D, "R-102": N}),
    ("R-1010: not done\nR-101: done", {"R-101": D}),
    ("- R-101 — Done: no — the upload is missing\n- R-102 — Complete: yes",
     {"R-101": N, "R-102": D}),
    ("R-101: done: no errors", {"R-101": D}),
    ('{"units": [{"unit": "R-101", "status": "done"}, {"id": "R-102", "status": "failed"}]}',
     {"R-101": D, "R-102": N}),
    ('\ufeff{"units": {"R-101": "done"}}', {"R-101": D}),
])
def test_more_forms(text: str, expected: dict[str, Said]) -> None:
    units = tuple(expected)
    assert said(text, units) == expected


# -- the unreadable rule ------------------------------------------------------------------


@pytest.mark.parametrize(("text", "why"), [
    ("I think everything went fine with R-101.", "mentions R-101"),
    ("R-101: submitted for review", "mentions R-101"),
    ("R-101: the upload is done but the declaration is not", "mentions R-101"),
    ("✅ R-101: not done", "contradict"),
    ("R-101: DONE ❌", "contradict"),
    ("R-101: done\n\nLater: R-101: not done", "done (line 1) and not done (line 3"),
    ("| Record | Status |\n|---|---|\n| R-101 | ⚠️ see notes |", "status cell"),
    ('{"units": {"R-101": "maybe"}}', "gives R-101 'maybe'"),
    ('{"units": ["R-101"]}\nR-101: done', "JSON units line cannot be read"),
    ('{"units": {"R-101": "done"\nR-101: done', "not valid JSON"),
    ("### R-101\n- Status: with the operator for review", "status line"),
    ("R-101: failed: no", "answers a status with yes or no"),
])
def test_a_mention_it_cannot_read_is_unreadable_with_the_line_quoted(text: str,
                                                                      why: str) -> None:
    claim = read_claim(text, "R-101", UNITS)
    assert claim.said is Said.UNREADABLE, claim
    assert claim.reason.startswith("claim unreadable: ")
    assert why in claim.reason
    assert claim.quote and claim.quote in text


@pytest.mark.parametrize("text", ["R-101 : terminé", "Erledigt: R-101",
                                  "| R-101 | hecho |"])
def test_a_report_in_another_language_is_unreadable_and_says_why(text: str) -> None:
    claim = read_claim(text, "R-101", UNITS)
    assert claim.said is Said.UNREADABLE
    assert "status words are English only" in claim.reason
    assert "JSON units line" in claim.reason
    # ... and the JSON units line is the way out, whatever the prose's language.
    assert read_claim(text + '\n{"units": {"R-101": "done"}}', "R-101",
                      UNITS).said is Said.DONE


def test_a_unit_named_only_by_marks_is_never_found() -> None:
    assert read_claims("R-101: done", ("**", "R-101"))["**"].said is Said.SILENT


def test_silence_is_no_claim_and_says_why() -> None:
    assert read_claim("", "R-101").reason == ("no claim: the report is empty (the skill "
                                              "printed nothing)")
    claim = read_claim("All good!\n", "R-101", UNITS)
    assert claim == Claim.silent("no claim: the report does not mention R-101")
    assert not claim.said.is_claim


def test_the_structured_line_is_read_first_and_the_last_one_counts() -> None:
    text = ('R-101: not done\n{"units": {"R-101": "not_done"}}\n'
            'R-102: done\n{"status": "completed", "units": {"R-101": "done"}}\n')
    got = read_claims(text, ("R-101", "R-102"))
    assert got["R-101"].said is D and got["R-101"].form == "JSON units line"
    # A unit the JSON leaves out is read from the text.
    assert got["R-102"].said is D and got["R-102"].form == "line"


def test_a_multi_line_json_report_quotes_the_units_key_line() -> None:
    text = '{\n  "units": {\n    "R-101": "done",\n    "R-102": {"status": "failed"}\n  }\n}\n'
    got = read_claims(text, ("R-101", "R-102"))
    assert (got["R-101"].said, got["R-101"].quote) == (D, '"R-101": "done",')
    assert got["R-102"].said is N


# -- properties over the grammar ------------------------------------------------------------


@PROPERTY
@given(claims_st.flatmap(lambda c: st.tuples(st.just(c), report(c))))
def test_a_generated_report_is_read_back_exactly(case: tuple[Claims, str]) -> None:
    claims, text = case
    got = read_claims(text, UNITS)
    assert {u: c.said for u, c in got.items()} == claims, text
    for claim in got.values():
        assert claim.quote and claim.quote in text


@PROPERTY
@given(st.sampled_from(UNITS), st.sampled_from([D, N, U]), st.data())
def test_one_generated_line_amid_others_is_read_back(unit: str, claim_said: Said,
                                                     data: st.DataObject) -> None:
    line = data.draw(claim_line(unit, claim_said))
    text = f"Filing report\n{line}\nNothing was submitted.\n"
    assert read_claim(text, unit, UNITS).said is claim_said, line


@PROPERTY
@given(claims_st.flatmap(lambda c: st.tuples(st.just(c), report(c))),
       st.sets(st.sampled_from(UNITS), min_size=1, max_size=2))
def test_a_unit_the_report_leaves_out_is_silent(case: tuple[Claims, str],
                                                dropped: set[str]) -> None:
    claims, _ = case
    kept = {u: s for u, s in claims.items() if u not in dropped}
    text = NAMED_FORMS["plain (SKILL.md)"](kept) if kept else "nothing to report\n"
    got = read_claims(text, UNITS)
    for unit in dropped:
        assert got[unit].said is Said.SILENT


prose = st.sampled_from([
    "I believe {u} went fine.", "Worked on {u} for a while.", "{u} might be ok, not sure yet.",
    "Regarding {u}: the portal was slow and I am not certain what it holds.",
    "{u}'s upload probably landed.", "Check {u} yourself, please.",
])


@PROPERTY
@given(st.sampled_from(UNITS), prose)
def test_prose_about_a_unit_is_unreadable_never_unsure(unit: str, sentence: str) -> None:
    text = "Report\n" + sentence.format(u=unit) + "\n"
    claim = read_claim(text, unit, UNITS)
    assert claim.said is Said.UNREADABLE, text
    assert claim.quote == sentence.format(u=unit)


@examples(500)
@given(st.text(alphabet=st.sampled_from(list("R-10123 :|*`_()[]✅❌\n-—–donetaiuskrfl?.,{}\""
                                              "'"))))
def test_any_text_is_read_without_error_and_quoted_verbatim(text: str) -> None:
    for claim in read_claims(text, UNITS).values():
        assert claim.quote in text
        assert claim.said.is_claim == (claim.reason == "")
        if claim.said is Said.DONE:
            # Done is never read out of text that holds no done word or mark.
            folded = normalise(claim.quote).casefold()
            assert any(w in folded for w in ("done", "complete", "finished", "succe", "ok",
                                             "ready", "prepared", "✅", "✔", "✓", "☑", "🟢",
                                             "[x]", "yes", "true")), claim


def test_a_claim_is_read_next_to_its_unit_only() -> None:
    # Patterns look a bounded way from the unit: a hostile report (a long run of spaces
    # or dashes, which once made the patterns backtrack for minutes) is read quickly.
    # Any run of spaces is one space...
    assert read_claim("R-101" + " " * 5000 + "done", "R-101").said is Said.DONE
    # ...but a status far from its unit is not its claim.
    assert read_claim("R-101" + " -" * 5000 + " done", "R-101").said is Said.UNREADABLE
    assert read_claim("R-101" + " -" * 5000 + " x", "R-101").said is Said.UNREADABLE
    assert read_claim("| R-101 |" + " " * 5000 + "x |", "R-101").said is Said.UNREADABLE
    assert read_claim("R-101" + "|" * 100_000, "R-101").said is Said.UNREADABLE
    long_note = "R-101: done — " + "every section was saved and read back. " * 200
    assert read_claim(long_note, "R-101").said is Said.DONE
