"""A ``Fetch.requestPaused`` event, read once into plain values.

Chrome pauses a request twice at most: at the request stage (before it leaves) and, when
the guard asked for it, at the response stage (the system's answer is in, the page has
not seen it). Each stage is its own dataclass.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ajantik_cdp.core.policy.rules import RequestFacts, Source


@dataclass(frozen=True)
class PausedRequest:
    request_id: str
    session_id: str | None  # None: paused on the guard's browser session (the net)
    frame_id: str | None
    method: str
    url: str
    resource_type: str
    headers: dict[str, str]
    body: bytes | None
    is_redirect: bool
    paused_at: str  # when the guard first held it (ISO time, given by the caller)
    # Why ``body`` is not the whole body as sent (Chrome's pause left parts out), or None.
    body_unseen: str | None = None

    def facts(self, source: Source = Source.PAGE) -> RequestFacts:
        return RequestFacts(self.method, self.url, self.resource_type, self.is_redirect,
                            source)


@dataclass(frozen=True)
class PausedResponse:
    request_id: str
    session_id: str | None
    status: int | None
    headers: dict[str, str]
    error: str | None  # Chrome's reason when the request failed before an answer


def is_response_stage(params: Mapping[str, Any]) -> bool:
    return (params.get("responseStatusCode") is not None
            or params.get("responseErrorReason") is not None)


# Resource types Chrome gives an EventSource's request (measured on Chrome 156: "XHR",
# from a page and from a worker); its Accept header is what names it.
_EVENT_SOURCE_AS = frozenset({"XHR", "Fetch", "Other"})


def resource_type(params: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    given = str(params.get("resourceType", "Other"))
    accept = next((v for k, v in headers.items() if k.lower() == "accept"), "")
    if given in _EVENT_SOURCE_AS and accept.strip().lower().startswith("text/event-stream"):
        return "EventSource"
    return given


def read_request(session_id: str | None, params: Mapping[str, Any],
                 paused_at: str) -> PausedRequest:
    req = params.get("request") or {}
    frame_id = params.get("frameId")
    headers = {str(k): str(v) for k, v in (req.get("headers") or {}).items()}
    body, unseen = post_body(req)
    return PausedRequest(
        request_id=str(params.get("requestId", "")),
        session_id=session_id,
        frame_id=frame_id if isinstance(frame_id, str) and frame_id else None,
        method=str(req.get("method", "GET")),
        url=str(req.get("url", "")) + str(req.get("urlFragment", "")),
        resource_type=resource_type(params, headers),
        headers=headers,
        body=body,
        is_redirect=params.get("redirectedRequestId") is not None,
        paused_at=paused_at,
        body_unseen=unseen,
    )


def read_response(session_id: str | None, params: Mapping[str, Any]) -> PausedResponse:
    status = params.get("responseStatusCode")
    error = params.get("responseErrorReason")
    return PausedResponse(
        request_id=str(params.get("requestId", "")),
        session_id=session_id,
        status=int(status) if isinstance(status, int) else None,
        headers={str(h.get("name", "")): str(h.get("value", ""))
                 for h in params.get("responseHeaders") or [] if isinstance(h, Mapping)},
        error=str(error) if error is not None else None,
    )


def post_body(req: Mapping[str, Any]) -> tuple[bytes | None, str | None]:
    """The body as Chrome's pause carries it, and why it is not all of it (or None).

    Measured on Chrome 156: a multipart form holding a file set from disk
    (``DOM.setFileInputFiles``, Puppeteer's ``uploadFile``) pauses with an empty entry,
    ``{}``, for the file: no bytes, no name, and no ``Content-Length`` header; Chrome's
    ``Network.getRequestPostData`` answers "No post data available" for it. A file the
    page built in memory (Playwright's ``setInputFiles`` over CDP, a ``Blob``) has its
    bytes. A body Chrome says it has (``hasPostData``) and gives none of (a streamed
    body) is the same case: the guard cannot see it, so it says so rather than record a
    wrong length or an empty body."""
    entries = req.get("postDataEntries")
    if isinstance(entries, list) and entries:
        parts = [e for e in entries if isinstance(e, Mapping)]
        missing = sum("bytes" not in e for e in parts)
        try:
            seen = b"".join(base64.b64decode(e.get("bytes", "")) for e in parts)
        except (binascii.Error, ValueError):
            seen = None
        if seen is not None:
            if missing:
                return seen, (f"Chrome's pause left out {missing} of {len(parts)} parts of "
                              "the body (a file read from disk, or a stream), and names "
                              "neither their bytes nor their length")
            return seen, None
    data = req.get("postData")
    if isinstance(data, str):
        return data.encode(), None
    if req.get("hasPostData"):
        return b"", ("Chrome's pause carried none of the body it says the request has (a "
                     "streamed body, or a file read from disk)")
    return None, None
