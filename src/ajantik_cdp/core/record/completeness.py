"""Whether a record holds every line it owes, and its answer lines folded in. Pure.

From version 3 the guard writes a recorded request's line when the request leaves
(``answer: "pending"``) and an ``answer`` line with the same ``seq`` once its outcome is
known, or once it knows the answer will never come (``"lost"``, with ``why``). The end
line counts what the guard owed: ``paused`` (requests paused that owe a request line),
``request`` (request lines written), ``lost`` (answers lost). Readers call ``fold``: one
request line per request, and the ways the record disagrees with itself, each a sentence.
A disagreement means a line was lost between the guard's decision and the file; the gate
fails on it unless told otherwise (``run_gate``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.record.record_schema import (
    AnswerLine,
    BlockLine,
    EndLine,
    RecordLine,
    RequestLine,
    complete,
    lost,
)

NO_ANSWER_ENDED = "no answer line: the record ended without one"
NO_ANSWER_KILLED = "no answer line: the guard stopped before it wrote one (no end line)"


@dataclass(frozen=True)
class Folded:
    # Every line but answer lines, each request line with its answer folded in (it keeps
    # its own line number: the judge cites the line that names the request).
    numbered: tuple[tuple[int, RecordLine], ...]
    lost: tuple[tuple[int, RequestLine], ...]  # requests whose answer never came
    problems: tuple[str, ...]  # how the record disagrees with itself (empty: it does not)


def fold(numbered: Sequence[tuple[int, RecordLine]]) -> Folded:
    problems: list[str] = []
    answers: dict[int, tuple[int, AnswerLine]] = {}
    pending: dict[int, int] = {}  # seq -> line number of its pending request line
    for number, line in numbered:
        if isinstance(line, RequestLine) and line.answer == "pending":
            pending[line.seq] = number
        elif isinstance(line, AnswerLine):
            if line.seq not in pending:
                problems.append(f"line {number} answers seq {line.seq}, which no pending "
                                "request line before it has")
            elif line.seq in answers:
                problems.append(f"line {number} answers seq {line.seq} a second time "
                                f"(line {answers[line.seq][0]} did first)")
            else:
                answers[line.seq] = (number, line)
    ended = bool(numbered) and isinstance(numbered[-1][1], EndLine)
    out: list[tuple[int, RecordLine]] = []
    lost_lines: list[tuple[int, RequestLine]] = []
    unanswered = 0
    for number, line in numbered:
        if isinstance(line, AnswerLine):
            continue
        if isinstance(line, RequestLine) and line.answer == "pending":
            got = answers.get(line.seq)
            if got is not None:
                line = complete(line, got[1])
            else:
                unanswered += 1
                line = lost(line, NO_ANSWER_ENDED if ended else NO_ANSWER_KILLED)
        if isinstance(line, RequestLine) and line.answer == "lost":
            lost_lines.append((number, line))
        out.append((number, line))
    if ended and unanswered:
        problems.append(f"{counted(unanswered, 'request line')} had no answer line though "
                        "the record ended")
    end = numbered[-1][1] if ended else None
    if isinstance(end, EndLine):
        problems += _against_end(end, out, len(lost_lines) - unanswered)
    return Folded(tuple(out), tuple(lost_lines), tuple(problems))


def _against_end(end: EndLine, lines: Sequence[tuple[int, RecordLine]],
                 lost_count: int) -> list[str]:
    """The end line's counts against the lines in the file. Version 3 counts ``paused``
    and ``lost``; an older end line has neither, and its other counts are checked alone."""
    counts = end.counts
    requests = sum(isinstance(ln, RequestLine) for _, ln in lines)
    blocks = sum(isinstance(ln, BlockLine) for _, ln in lines)
    out = []
    if "paused" in counts and counts["paused"] != requests:
        missing = counts["paused"] - requests
        out.append(f"the guard paused {counts['paused']} recorded requests and the record "
                   f"holds {counted(requests, 'request line')}"
                   + (f": {missing} missing" if missing > 0 else ""))
    if "request" in counts and counts["request"] != requests:
        out.append(f"the end line counts {counted(counts['request'], 'request line')}, the "
                   f"file holds {requests}")
    if "block" in counts and counts["block"] != blocks:
        out.append(f"the end line counts {counted(counts['block'], 'block line')}, the file "
                   f"holds {blocks}")
    if "lost" in counts and counts["lost"] != lost_count:
        out.append(f"the end line counts {counted(counts['lost'], 'answer')} lost, the file "
                   f"shows {lost_count}")
    return out


def lost_notes(folded: Folded) -> list[str]:
    """One sentence per request whose answer never came: what a verdict cannot rest on."""
    return [f"line {number}: {line.method} {line.url} reached the guard and its answer was "
            f"lost ({line.why}); whether the system applied it is unknown"
            for number, line in folded.lost]
