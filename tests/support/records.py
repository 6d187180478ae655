"""Guard records for judge tests, written through the record writer itself, so they are
exactly what a guard would write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ajantik_cdp.core.record.record_schema import (
    RECORD_VERSION,
    BlockLine,
    Body,
    EscapedLine,
    RequestLine,
    StartLine,
    SystemAnswer,
    Withheld,
)
from ajantik_cdp.record.writer import RecordWriter

ORIGIN = "http://127.0.0.1:8765"


def json_body(data: Any) -> Body:
    raw = orjson.dumps(data)
    return Body(length=len(raw), text=raw.decode())


def withheld_body(reason: str = "field 'token'") -> Body:
    return Body(length=42, withheld=Withheld(reason, "hmac-sha256:" + "0" * 32))


class RecordBuilder:
    def __init__(self, path: Path, fault: dict[str, Any] | None = None,
                 film: dict[str, Any] | None = None) -> None:
        """``film``: the start line's film field (the end line then counts frames)."""
        self.path = path
        self.writer = RecordWriter(path, RECORD_VERSION, filmed=film is not None)
        self.writer.start(StartLine(guard_version="test", browser="Chrome/156",
                                    protocol_version="1.3", config_sha256="0" * 64,
                                    fault=fault, film=film))

    def exchange(self, method: str, path: str, *, sent: Any = None,
                 answer: Any = None, status: int | None = 200, fault: str | None = None,
                 client_status: int | None = None, reached: bool = True,
                 error: str | None = None, answer_body: Body | None = None,
                 started: str | None = None, time: str | None = None) -> None:
        """One request line. ``reached=False``: a fault answered it (system is None);
        ``error``: it was sent and no answer came back. ``started`` and ``time`` (ISO
        8601): when the guard held it and when its outcome was known (default: now)."""
        system = None
        if reached:
            if error is not None:
                system = SystemAnswer(status=None, error=error)
            else:
                body = answer_body if answer_body is not None else (
                    json_body(answer) if answer is not None else Body(length=0, text=""))
                system = SystemAnswer(status=status, headers={"Content-Type": "application/json"},
                                      body=body)
        self.writer.write(RequestLine(
            seq=self.writer.next_seq(), target_id="T1", target_type="page",
            frame_url=ORIGIN + "/", method=method, url=ORIGIN + path, resource_type="Fetch",
            request_headers={}, request_body=json_body(sent) if sent is not None else Body(0, ""),
            system=system, fault=fault,
            client_status=client_status if client_status is not None else (
                None if error else status),
            client_error=error, started=started, **({"time": time} if time else {}),
        ))

    def block(self, method: str, path: str) -> None:
        self.writer.write(BlockLine(seq=self.writer.next_seq(), source="network", reason="deny",
                                    rule="deny[0] 'submission'", target_id="T1",
                                    target_type="page", frame_url=ORIGIN + "/", method=method,
                                    url=ORIGIN + path, resource_type="Fetch"))

    def escaped(self, path: str) -> None:
        """A WebSocket the rules refuse whose handshake Chrome sent anyway."""
        self.writer.write(EscapedLine(
            seq=self.writer.next_seq(), source="websocket", reason="deny",
            rule="deny[0] 'submission'", target_id="T1", target_type="page",
            frame_url=ORIGIN + "/", url=ORIGIN.replace("http", "ws") + path,
            stage="opened", closed="its renderer crashed by the guard"))

    def close(self, reason: str = "test finished") -> Path:
        self.writer.close(reason)
        return self.path

    def abandon(self) -> Path:
        """Stop without an end line, as a killed guard would."""
        import os

        assert self.writer._fd is not None
        os.close(self.writer._fd)
        self.writer._fd = None
        return self.path
