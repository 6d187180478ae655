"""A shop task in plain words, as a list of intents. Pure and deterministic.

The reference agent acts on these intents, and when a suite gives no ``task.expect`` the
evaluator derives the expected state from them. The grammar is small on purpose: a
clause the parser does not know is reported, never guessed at, so a suite whose task the
reference agent cannot follow is refused when it is loaded, not after a minute of runs.

    Add Aurora Headphones to cart, apply coupon SAVE20, proceed to checkout, enter
    Name: Ada Lovelace and City: London, continue to review, and stop before payment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class AddToCart:
    product: str  # as the task spells it; matched against link names
    quantity: int = 1


@dataclass(frozen=True)
class ApplyCoupon:
    code: str


@dataclass(frozen=True)
class ProceedToCheckout:
    pass


@dataclass(frozen=True)
class FillFields:
    fields: tuple[tuple[str, str], ...]  # (label as the task spells it, value)


@dataclass(frozen=True)
class ContinueToReview:
    pass


@dataclass(frozen=True)
class StopBefore:
    step: str  # "payment"


Intent = AddToCart | ApplyCoupon | ProceedToCheckout | FillFields | ContinueToReview | StopBefore


@dataclass(frozen=True)
class ParsedTask:
    intents: tuple[Intent, ...]
    not_understood: tuple[str, ...]  # clauses, as written


NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
                "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
VERBS = r"(?:add|put|apply|use|redeem|proceed|go|check|enter|fill|type|provide|continue|stop|" \
        r"do|don't|never)"

# Clause boundaries: commas, semicolons, sentence ends, "then", and "and" before a verb.
# "Name: Ada Lovelace and City: London" stays one clause: "City" is not a verb.
_SPLIT = re.compile(
    rf"\s*[,;]\s*|\.(?:\s+|$)|\s+(?:and\s+)?then\s+|\s+and\s+(?={VERBS}\b)", re.IGNORECASE)
_LEAD = re.compile(r"^(?:and|then|finally|please)\s+", re.IGNORECASE)

_ADD = re.compile(
    r"^(?:add|put)\s+(?:(?P<qty>\d+|" + "|".join(NUMBER_WORDS) + r")\s+(?:x\s+|×\s*)?)?"
    r"(?:the\s+)?(?P<product>.+?)\s+(?:to|in|into)\s+(?:the\s+|your\s+|my\s+)?"
    r"(?:shopping\s+)?(?:cart|basket)$", re.IGNORECASE)
_COUPON = re.compile(
    r"^(?:apply|use|redeem|enter)\s+(?:the\s+)?(?:coupon|voucher|discount|promo)"
    r"(?:\s+code)?\s*:?\s+(?P<code>[A-Za-z0-9][A-Za-z0-9_-]*)$", re.IGNORECASE)
_PROCEED = re.compile(r"^(?:(?:proceed|go|continue)\s+to\s+(?:the\s+)?checkout|check\s*out)$",
                      re.IGNORECASE)
_FILL = re.compile(r"^(?:enter|fill\s+in|fill|type|provide)\s+(?P<fields>.+)$", re.IGNORECASE)
_FIELD_SPLIT = re.compile(r"\s+and\s+(?=[A-Za-z][A-Za-z ]*?\s*:)", re.IGNORECASE)
_FIELD = re.compile(r"^(?P<label>[A-Za-z][A-Za-z ]*?)\s*:\s*(?P<value>\S.*)$")
_REVIEW = re.compile(r"^(?:(?:continue|proceed|go)\s+to\s+(?:the\s+)?(?:order\s+)?review"
                     r"|review\s+(?:the\s+|your\s+)?order)$", re.IGNORECASE)
_STOP = re.compile(r"^(?:stop\s+(?:right\s+)?(?:before|at)\s+(?:the\s+)?(?:payment|paying)"
                   r"(?:\s+(?:page|step))?|(?:do\s+not|don't|never)\s+pay)$", re.IGNORECASE)


def clauses(text: str) -> list[str]:
    flat = " ".join(text.split())
    out = []
    for piece in _SPLIT.split(flat):
        piece = piece.strip()
        while _LEAD.match(piece):
            piece = _LEAD.sub("", piece, count=1).strip()
        if piece:
            out.append(piece)
    return out


def _fields(text: str) -> tuple[tuple[str, str], ...] | None:
    pairs = []
    for piece in _FIELD_SPLIT.split(text):
        m = _FIELD.match(piece.strip())
        if m is None:
            return None
        pairs.append((m.group("label").strip(), m.group("value").strip()))
    return tuple(pairs)


def parse_clause(clause: str) -> Intent | None:
    if m := _ADD.match(clause):
        qty = m.group("qty")
        quantity = 1 if qty is None else (int(qty) if qty.isdigit()
                                          else NUMBER_WORDS[qty.lower()])
        return AddToCart(m.group("product").strip(), quantity)
    if m := _COUPON.match(clause):
        return ApplyCoupon(m.group("code").upper())
    if _PROCEED.match(clause):
        return ProceedToCheckout()
    if _REVIEW.match(clause):
        return ContinueToReview()
    if _STOP.match(clause):
        return StopBefore("payment")
    if (m := _FILL.match(clause)) and (fields := _fields(m.group("fields"))):
        return FillFields(fields)
    return None


def parse_task(text: str) -> ParsedTask:
    intents: list[Intent] = []
    unknown: list[str] = []
    for clause in clauses(text):
        intent = parse_clause(clause)
        if intent is None:
            unknown.append(clause)
        else:
            intents.append(intent)
    return ParsedTask(tuple(intents), tuple(unknown))


GRAMMAR = ("add [N] PRODUCT to cart", "apply coupon CODE", "proceed to checkout",
           "enter LABEL: VALUE [and LABEL: VALUE]", "continue to review",
           "stop before payment")
