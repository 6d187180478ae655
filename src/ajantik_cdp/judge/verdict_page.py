"""The judge's HTML page (``--html``): one self-contained file. Its run section and style
are also the run sections of ``ajantik test run``'s report (testrun/report/).

Everything is inline (CSS; no font; a script and images only for a filmed run's
player), so the page opens offline and can be attached to a ticket. Each verdict links to
the record lines it rests on, which are embedded in the page (one closed line each,
bodies shortened), and quotes the claim it compared.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import orjson

from ajantik_cdp.core.record.record_schema import BlockLine, EscapedLine, RecordLine, RequestLine
from ajantik_cdp.core.scoring.run_gate import DEFAULT_POLICY, GatePolicy, GateResult
from ajantik_cdp.html_pages import render_page_template
from ajantik_cdp.judge.judging import Judgement
from ajantik_cdp.judge.verdict_file import InputFiles
from ajantik_cdp.player.view import FilmView

MAX_TEXT = 2000  # characters of a body shown in the page; the record keeps it whole


@dataclass(frozen=True)
class CitedLine:
    number: int
    headline: str
    body: str


@dataclass(frozen=True)
class RunView:
    """One judged run on the page. ``slug`` keeps anchors apart when a page holds many."""

    slug: str
    title: str
    judgement: Judgement
    sources: InputFiles | None = None
    policy: GatePolicy = DEFAULT_POLICY
    facts: tuple[tuple[str, str], ...] = ()  # extra labelled facts shown under the title
    # The run's gate when its caller knows more than the record (how the skill ended,
    # where the fault fired: ajantik test run); otherwise the judgement's own.
    gate: GateResult | None = None
    film: FilmView | None = None  # the run's player, when the guard filmed it

    def gate_result(self) -> GateResult:
        return self.gate if self.gate is not None else self.judgement.gate(self.policy)

    def anchor(self, line: int) -> str:
        return f"{self.slug}-line-{line}"

    def headline(self, number: int) -> str:
        line = self.judgement.record.line(number)
        return headline(line) if line is not None else f"line {number}"

    def faulted(self, number: int) -> bool:
        line = self.judgement.record.line(number)
        return isinstance(line, RequestLine) and line.fault is not None

    def cited(self) -> list[CitedLine]:
        numbers: set[int] = set()
        for u in self.judgement.units:
            numbers.update(u.evidence)
        for d in self.judgement.damage:
            numbers.update(d.evidence)
        out = []
        for n in sorted(numbers):
            line = self.judgement.record.line(n)
            if line is not None:
                out.append(CitedLine(n, headline(line), _pretty(line)))
        return out


@dataclass(frozen=True)
class Page:
    title: str
    runs: tuple[RunView, ...]
    intro: str = ""


def headline(line: RecordLine) -> str:
    if isinstance(line, RequestLine):
        system = line.system
        if system is None:
            seen = "never reached the system"
        elif system.status is None:
            seen = f"sent, no answer came back ({system.error or 'no status'})"
        else:
            seen = f"system answered {system.status}"
        told = (f"client told {line.client_status}" if line.client_status is not None
                else f"client got {line.client_error or 'a network error'}")
        fault = f" · fault {line.fault}" if line.fault else ""
        return f"{line.method} {line.url} · {seen} · {told}{fault}"
    if isinstance(line, BlockLine):
        what = line.label or f"{line.method} {line.url}"
        return f"blocked ({line.reason}) {what}"
    if isinstance(line, EscapedLine):
        return (f"GOT THROUGH ({line.rule or line.reason}) {line.method} {line.url} · "
                f"{line.stage} · {line.closed}")
    return line.kind


def _shorten(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return value[:MAX_TEXT] + f"… ({len(value) - MAX_TEXT} more characters in the record)"
    return value


def _readable_body(body: Any) -> Any:
    """A JSON body shown as JSON (under "json") rather than as an escaped string."""
    if not isinstance(body, dict) or not isinstance(body.get("text"), str):
        return body
    text = body["text"]
    if len(text) > MAX_TEXT or text.strip()[:1] not in ("{", "["):
        return body
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return body
    rest = {k: v for k, v in body.items() if k != "text" and v is not None}
    return {**rest, "json": parsed}


def _pretty(line: RecordLine) -> str:
    data = asdict(line)
    if isinstance(line, RequestLine):
        data["request_body"] = _readable_body(data["request_body"])
        if data.get("system"):
            data["system"]["body"] = _readable_body(data["system"].get("body"))
    return orjson.dumps(_shorten(data), option=orjson.OPT_INDENT_2).decode()


def render_page(page: Page) -> str:
    return render_page_template("judge/templates/verdicts.html.j2", page=page)
