"""Names and deny_clicks patterns folded before they meet (core/policy/name_folding.py):
what reads as the denied name is the denied name, under full Unicode case folding and
compatibility forms."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.click_patterns import (
    ClickPatternError,
    check_click_pattern,
    click_pattern_matches,
    compile_click_pattern,
)
from ajantik_cdp.core.policy.name_folding import _fold_text, fold_name, fold_pattern, fold_table
from tests.support.examples import examples

# Names a person reads as "Proceed to submission" (or "Zahlung abschließen").
SAME_NAME = [
    ("proceed to submission", "PROCEED TO SUBMİSSİON"),  # Turkish dotted capital I
    ("proceed to submission", "proceed to submıssıon"),  # Turkish dotless i
    ("proceed to submission", "proceed to ſubmiſſion"),  # long s
    ("proceed to submission", "ＰＲＯＣＥＥＤ ＴＯ ＳＵＢＭＩＳＳＩＯＮ"),  # fullwidth
    ("proceed to submission", "ᴾʳᵒᶜᵉᵉᵈ to submission"),  # modifier letters
    ("proceed to submission", "proceed\u00a0to sub\u00admission"),  # NBSP, soft hyphen
    ("proceed to submission", "proceed to subm\u200bission"),  # zero-width space
    ("proceed to submission", "𝐏𝐫𝐨𝐜𝐞𝐞𝐝 𝐭𝐨 𝐬𝐮𝐛𝐦𝐢𝐬𝐬𝐢𝐨𝐧"),  # mathematical bold
    ("zahlung abschließen", "ZAHLUNG ABSCHLIESSEN"),
    ("zahlung abschließen", "ZAHLUNG ABSCHLIEẞEN"),  # capital sharp s
    ("zahlung abschliessen", "Zahlung abschließen"),
    ("file now", "ﬁle now"),  # ligature
    ("ΟΔΟΣ", "οδος"),  # final sigma against capital sigma
    ("οδοσ", "ΟΔΟΣ"),
    ("café", "CAFE\u0301"),  # decomposed accent composes
]


@pytest.mark.parametrize(("pattern", "name"), SAME_NAME)
def test_a_name_that_reads_the_same_is_denied(pattern: str, name: str) -> None:
    assert click_pattern_matches(pattern, name)
    assert click_pattern_matches(pattern.upper(), name)


@pytest.mark.parametrize(("pattern", "name"), [
    ("proceed to submission", "Proceed to subscription"),
    ("^pay now$", "pay now later"),
    ("zahlung abschließen", "Zahlung abbrechen"),
])
def test_other_names_still_pass(pattern: str, name: str) -> None:
    assert not click_pattern_matches(pattern, name)


@pytest.mark.parametrize(("pattern", "folded"), [
    ("straße+", "strasse+"),  # the quantifier repeats the last character of the fold...
    ("straß+e", "stra(?:ss)+e"),  # ...or all of a character that folded into several
    ("（pay）", "\\(pay\\)"),  # fullwidth parentheses are literal, not a group
    ("pay …", "pay \\.\\.\\."),
    ("a(?:b|ß){2}", "a(?:b|ss){2}"),
    ("[ß]x", "[ß]x"),  # classes are left as written
    ("\\.ẞ", "\\.ss"),
    ("^PAY NOW$", "^pay now$"),
])
def test_fold_pattern_keeps_the_syntax(pattern: str, folded: str) -> None:
    check_click_pattern(pattern)
    assert fold_pattern(pattern) == folded


def test_the_fold_table_holds_what_lowercasing_misses() -> None:
    table = fold_table()
    assert table["ß"] == "ss" and table["ẞ"] == "ss" and table["ſ"] == "s"
    assert table["ς"] == "σ" and table["ﬁ"] == "fi"
    assert "A" not in table and "İ" not in table  # lowercasing has those right
    assert all(c.casefold() == f for c, f in table.items())


_NAMEISH = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                   max_size=12)


@examples(300)
@given(_NAMEISH)
def test_folding_is_idempotent(name: str) -> None:
    assert fold_name(fold_name(name)) == fold_name(name)


@examples(300)
@given(_NAMEISH)
def test_case_does_not_change_a_fold(name: str) -> None:
    # Upper-casing can turn one character into several (ß into SS): still the same fold.
    assert fold_name(name.upper()) == fold_name(name) == fold_name(name.lower())


def test_case_does_not_change_the_fold_of_any_character() -> None:
    assert [c for c in map(chr, range(0x30000)) if not 0xD800 <= ord(c) <= 0xDFFF
            and not fold_name(c.upper()) == fold_name(c) == fold_name(c.lower())] == []


@examples(300)
@given(_NAMEISH, _NAMEISH, _NAMEISH)
def test_a_literal_pattern_denies_every_name_that_contains_it(before: str, text: str,
                                                              after: str) -> None:
    """A pattern made of literal text matches a name exactly when the name's fold
    contains the pattern's fold, whatever the case and compatibility forms."""
    pattern = "".join("\\" + c if c in "\\^$.|?*+()[]{}/-" else c for c in text)
    try:
        check_click_pattern(pattern)
    except ClickPatternError:
        assume(False)
    # Names are trimmed; a pattern's own leading or trailing space never meets a name's end.
    assume(fold_name(text) and _fold_text(text) == fold_name(text))
    name = before + text.upper() + after
    assert click_pattern_matches(pattern, name)
    probe = fold_name(before + "x" + after)
    assert click_pattern_matches(pattern, probe) == (fold_name(text) in probe)


@examples(300)
@given(st.text(max_size=16))
def test_every_accepted_pattern_folds_into_one_that_compiles(pattern: str) -> None:
    try:
        check_click_pattern(pattern)
    except ClickPatternError:
        return
    compiled = compile_click_pattern(pattern)
    # Folding a folded pattern changes nothing more.
    assert fold_pattern(compiled.pattern) == compiled.pattern
