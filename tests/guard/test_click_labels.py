"""Unit tests of the label computation (click_labels.js), run in a real page without the
guard: which control a press lands on, and which labels it goes by. The accessible name
is checked against Chrome's own accessibility tree on a corpus of control shapes."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest
import pytest_asyncio

from ajantik_cdp.core.policy.click_patterns import ClickPatternError, check_click_pattern
from tests.guard.click_pages import LABELS
from tests.guard.name_corpus import (
    CHANGED_IN_CHROMIUM,
    CORPUS,
    IGNORED_BY_CHROME,
    NOT_AT_PARITY,
    corpus_page,
)

pytestmark = pytest.mark.browser

LABELS_JS = resources.files("ajantik_cdp.proxy").joinpath("click_labels.js").read_text()

# Finds a corpus element by key, through open shadow roots.
FIND = """(key) => { function walk(root) {
  const el = root.querySelector(`[data-t="${key}"]`); if (el) return el;
  for (const h of root.querySelectorAll('*')) if (h.shadowRoot) {
    const f = walk(h.shadowRoot); if (f) return f; }
  return null; } return walk(document); }"""


async def _page(pw: Any, chrome: Any, html: str) -> Any:
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.set_content(html)
    await page.add_script_tag(content=LABELS_JS + "\nwindow.L = ajantikLabels();")
    return browser, ctx, page


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def labels_page(pw: Any, chrome: Any) -> Any:
    browser, ctx, page = await _page(pw, chrome, LABELS)
    yield page
    await ctx.close()
    await browser.close()


def chrome_trim(name: str) -> str:
    """Chrome keeps one space at each end of an aria-label or title (and Chromium 150 the
    space before a wrapping label's text); the guard matches trimmed labels."""
    return name.strip(" ")


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def names(pw: Any, chrome: Any) -> dict[str, tuple[str | None, str]]:
    """key -> (Chrome's name, or None when Chrome leaves the node out; the page's)."""
    browser, ctx, page = await _page(pw, chrome, corpus_page())
    cdp = await ctx.new_cdp_session(page)
    await cdp.send("Accessibility.enable")
    out: dict[str, tuple[str | None, str]] = {}
    for key, _ in CORPUS:
        found = await cdp.send("Runtime.evaluate",
                               {"expression": f"({FIND})({json.dumps(key)})"})
        object_id = found["result"].get("objectId")
        assert object_id, f"corpus element {key!r} not found"
        tree = await cdp.send("Accessibility.getPartialAXTree",
                              {"objectId": object_id, "fetchRelatives": False})
        node = tree["nodes"][0]
        chrome_name = None if node.get("ignored") else node.get("name", {}).get("value", "")
        ours = await page.evaluate(f"L.nameOf(({FIND})({json.dumps(key)}))")
        out[key] = (chrome_name, ours)
    await ctx.close()
    await browser.close()
    return out


def test_the_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 40
    assert len({key for key, _ in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("key", [k for k, _ in CORPUS
                                 if k not in IGNORED_BY_CHROME and k not in NOT_AT_PARITY
                                 and k not in CHANGED_IN_CHROMIUM])
def test_name_equals_chromes(names: dict[str, tuple[str | None, str]], key: str) -> None:
    chrome_name, ours = names[key]
    assert chrome_name is not None, f"{key}: Chrome has no node; move it to IGNORED_BY_CHROME"
    assert ours == chrome_trim(chrome_name)


@pytest.mark.parametrize("key", sorted(CHANGED_IN_CHROMIUM))
def test_names_chromium_changed_are_the_newer_ones(
        names: dict[str, tuple[str | None, str]], key: str) -> None:
    chrome_name, ours = names[key]
    assert ours == CHANGED_IN_CHROMIUM[key]
    assert chrome_name is not None and chrome_trim(chrome_name) in ("", ours), chrome_name


@pytest.mark.parametrize("key", sorted(NOT_AT_PARITY))
def test_documented_differences_still_differ(names: dict[str, tuple[str | None, str]],
                                             key: str) -> None:
    chrome_name, ours = names[key]
    assert chrome_name is not None and ours != chrome_trim(chrome_name), \
        f"{key} now matches Chrome: drop it from NOT_AT_PARITY and docs/guard.md"


@pytest.mark.parametrize("key", sorted(IGNORED_BY_CHROME))
def test_controls_chrome_leaves_out_are_still_named(
        names: dict[str, tuple[str | None, str]], key: str) -> None:
    chrome_name, ours = names[key]
    assert chrome_name is None
    assert ours


@pytest.mark.parametrize("key", ["before", "after", "before-only",
                                 "button-descendant-aria-label", "descendant-aria-label",
                                 "checkbox-wrapped", "area-img"])
def test_the_issue_shapes_are_named_proceed_to_submission(
        names: dict[str, tuple[str | None, str]], key: str) -> None:
    """Issue 10's four controls: generated content, a descendant's aria-label, a native
    checkbox with a label, an image-map area. Chrome's tree and the page agree."""
    chrome_name, ours = names[key]
    assert (chrome_trim(chrome_name or ""), ours) == ("Proceed to submission",
                                                      "Proceed to submission")


@pytest.mark.parametrize(("element", "labels"), [
    ("#labelledby", ["Send filing", "ignored text"]),
    ("#arialabel", ["Pay now", "x"]),
    ("#withlabel", ["Submit the form", "Go"]),
    ("#inputvalue", ["Proceed"]),
    ("#inputimage", ["Checkout"]),
    ("#nested", ["Proceed to submission"]),
    ("#hiddenpart", ["Pay now"]),
    ("#titled", ["Delete account"]),
    ("#img", ["Pay now"]),
    ("#rolebutton", ["Pay now"]),
    ("#summary", ["More details"]),
    ("#link", ["Go to checkout"]),
    ("#masked", ["Cancel", "Proceed to submission"]),
    ("#checkbox", ["Proceed to submission"]),
    # What Chrome names "Pro\xadceed to sub\u200bmission" reads as the plain words.
    ("#shy", ["Pro\xadceed to sub\u200bmission", "Proceed to submission"]),
])
async def test_labels_name_first_then_every_source(labels_page: Any, element: str,
                                                   labels: list[str]) -> None:
    got = await labels_page.evaluate("(sel) => L.labelsOf(document.querySelector(sel))",
                                     element)
    assert got == labels


async def test_slotted_text_inside_a_shadow_button(labels_page: Any) -> None:
    got = await labels_page.evaluate("""() => L.labelsOf(document.getElementById('slotted')
        .shadowRoot.getElementById('shadowbutton'))""")
    assert got == ["Step: Proceed now"]


@pytest.mark.parametrize(("start", "pressable"), [
    ("document.querySelector('#nested em')", "nested"),
    ("document.querySelector('#img img')", "img"),
    ("document.querySelector('#slotted i')", "shadowbutton"),
    ("document.getElementById('nolink')", None),
    ("document.getElementById('plain')", None),
    ("document.getElementById('summary')", "summary"),
    ("document.getElementById('checkbox')", "checkbox"),
    ("document.querySelector('label[for=checkbox]')", "checkbox"),
    ("document.querySelector('#wrapped-label b')", "wrapped"),
    ("document.getElementById('radio')", "radio"),
    ("document.getElementById('area')", "area"),
    ("document.getElementById('listoption')", "listoption"),
    ("document.getElementById('textlabel')", None),
    ("document.getElementById('twotokens')", "twotokens"),
])
async def test_nearest_pressable_ancestor_on_the_composed_path(labels_page: Any, start: str,
                                                               pressable: str | None) -> None:
    got = await labels_page.evaluate(f"""() => {{
        let found;
        window.addEventListener('click', (e) => {{
            const el = L.pressableFromPath(e.composedPath());
            found = el ? el.id : null;
            e.preventDefault();
        }}, {{capture: true, once: true}});
        {start}.dispatchEvent(new MouseEvent('click', {{bubbles: true, composed: true,
                                                       cancelable: true}}));
        return found;
    }}""")
    assert got == pressable


def _corpus(seed: int = 7, count: int = 600) -> tuple[list[str], list[str]]:
    """Random patterns from the dialect's pieces, and labels to match them against."""
    import random

    rng = random.Random(seed)
    atoms = ["a", "b", "pay", "now", "Ä", "ß", " ", ".", "[a-c]", "[^a]", "(?:pay|go)",
             "(a|b)", "\\.", "\\(", "[0-9]", "é"]
    quantifiers = ["", "", "", "?", "*", "+", "{1,2}", "*?", "{2}"]
    patterns: list[str] = []
    while len(patterns) < count:
        body = "".join(rng.choice(atoms) + rng.choice(quantifiers)
                       for _ in range(rng.randint(1, 4)))
        pattern = ("^" if rng.random() < 0.3 else "") + body + ("$" if rng.random() < 0.3 else "")
        try:
            check_click_pattern(pattern)
        except ClickPatternError:
            continue
        patterns.append(pattern)
    labels = ["Pay now", "PAY NOW", "pay", "a.b", "(a)", "Äpfel", "STRASSE", "straße",
              "ÉCOLE", "école", "Go 2", "ab", "", "b", "now pay now", "aab", "12"]
    return patterns, labels


async def test_python_and_the_page_agree_on_every_accepted_pattern(labels_page: Any) -> None:
    import re

    patterns, labels = _corpus()
    in_page = await labels_page.evaluate("""([patterns, labels]) => patterns.map(
        (p) => labels.map((l) => new RegExp(p, 'iu').test(l)))""", [patterns, labels])
    disagreements = [
        (p, label, js)
        for p, row in zip(patterns, in_page, strict=True)
        for label, js in zip(labels, row, strict=True)
        if bool(re.search(p, label, re.IGNORECASE)) != js
    ]
    assert disagreements == []


FOLD_JS = resources.files("ajantik_cdp.proxy").joinpath("name_folding.js").read_text()


async def test_the_page_folds_names_as_python_does(labels_page: Any) -> None:
    """name_folding.js against core/policy/name_folding.py: every character of the fold
    table, each alone, upper-cased and in a word, and random strings of any script.
    Characters newer than Python's Unicode database are left out (Chrome's may know
    them: a known limit, docs/guard.md)."""
    import random
    import unicodedata

    from ajantik_cdp.core.policy.name_folding import fold_name, fold_table

    table = fold_table()
    rng = random.Random(27)
    alphabet = [chr(c) for c in range(0x20, 0x2FFF) if unicodedata.category(chr(c)) != "Cn"]
    samples = [c for t in table for c in (t, t.upper(), f"Pay {t}X now")]
    samples += ["PROCEED TO SUBMİSSİON", "ZAHLUNG ABSCHLIEẞEN", "ΟΔΟΣ οδος", "ﬁ ﬀ ﬃ",
                "ＰＡＹ", "pay\u00ad\u200bnow", "CAFE\u0301", "Ǆ ǅ ǆ", "ı I i İ"]
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
                for _ in range(2000)]
    in_page = await labels_page.evaluate(
        f"([table, samples]) => {{ {FOLD_JS}; const fold = ajantikFold(table);"
        " return samples.map(fold); }", [table, samples])
    apart = [(s, js, fold_name(s)) for s, js in zip(samples, in_page, strict=True)
             if js != fold_name(s)]
    assert apart == []
