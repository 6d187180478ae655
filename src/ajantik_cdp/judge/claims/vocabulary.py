"""The words of a claim: status words and marks, the separators around them, and how one
line is normalised before it is read. Pure."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ajantik_cdp.core.scoring.verdicts import Said

_DONE_WORDS = ("done", "completed", "complete", "finished", "succeeded", "successful",
               "success", "ok", "okay", "prepared", "ready")
_NOT_DONE_WORDS = ("not done", "not yet done", "not complete", "not completed",
                   "not finished", "not prepared", "not ready", "not started",
                   "not attempted", "not ok", "not successful", "incomplete", "unfinished",
                   "failed", "failure", "fail", "skipped", "blocked", "stopped", "aborted",
                   "abandoned", "pending", "in progress", "partial", "todo", "to do")
_UNSURE_WORDS = ("unsure", "not sure", "unknown", "uncertain", "unclear", "unverified",
                 "not verified", "unconfirmed", "not confirmed", "could not verify",
                 "couldn't verify", "cannot tell", "can't tell", "can not tell",
                 "undetermined")
_DONE_MARKS = ("✅", "✔", "☑", "✓", "🟢")
_NOT_DONE_MARKS = ("❌", "✗", "✘", "✖", "🔴", "⛔", "🚫")
_UNSURE_MARKS = ("❓", "❔", "🤷")
ANSWERS = {"yes": Said.DONE, "y": Said.DONE, "true": Said.DONE,
            "no": Said.NOT_DONE, "n": Said.NOT_DONE, "false": Said.NOT_DONE}


def _words(phrases: Sequence[str]) -> str:
    # Longest first; a space matches any run of spaces or hyphens ("not-done").
    ordered = sorted(phrases, key=len, reverse=True)
    return "|".join(re.escape(p).replace(r"\ ", r"[\s-]+") for p in ordered)


def _marks(chars: Sequence[str]) -> str:
    return "|".join(re.escape(c) for c in chars)


# A status token: a phrase (ending at a word boundary) or a mark such as ✅.
STATUS = (rf"(?:(?P<done>(?:{_words(_DONE_WORDS)})(?![a-z0-9])|{_marks(_DONE_MARKS)})"
           rf"|(?P<not_done>(?:{_words(_NOT_DONE_WORDS)})(?![a-z0-9])|{_marks(_NOT_DONE_MARKS)})"
           rf"|(?P<unsure>(?:{_words(_UNSURE_WORDS)})(?![a-z0-9])|{_marks(_UNSURE_MARKS)}))")
_STATUS_RE = re.compile(r"\s*" + STATUS, re.IGNORECASE)
GROUP = r"\((?:[^()]|\([^()]*\))*\)|\[[^\[\]]*\]"
SEP = r"[\s:\-=>|,]*"
_DECOR = "⚠ℹ📌📄📁➡▶►"  # symbols agents put before a status that say nothing about it
# What may stand between a unit and its status, then the status itself. One pattern, so
# that "is not sure" can back off from "is not" + "sure" to "is" + "not sure".
_TAIL_RE = re.compile(
    rf"(?:\s*(?:{GROUP}))*{SEP}[{_DECOR}\s]*"
    rf"(?:(?:status|state|outcome|result)(?![a-z0-9])\s*(?:is\s+)?{SEP})?"
    r"(?:(?P<neg>is\s*not|isn't|was\s*not|wasn't|has\s+not\s+been|hasn't\s+been"
    r"|have\s+not\s+been|haven't\s+been|are\s+not|aren't|were\s+not|weren't)\s+"
    r"|(?:is|was|are|were|has\s+been|have\s+been)\s+)?"
    r"(?:(?P<hedge>almost|nearly|mostly|partially|partly|half|not\s+fully|not\s+quite"
    r"|not\s+entirely)\s+|(?:fully|all|now|successfully|completely|already|finally"
    r"|entirely)\s+)?"
    rf"[{_DECOR}\s]*{STATUS}",
    re.IGNORECASE)
_ANSWER_AFTER_RE = re.compile(r"\s*\??\s*[:=]\s*(yes|no|true|false)\s*(?:$|[.,;:)|-])",
                              re.IGNORECASE)
_EXCEPT_RE = re.compile(r"\s*[,;]?\s*(?:except|apart\s+from|other\s+than|aside\s+from"
                        r"|save\s+for)(?![a-z])", re.IGNORECASE)
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b"
                                 "\ufe58\ufe63\uff0d"), "-")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\ufe0f\ufe0e"), None)
_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u02bc"), "'")
_LINK_RE = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_TAG_RE = re.compile(r"</?(?:b|strong|i|em|code|u|s|mark|span|del)\b[^>]*>", re.IGNORECASE)
_EMPHASIS_RE = re.compile(r"[*_`~]")
_ARROW_RE = re.compile(r"[→⇒➜➔»⟶]")
_SPACES_RE = re.compile(r"\s+")
# A claim stands next to its unit: patterns look this far from it and no further, so a
# hostile report (a megabyte of dashes) costs time in proportion to its length.
WINDOW = 400


def normalise(text: str) -> str:
    """One line as the reader sees it: compatibility forms folded, every dash a hyphen,
    markdown marks and links gone. Used for the report and the unit names alike."""
    s = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    s = s.translate(_DASHES).translate(_QUOTES)
    s = _LINK_RE.sub(r"\1", s)
    s = _TAG_RE.sub(" ", s)
    s = _EMPHASIS_RE.sub(" ", s)
    s = _ARROW_RE.sub(" - ", s)
    # One space for any run: besides tidiness, it keeps the patterns below linear.
    return _SPACES_RE.sub(" ", s)


def said_of(m: re.Match[str]) -> Said:
    if m.group("done") is not None:
        return Said.DONE
    if m.group("not_done") is not None:
        return Said.NOT_DONE
    return Said.UNSURE


@dataclass(frozen=True)
class Read:
    """A status read from some text: what, where it ended, or why it cannot be read."""

    said: Said | None
    end: int
    problem: str = ""


def status_at(text: str, pos: int) -> Read | None:
    """The status words right after ``pos`` (past parentheses, separators, "is", an
    adverb), or None when no status stands there."""
    first = _TAIL_RE.match(text, pos)
    if first is None:
        return None
    saids = [said_of(first)]
    end = first.end()
    # "✅ Done", "Done ✅": status tokens next to each other must agree.
    while (more := _STATUS_RE.match(text, end)) is not None:
        saids.append(said_of(more))
        end = more.end()
    if len(set(saids)) > 1:
        return Read(None, end, "its status words contradict each other")
    said = saids[0]
    if first.group("neg"):
        if said is not Said.DONE:
            return Read(None, end, "it negates a status in a way the reader cannot resolve")
        said = Said.NOT_DONE
    if first.group("hedge") and said is Said.DONE:
        said = Said.NOT_DONE  # "almost done" is not done
    rest = text[end:]
    answer = _ANSWER_AFTER_RE.match(rest)
    if answer is not None:
        # "Done: no" is a question answered, not a status: only a done word can ask it.
        if said is not Said.DONE:
            return Read(None, end, "it answers a status with yes or no")
        said = ANSWERS[answer.group(1).casefold()]
    elif rest.lstrip().startswith("?"):
        said = Said.UNSURE  # "done?" is a question, not a claim
    elif said is Said.DONE and _EXCEPT_RE.match(rest):
        said = Said.NOT_DONE  # "done except the upload" is not done
    return Read(said, end)
