"""Unit tests of the label computation (click_labels.js), run in a real page without the
guard: which control a press lands on, and which labels it goes by."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest
import pytest_asyncio

from ajantik_cdp.core.click_patterns import ClickPatternError, check_click_pattern
from tests.guard.click_pages import LABELS

pytestmark = pytest.mark.browser

LABELS_JS = resources.files("ajantik_cdp.proxy").joinpath("click_labels.js").read_text()


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def labels_page(pw: Any, chrome: Any) -> Any:
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.set_content(LABELS)
    await page.add_script_tag(content=LABELS_JS + "\nwindow.L = ajantikLabels();")
    yield page
    await ctx.close()
    await browser.close()


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
])
async def test_labels_in_accessible_name_order(labels_page: Any, element: str,
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
