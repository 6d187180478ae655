"""A small record with one line of every shape, built through the schema's own encoder."""

from __future__ import annotations

from ajantik_cdp.core.record.record_schema import (
    BlockLine,
    Body,
    EndLine,
    RecordLine,
    RequestLine,
    StartLine,
    SystemAnswer,
    Withheld,
    encode,
)

APP = "https://app.example.com"
FP = "hmac-sha256:0123456789abcdef0123456789abcdef"
DRAFT = '{"record": "R-101", "name": "Ada Lovelace"}'


def _request(seq: int, **kw: object) -> RequestLine:
    base: dict[str, object] = dict(
        seq=seq, target_id="T1", target_type="page", frame_url=f"{APP}/filing",
        method="POST", url=f"{APP}/api/draft", resource_type="Fetch",
        request_headers={"Content-Type": "application/json",
                         "Authorization": f"[withheld] {FP}"},
        request_body=Body(length=len(DRAFT), text=DRAFT),
        system=SystemAnswer(status=201, headers={"Content-Type": "application/json"},
                            body=Body(length=11, text='{"id": 101}')),
        fault=None, client_status=201, time=f"2025-03-04T10:00:0{seq}.000Z")
    base.update(kw)
    return RequestLine(**base)  # type: ignore[arg-type]


def sample_lines() -> list[RecordLine]:
    withheld = Body(length=57, withheld=Withheld("field 'password'", FP))
    return [
        StartLine(guard_version="0.1.0", browser="Chrome/156.0.8078.108",
                  protocol_version="1.3", config_sha256="ab" * 32,
                  fault={"kind": "phantom_failure", "pattern": "/api/save", "at": 1},
                  time="2025-03-04T10:00:00.000Z"),
        _request(1),
        _request(2, url="https://login.example.com/session", request_body=withheld,
                 system=SystemAnswer(status=302, headers={"Location": f"{APP}/home"},
                                     body=None), client_status=302),
        _request(3, url=f"{APP}/api/save", fault="phantom_failure", client_status=500),
        _request(4, url=f"{APP}/api/submit", fault="phantom_success", system=None,
                 client_status=204),
        _request(5, url=f"{APP}/api/flaky", system=SystemAnswer(status=None,
                                                                 error="ConnectionRefused"),
                 client_status=None, client_error="ConnectionRefused"),
        _request(6, method="GET", url=f"{APP}/api/profile?tab=1", resource_type="XHR",
                 request_body=Body(length=0, text="")),
        BlockLine(seq=7, source="network", reason="deny", rule="deny[0] 'submission'",
                  target_id="T1", target_type="page", frame_url=f"{APP}/filing",
                  method="POST", url=f"{APP}/api/submission", resource_type="Fetch",
                  time="2025-03-04T10:00:07.000Z"),
        BlockLine(seq=8, source="click", reason="deny_clicks", rule="deny_clicks[0]",
                  target_id="T1", target_type="page", frame_url=f"{APP}/filing",
                  label="Submit filing", event="click", time="2025-03-04T10:00:08.000Z"),
        EndLine(reason="signal SIGTERM",
                counts={"request": 6, "write": 5, "block": 2, "fault": 2},
                time="2025-03-04T10:00:09.000Z"),
    ]


def sample_bytes() -> bytes:
    return b"".join(encode(line) for line in sample_lines())
