"""A record as a HAR 1.2 log that Chrome DevTools can import (Network panel, "Import HAR").

Each entry shows what the browser experienced: the status the client was given, and the
system's own answer whenever the client got it. What a fault changed is kept apart, in the
entry's ``comment`` and in the ``_ajantik`` custom field (HAR 1.2 allows fields that start
with an underscore), so the system's status is never lost.

A withheld body never appears as content. Its place holds a marker naming the reason,
length and fingerprint, and ``_withheld`` carries the same as data. Cookies, timings and
HTTP versions are not in the record, so they are empty or zero here, as HAR permits.
Pure: no I/O.
"""

from __future__ import annotations

import re
from datetime import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ajantik_cdp import __version__
from ajantik_cdp.core.record.record_schema import (
    BlockLine,
    Body,
    EscapedLine,
    RequestLine,
    StartLine,
)
from ajantik_cdp.record.reader import LoadedRecord

HAR_VERSION = "1.2"

# DevTools' resource type names for the CDP ones it does not spell in lower case.
_RESOURCE_TYPES = {"CSPViolationReport": "csp-violation-report", "SignedExchange":
                   "signed-exchange", "TextTrack": "texttrack", "EventSource": "eventsource"}


def withheld_marker(body: Body) -> str:
    assert body.withheld is not None
    return (f"[withheld by ajantik: {body.withheld.reason}; {body.length} bytes; "
            f"{body.withheld.fingerprint}]")


def _header_list(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


def _header(headers: dict[str, str], name: str) -> str | None:
    return next((v for k, v in headers.items() if k.lower() == name), None)


def _mime(headers: dict[str, str]) -> str:
    return _header(headers, "content-type") or ""


def net_error(reason: str | None) -> str:
    """``BlockedByClient`` (a Fetch error reason) as Chrome's ``net::ERR_BLOCKED_BY_CLIENT``."""
    if not reason:
        return "net::ERR_FAILED"
    if reason.startswith("net::"):
        return reason
    return "net::ERR_" + re.sub(r"(?<!^)(?=[A-Z])", "_", reason).upper()


def _status_text(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _body_fields(body: Body) -> dict[str, Any]:
    """The text (or marker) of a body, and its custom fields."""
    if body.unseen is not None:
        return {"text": f"[not seen by ajantik: {body.unseen}]",
                "_unseen": {"reason": body.unseen, "seen_bytes": body.length}}
    if body.withheld is not None:
        return {"text": withheld_marker(body),
                "_withheld": {"reason": body.withheld.reason,
                              "fingerprint": body.withheld.fingerprint,
                              "length": body.length}}
    if body.base64 is not None:
        return {"text": body.base64, "encoding": "base64"}
    return {"text": body.text or ""}


def _request(method: str, url: str, headers: dict[str, str],
             body: Body | None) -> dict[str, Any]:
    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "httpVersion": "",
        "cookies": [],
        "headers": _header_list(headers),
        "queryString": [{"name": k, "value": v}
                        for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True)],
        "headersSize": -1,
        # HAR's -1: the size is not known (a body the guard did not see whole).
        "bodySize": (-1 if body.unseen is not None else body.length) if body is not None
        else 0,
    }
    if body is not None and (body.length or body.unseen is not None):
        fields = _body_fields(body)
        encoding = fields.pop("encoding", None)
        post: dict[str, Any] = {"mimeType": _mime(headers), **fields}
        if encoding:  # postData has no encoding field in HAR 1.2: say so in a custom one
            post["_encoding"] = encoding
        request["postData"] = post
    return request


def _empty_content() -> dict[str, Any]:
    return {"size": 0, "mimeType": "x-unknown"}


def _response(line: RequestLine) -> dict[str, Any]:
    system = line.system
    passed_on = line.fault is None and system is not None and system.status is not None
    response: dict[str, Any] = {
        "status": line.client_status if line.client_status is not None else 0,
        "statusText": _status_text(line.client_status) if line.client_status else "",
        "httpVersion": "",
        "cookies": [],
        "headers": [],
        "content": _empty_content(),
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": -1,
    }
    if passed_on and system is not None:
        response["headers"] = _header_list(system.headers)
        response["redirectURL"] = _header(system.headers, "location") or ""
        if system.body is not None:
            response["content"] = {"size": system.body.length,
                                   "mimeType": _mime(system.headers) or "x-unknown",
                                   **_body_fields(system.body)}
            response["bodySize"] = system.body.length
    if line.answer == "lost":
        response["_error"] = f"answer lost: {line.why}"
    elif line.client_status is None:
        response["_error"] = net_error(line.client_error)
    return response


def _system_data(line: RequestLine) -> dict[str, Any] | None:
    if line.system is None:
        return None
    body = line.system.body
    data: dict[str, Any] = {"status": line.system.status, "error": line.system.error,
                            "headers": line.system.headers, "body": None}
    if body is not None:
        data["body"] = {"length": body.length, **_body_fields(body)}
    return data


def fault_comment(line: RequestLine) -> str | None:
    if line.fault is None:
        return None
    given = line.client_status if line.client_status is not None else line.client_error
    if line.system is None:
        return (f"fault {line.fault}: never sent to the system; the client was given "
                f"{given}")
    answered = line.system.status if line.system.status is not None else line.system.error
    return f"fault {line.fault}: the system answered {answered}; the client was given {given}"


def _elapsed_ms(started: str | None, finished: str) -> float:
    """Milliseconds from when the guard held the request to when its outcome was known
    (the whole exchange as the guard saw it; HAR's send/receive split is not recorded)."""
    if started is None:
        return 0
    try:
        delta = (datetime.fromisoformat(finished.replace("Z", "+00:00"))
                 - datetime.fromisoformat(started.replace("Z", "+00:00")))
    except ValueError:
        return 0
    return max(0.0, round(delta.total_seconds() * 1000, 3))


def _request_entry(line: RequestLine) -> dict[str, Any]:
    elapsed = _elapsed_ms(line.started, line.time)
    entry: dict[str, Any] = {
        "startedDateTime": line.started or line.time,
        "time": elapsed,
        "request": _request(line.method, line.url, line.request_headers, line.request_body),
        "response": _response(line),
        "cache": {},
        "timings": {"send": 0, "wait": elapsed, "receive": 0},
        "_resourceType": _resource_type(line.resource_type),
        "_ajantik": {
            "seq": line.seq, "kind": "request", "fault": line.fault,
            "client_status": line.client_status, "client_error": line.client_error,
            "system": _system_data(line), "answer": line.answer, "why": line.why,
            "target_id": line.target_id,
            "target_type": line.target_type, "frame_url": line.frame_url,
        },
    }
    comment = fault_comment(line)
    if comment:
        entry["comment"] = comment
    return entry


def _block_entry(line: BlockLine) -> dict[str, Any]:
    assert line.method is not None and line.url is not None
    return {
        "startedDateTime": line.time,
        "time": 0,
        "request": _request(line.method, line.url, {}, None),
        "response": {**_response_for_block(), "_error": "net::ERR_BLOCKED_BY_CLIENT"},
        "cache": {},
        "timings": {"send": 0, "wait": 0, "receive": 0},
        "_resourceType": _resource_type(line.resource_type or "Other"),
        "comment": f"blocked by ajantik ({line.reason}"
                   + (f" {line.rule}" if line.rule else "") + ")",
        "_ajantik": {"seq": line.seq, "kind": "block", "source": line.source,
                     "reason": line.reason, "rule": line.rule, "target_id": line.target_id,
                     "target_type": line.target_type, "frame_url": line.frame_url},
    }


def _escaped_entry(line: EscapedLine) -> dict[str, Any]:
    """A denied WebSocket that got through: its handshake reached the site (101 when the
    guard saw it open); never shown as blocked."""
    response = _response_for_block()
    if line.stage == "opened":
        response = {**response, "status": 101, "statusText": "Switching Protocols"}
    return {
        "startedDateTime": line.time,
        "time": 0,
        "request": _request(line.method, line.url, {}, None),
        "response": response,
        "cache": {},
        "timings": {"send": 0, "wait": 0, "receive": 0},
        "_resourceType": _resource_type(line.resource_type),
        "comment": f"GOT THROUGH although {line.rule or line.reason} denies it "
                   f"({line.stage}; {line.closed})",
        "_ajantik": {"seq": line.seq, "kind": "escaped", "source": line.source,
                     "reason": line.reason, "rule": line.rule, "target_id": line.target_id,
                     "target_type": line.target_type, "frame_url": line.frame_url,
                     "stage": line.stage, "closed": line.closed},
    }


def _response_for_block() -> dict[str, Any]:
    return {"status": 0, "statusText": "", "httpVersion": "", "cookies": [], "headers": [],
            "content": _empty_content(), "redirectURL": "", "headersSize": -1,
            "bodySize": -1}


def _resource_type(cdp_type: str) -> str:
    return _RESOURCE_TYPES.get(cdp_type, cdp_type.lower())


def _start_data(start: StartLine | None) -> dict[str, Any] | None:
    if start is None:
        return None
    return {"guard_version": start.guard_version, "browser": start.browser,
            "protocol_version": start.protocol_version, "config_sha256": start.config_sha256,
            "fault": start.fault, "time": start.time}


def to_har(record: LoadedRecord) -> dict[str, Any]:
    """The HAR 1.2 document for a record, ready for ``json.dumps``."""
    entries: list[dict[str, Any]] = []
    clicks: list[dict[str, Any]] = []
    for line in record.lines:
        if isinstance(line, RequestLine):
            entries.append(_request_entry(line))
        elif isinstance(line, EscapedLine):
            entries.append(_escaped_entry(line))
        elif isinstance(line, BlockLine):
            if line.method is not None and line.url is not None:
                entries.append(_block_entry(line))
            else:  # a swallowed press made no request: it has no place among entries
                clicks.append({"seq": line.seq, "time": line.time, "label": line.label,
                               "event": line.event, "rule": line.rule,
                               "frame_url": line.frame_url})
    entries.sort(key=lambda e: (e["startedDateTime"], e["_ajantik"]["seq"]))
    start = record.start
    log: dict[str, Any] = {
        "version": HAR_VERSION,
        "creator": {"name": "ajantik", "version": __version__},
        "pages": [],
        "entries": entries,
        "comment": _log_comment(record, len(clicks)),
        "_ajantik": {"start": _start_data(start),
                     "end": None if record.end is None else
                     {"reason": record.end.reason, "counts": record.end.counts,
                      "time": record.end.time},
                     "click_blocks": clicks, "notes": record.notes()},
    }
    if start is not None and start.browser:
        name, _, version = start.browser.partition("/")
        log["browser"] = {"name": name, "version": version}
    return {"log": log}


def _log_comment(record: LoadedRecord, clicks: int) -> str:
    parts = [f"exported by ajantik from {record.path.name}"]
    if clicks:
        parts.append(f"{clicks} swallowed press(es) are listed in _ajantik.click_blocks")
    parts.extend(record.notes())
    return "; ".join(parts)
