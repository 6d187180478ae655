"""The regular-expression dialect of ``deny_clicks``.

A ``deny_clicks`` pattern is checked here, in Python, when the config loads, and matched
there, in the page, by JavaScript. Python's ``re`` and ECMAScript's ``RegExp`` disagree on
many details (``\\w`` and ``\\d`` are Unicode in one and ASCII in the other, a lone ``{`` is
a literal in one and an error in the other, ``[]`` means different things...). Rather than
translating, the dialect is the subset on which both engines agree, and anything outside
it is rejected at load time with the reason.

Allowed: literal text, ``.``, ``^``, ``$``, ``|``, groups ``(...)`` and ``(?:...)``,
character classes ``[...]`` with ranges and ``^`` negation, quantifiers ``? * + {n} {n,}
{n,m}`` (optionally lazy), and backslash before punctuation. Matching ignores case
(Python ``re.IGNORECASE``; JavaScript flags ``iu``), after the pattern's literal text and
the label are both folded (compatibility forms and full case folding: ``name_folding.py``,
so ``straße`` denies ``STRASSE``). Labels reach the matcher with their
whitespace collapsed to single spaces and trimmed, so a plain space matches any run of
whitespace in the page.
"""

from __future__ import annotations

import re

from ajantik_cdp.core.policy.name_folding import fold_name, fold_pattern

# Punctuation that may follow a backslash; every one of these is an identity escape in
# both engines (JavaScript's ``u`` flag allows exactly the syntax characters and ``/``).
_ESCAPABLE = set("\\^$.|?*+()[]{}/-")
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")

class ClickPatternError(ValueError):
    """A pattern outside the shared dialect."""


def check_click_pattern(pattern: str) -> None:
    """Raise ClickPatternError unless ``pattern`` means the same in Python and the page."""
    if not pattern:
        raise ClickPatternError("empty pattern would match every control")
    _Scanner(pattern).scan()
    try:
        re.compile(pattern, re.IGNORECASE)
        re.compile(fold_pattern(pattern), re.IGNORECASE)
    except re.error as exc:  # unbalanced groups and the like
        raise ClickPatternError(str(exc)) from None


def compile_click_pattern(pattern: str) -> re.Pattern[str]:
    """The Python side of a checked pattern, folded (name_folding.py): search it in a
    folded name."""
    check_click_pattern(pattern)
    return re.compile(fold_pattern(pattern), re.IGNORECASE)


def click_pattern_matches(pattern: str, name: str) -> bool:
    """Whether ``pattern`` denies a control named ``name``, as the page decides it."""
    return compile_click_pattern(pattern).search(fold_name(name)) is not None


class _Scanner:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.depth = 0

    def fail(self, why: str) -> ClickPatternError:
        return ClickPatternError(f"{why} at position {self.i}")

    def scan(self) -> None:
        can_repeat = False  # whether the previous token is an atom a quantifier may follow
        while self.i < len(self.p):
            c = self.p[self.i]
            if c == "\\":
                self._escape(in_class=False)
                can_repeat = True
            elif c == "[":
                self._char_class()
                can_repeat = True
            elif c == "(":
                rest = self.p[self.i + 1 :]
                if rest.startswith("?:"):
                    self.i += 3
                elif rest.startswith("?"):
                    raise self.fail("lookaround, named groups and inline flags are not allowed")
                else:
                    self.i += 1
                self.depth += 1
                can_repeat = False
            elif c == ")":
                if self.depth == 0:
                    raise self.fail("unbalanced ')'")
                self.depth -= 1
                self.i += 1
                can_repeat = True
            elif c in "?*+":
                if not can_repeat:
                    raise self.fail(f"'{c}' has nothing to repeat")
                self.i += 1
                self._lazy_suffix()
                can_repeat = False
            elif c == "{":
                m = _QUANTIFIER.match(self.p, self.i)
                if not m:
                    raise self.fail("a literal '{' must be written '\\{'")
                if not can_repeat:
                    raise self.fail("'{' quantifier has nothing to repeat")
                low, high = m.group(1), m.group(3)
                if high and int(high) < int(low):
                    raise self.fail("quantifier range is backwards")
                self.i = m.end()
                self._lazy_suffix()
                can_repeat = False
            elif c in "}]":
                raise self.fail(f"a literal '{c}' must be written '\\{c}'")
            elif c in "^$|":
                self.i += 1
                can_repeat = False
            else:
                self.i += 1
                can_repeat = True
        if self.depth:
            raise self.fail("unbalanced '('")

    def _lazy_suffix(self) -> None:
        if self.i < len(self.p) and self.p[self.i] == "?":
            self.i += 1
        if self.i < len(self.p) and self.p[self.i] in "?*+{":
            raise self.fail("stacked quantifiers are not allowed")

    def _escape(self, *, in_class: bool) -> None:
        if self.i + 1 >= len(self.p):
            raise self.fail("pattern ends with a backslash")
        nxt = self.p[self.i + 1]
        if nxt not in _ESCAPABLE:
            raise self.fail(
                f"'\\{nxt}' is not allowed (only punctuation may be escaped; "
                "write a space for whitespace and [0-9] for digits)"
            )
        if in_class and nxt == "-":
            pass  # ``[\-]`` is a literal hyphen in both engines
        self.i += 2

    def _char_class(self) -> None:
        start = self.i
        self.i += 1
        if self.i < len(self.p) and self.p[self.i] == "^":
            self.i += 1
        if self.i < len(self.p) and self.p[self.i] == "]":
            raise self.fail("'[]' and '[^]' mean different things in Python and JavaScript")
        prev_literal: str | None = None
        while self.i < len(self.p):
            c = self.p[self.i]
            if c == "]":
                self.i += 1
                return
            if c == "[":
                raise self.fail("a literal '[' inside a class must be written '\\['")
            if c == "\\":
                self._escape(in_class=True)
                prev_literal = self.p[self.i - 1]
                continue
            if c == "-" and prev_literal is not None and self.i + 1 < len(self.p):
                hi = self.p[self.i + 1]
                if hi == "]":
                    self.i += 1  # trailing '-' is literal in both
                    continue
                if hi == "\\":
                    self.i += 1
                    self._escape(in_class=True)
                    hi = self.p[self.i - 1]
                else:
                    self.i += 2
                if ord(hi) < ord(prev_literal):
                    raise self.fail("character range is backwards")
                prev_literal = None
                continue
            prev_literal = c
            self.i += 1
        self.i = start
        raise self.fail("unterminated character class")
