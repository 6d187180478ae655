"""How a control's name and a ``deny_clicks`` pattern are compared: both folded, the same
way, before the pattern is matched. Pure.

Case-insensitive regular expressions only fold one character to one character (simple
case folding): ``ß`` never meets ``ss``, ``ﬁ`` never meets ``fi``, a fullwidth
``ＰＡＹ`` never meets ``pay``. A name that reads to a person (and to an agent) as the
denied one must be judged as the denied one, so both sides are folded first:

1. NFKC (compatibility forms: fullwidth letters, ligatures, circled digits, superscripts),
2. full Unicode case folding (``str.casefold``: ``ß`` and ``ẞ`` are ``ss``, ``ſ`` is ``s``,
   final ``ς`` is ``σ``),
3. NFKC again (case folding can leave a sequence that composes),
4. the Turkish i's are the Latin i (``İ`` folds to ``i`` plus a combining dot above, which
   is dropped; dotless ``ı`` is ``i``), since a deny list errs on the side of matching,
5. characters that show nothing (soft hyphen, zero-width space and joiners, bidi marks,
   variation selectors) removed, and every run of whitespace one space, trimmed.

The page folds labels with the same steps in JavaScript (``deny_clicks.js``); where its
``toLowerCase`` and Python's ``casefold`` part, the guard hands the page the difference as a
table (:func:`fold_table`), and tests/guard/test_click_labels.py checks the two agree.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Shown as nothing: the same set as deny_clicks.js's ``INVISIBLE``.
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\ufe00-\ufe0f\ufeff]"
)
_SPACES = re.compile(r"\s+")
_TURKISH = str.maketrans({"\u0307": None, "\u0131": "i"})


def fold_name(text: str) -> str:
    """A name as it is compared."""
    return _fold_text(text).strip()


def _fold_text(text: str) -> str:
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    folded = INVISIBLE.sub("", folded.translate(_TURKISH))
    return _SPACES.sub(" ", folded)


@lru_cache(maxsize=1)
def fold_table() -> dict[str, str]:
    """Every character whose full case folding is not its lower case (``ß``, ``ſ``,
    ``ς``, the Cherokee small letters...): the page lowercases the rest itself."""
    table = {}
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        folded = char.casefold()
        if folded != char.lower():
            table[char] = folded
    return table


# Pattern syntax the folding must leave alone (deny_clicks' dialect, click_patterns.py).
_META = set("^$.|?*+()")
_ESCAPABLE = set("\\^$.|?*+()[]{}/-")
_QUANTIFIER = re.compile(r"[?*+]\??|\{\d+(,\d*)?\}\??")


def _literal(text: str, *, atom: bool) -> str:
    """Folded literal text, written back in the dialect: a character folding produced
    that is syntax (NFKC turns fullwidth ``（`` into ``(``) is escaped, and an atom that
    folded into several characters is grouped, so a quantifier after it still repeats
    all of it (``ß+`` is ``(?:ss)+``)."""
    folded = _fold_text(text)
    out = "".join("\\" + c if c in _ESCAPABLE else c for c in folded)
    if atom and len(folded) != 1:
        return f"(?:{out})"
    return out


def fold_pattern(pattern: str) -> str:
    """A checked pattern with its literal text folded as names are; escapes, classes and
    syntax kept. Character classes are left as written (their ranges would not survive
    folding): ``[ß]`` matches only a name that still has one ``ß`` after folding, which
    none has."""
    out: list[str] = []
    run: list[str] = []  # literal characters not yet written

    def flush(*, last_is_atom: bool) -> None:
        if not run:
            return
        if last_is_atom:
            head, tail = run[:-1], run[-1]
            if head:
                out.append(_literal("".join(head), atom=False))
            out.append(_literal(tail, atom=True))
        else:
            out.append(_literal("".join(run), atom=False))
        run.clear()

    i = 0
    while i < len(pattern):
        c = pattern[i]
        quantifier = _QUANTIFIER.match(pattern, i) if c in "?*+{" else None
        if quantifier:
            flush(last_is_atom=True)
            out.append(quantifier.group(0))
            i = quantifier.end()
        elif c == "\\" and i + 1 < len(pattern):
            flush(last_is_atom=False)
            out.append(pattern[i:i + 2])
            i += 2
        elif c == "[":
            flush(last_is_atom=False)
            j = i + 1
            if j < len(pattern) and pattern[j] == "^":
                j += 1
            while j < len(pattern) and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            out.append(pattern[i:j + 1])
            i = j + 1
        elif c in _META:
            flush(last_is_atom=False)
            if c == "(" and pattern.startswith("(?:", i):
                out.append("(?:")
                i += 3
                continue
            out.append(c)
            i += 1
        else:
            run.append(c)
            i += 1
    flush(last_is_atom=False)
    return "".join(out)
