"""``ajantik record show``: a record as a table a person can scan.

``rows`` turns record lines into plain cells (pure, tested without a terminal); ``render``
lays them out with rich, which wraps long URLs to the terminal instead of cutting them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ajantik_cdp.core.guard.film import frame_for_lines
from ajantik_cdp.core.record.record_schema import (
    BlockLine,
    Body,
    EscapedLine,
    RequestLine,
    SystemAnswer,
)
from ajantik_cdp.record.reader import LoadedRecord


@dataclass(frozen=True)
class RecordRow:
    seq: int
    time: str
    method: str
    url: str
    body: str
    system: str
    fault: str
    client: str
    style: str = ""  # "fault", "block", "escaped" or "" for the row's colour
    frame: str = ""  # the frame file nearest the line (``--film``)


def body_cell(body: Body | None, limit: int | None) -> str:
    if body is None:
        return "-"
    if body.unseen is not None:
        return f"not seen whole: {body.unseen}"
    if body.withheld is not None:
        # 12 hex digits are plenty to see two withheld bodies match; the record has all 32.
        fingerprint = body.withheld.fingerprint.removeprefix("hmac-sha256:")[:12]
        return f"withheld: {body.withheld.reason} ({body.length} B, fp {fingerprint})"
    if body.base64 is not None:
        return f"binary, {body.length} B"
    text = body.text or ""
    if not text:
        return ""
    flat = " ".join(text.split())
    if limit is not None and len(flat) > limit:
        return flat[: limit - 1] + "…"
    return flat


def system_cell(system: SystemAnswer | None) -> str:
    if system is None:
        return "not sent"
    if system.status is None:
        return f"error {system.error}" if system.error else "no answer"
    return str(system.status)


def _clock(time: str) -> str:
    """``2025-01-02T10:11:12.345Z`` as ``10:11:12.345``; anything else unchanged."""
    _, sep, rest = time.partition("T")
    return rest.rstrip("Z") if sep else time


def _request_row(line: RequestLine, limit: int | None) -> RecordRow:
    client = (str(line.client_status) if line.client_status is not None
              else f"error {line.client_error or ''}".strip())
    return RecordRow(
        seq=line.seq, time=_clock(line.time), method=line.method, url=line.url,
        body=body_cell(line.request_body, limit),
        system="answer lost" if line.answer == "lost" else system_cell(line.system),
        fault=line.fault or "", client=client, style="fault" if line.fault else "",
    )


def _block_row(line: BlockLine) -> RecordRow:
    what = line.url or f"press on {line.label!r} ({line.event})"
    # A rule names its list already ("deny[0] '/submission'"); a write outside the
    # allowlist has no rule of its own.
    if line.rule:
        client = f"BLOCKED by {line.rule}"
    elif line.reason == "allow_writes":
        client = "BLOCKED: matches no allow_writes entry"
    else:
        client = f"BLOCKED: {line.reason}"
    return RecordRow(
        seq=line.seq, time=_clock(line.time), method=line.method or "CLICK", url=what,
        body="", system="not sent", fault="", client=client, style="block",
    )


def _escaped_row(line: EscapedLine) -> RecordRow:
    """What got through although a rule denies it: never shown as blocked."""
    return RecordRow(
        seq=line.seq, time=_clock(line.time), method=line.method, url=line.url, body="",
        system=f"reached ({line.stage})", fault="",
        client=f"GOT THROUGH {line.rule or line.reason}; {line.closed}", style="escaped",
    )


def rows(record: LoadedRecord, *, body_limit: int | None = 120,
         writes_only: bool = False, film: Path | None = None) -> list[RecordRow]:
    lines = record.lines
    frames = frame_for_lines(lines) if film is not None else {}
    out = []
    for index, line in enumerate(lines):
        if isinstance(line, RequestLine):
            if writes_only and line.method.upper() in ("GET", "HEAD", "OPTIONS"):
                continue
            row = _request_row(line, body_limit)
        elif isinstance(line, BlockLine):
            row = _block_row(line)
        elif isinstance(line, EscapedLine):
            row = _escaped_row(line)
        else:
            continue
        frame = frames.get(index)
        if film is not None and frame is not None:
            row = replace(row, frame=str(film / frame.file))
        out.append(row)
    return out


def header_lines(record: LoadedRecord) -> list[str]:
    start = record.start
    lines = [f"record {record.path}"]
    if start is not None:
        fault = start.fault
        armed = (f"{fault.get('kind')} on write #{fault.get('at')} matching "
                 f"{fault.get('pattern')!r}" if fault else "none")
        lines.append(f"guard {start.guard_version} on {start.browser or 'unknown browser'}, "
                     f"started {start.time}, config sha256 {start.config_sha256[:12]}, "
                     f"fault {armed}")
    else:
        lines.append("no start line")
    return lines


def footer_line(record: LoadedRecord) -> str | None:
    end = record.end
    if end is None:
        return None
    counts = ", ".join(f"{v} {k}{'s' if v != 1 else ''}" for k, v in end.counts.items())
    return f"ended {end.time} ({end.reason}): {counts}"


_STYLES = {"fault": "yellow", "block": "red", "escaped": "bold magenta"}


def render(record: LoadedRecord, console: Console, *, body_limit: int | None = 120,
           writes_only: bool = False, film: Path | None = None) -> None:
    for line in header_lines(record):
        console.print(Text(line), highlight=False)
    table = Table(show_lines=False, header_style="bold", expand=True)
    # Short columns keep their width; the others share what is left by ratio. With a
    # ratio, rich reads ``width`` as the column's minimum.
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("time", no_wrap=True)
    table.add_column("method", no_wrap=True)
    table.add_column("url", overflow="fold", ratio=4, width=16)
    table.add_column("request body", overflow="fold", ratio=3, width=12)
    table.add_column("system", overflow="fold", ratio=1, width=8)
    table.add_column("client (fault)", overflow="fold", ratio=2, width=10)
    if film is not None:
        table.add_column("frame", overflow="fold", ratio=2, width=10)
    table_rows = rows(record, body_limit=body_limit, writes_only=writes_only, film=film)
    for row in table_rows:
        client = f"{row.client} ({row.fault})" if row.fault else row.client
        cells: list[str | Text] = [str(row.seq), row.time, row.method, Text(row.url),
                                   Text(row.body), Text(row.system), Text(client)]
        if film is not None:
            cells.append(Text(row.frame or "-"))
        table.add_row(*cells, style=_STYLES.get(row.style))
    if table_rows:
        console.print(table)
    else:
        console.print("(no requests or blocks recorded)")
    footer = footer_line(record)
    if footer:
        console.print(Text(footer), highlight=False)
