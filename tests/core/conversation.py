"""Tests of the interception state machine written as conversations, after the idea of
mitmproxy's Playbook: ``>>`` feeds the machine an event, ``<<`` states the command it must
answer with, in order; the conversation is checked when it is asserted. Nothing else may
come out, so a test also fails on a command it did not expect.

    assert (Conversation(machine)
            >> paused(post("r1"))
            << Continue(None, "r1", True))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ajantik_cdp.core.guard.interception import Command, Interception

AT = "2026-12-01T10:00:00.000Z"


class Placeholder:
    """A value the test cannot know in advance (a ticket number): bound by the first
    command it is compared with, and usable in later events."""

    def __init__(self) -> None:
        self.value: Any = None
        self.bound = False

    def __eq__(self, other: object) -> bool:
        if not self.bound:
            self.value, self.bound = other, True
        return bool(self.value == other)

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"Placeholder({self.value!r})" if self.bound else "Placeholder()"


def _resolve(value: Any) -> Any:
    return value.value if isinstance(value, Placeholder) else value


@dataclass(frozen=True)
class Paused:
    session_id: str | None
    params: dict[str, Any]


@dataclass(frozen=True)
class FrameFound:
    ticket: Any
    target_id: str | None
    frame_url: str | None


@dataclass(frozen=True)
class BodyRead:
    request_id: str
    body: bytes | None
    session_id: str | None = None


@dataclass(frozen=True)
class Like:
    """A command of ``kind`` for which ``check`` holds (reports carry whole requests)."""

    kind: type
    check: Callable[[Any], bool] = field(default=lambda _: True)
    label: str = ""

    def matches(self, command: object) -> bool:
        return isinstance(command, self.kind) and self.check(command)

    def __repr__(self) -> str:
        return f"Like({self.kind.__name__}{', ' + self.label if self.label else ''})"


Event = Paused | FrameFound | BodyRead


class Conversation:
    def __init__(self, machine: Interception) -> None:
        self.machine = machine
        self.steps: list[tuple[str, Any]] = []

    def __rshift__(self, event: Event) -> Conversation:
        self.steps.append(("in", event))
        return self

    def __lshift__(self, command: Command | Like) -> Conversation:
        self.steps.append(("out", command))
        return self

    def _feed(self, event: Event) -> list[Command]:
        if isinstance(event, Paused):
            return self.machine.paused(event.session_id, event.params, AT)
        if isinstance(event, FrameFound):
            return self.machine.frame_found(_resolve(event.ticket), event.target_id,
                                            event.frame_url)
        return self.machine.body_read(event.session_id, event.request_id, event.body)

    def __bool__(self) -> bool:
        pending: list[Command] = []
        transcript: list[str] = []
        for direction, item in self.steps:
            if direction == "in":
                if pending:
                    raise AssertionError(_story(transcript, f"unexpected {pending[0]!r} "
                                                            f"before {item!r}"))
                transcript.append(f">> {item!r}")
                pending = list(self._feed(item))
                continue
            if not pending:
                raise AssertionError(_story(transcript, f"expected {item!r}, got nothing"))
            got = pending.pop(0)
            ok = item.matches(got) if isinstance(item, Like) else item == got
            transcript.append(f"<< {got!r}")
            if not ok:
                raise AssertionError(_story(transcript, f"expected {item!r}"))
        if pending:
            raise AssertionError(_story(transcript, f"unexpected {pending[0]!r} at the end"))
        return True


def _story(transcript: list[str], problem: str) -> str:
    return "\n".join([*transcript, f"!! {problem}"])


def request(request_id: str, url: str, *, method: str = "POST", kind: str = "Fetch",
            frame: str | None = "PAGE", body: str | None = "x",
            redirected: bool = False) -> dict[str, Any]:
    """The params of a request-stage Fetch.requestPaused."""
    req: dict[str, Any] = {"url": url, "method": method, "headers": {"Content-Type":
                                                                     "text/plain"}}
    if body is not None:
        req["postData"] = body
    params: dict[str, Any] = {"requestId": request_id, "request": req, "resourceType": kind}
    if frame is not None:
        params["frameId"] = frame
    if redirected:
        params["redirectedRequestId"] = request_id + "-before"
    return params


def response(request_id: str, url: str, status: int | None = 200, *,
             error: str | None = None) -> dict[str, Any]:
    """The params of a response-stage Fetch.requestPaused."""
    params: dict[str, Any] = {"requestId": request_id, "request": {"url": url,
                                                                   "method": "POST"},
                              "resourceType": "Fetch"}
    if error is not None:
        params["responseErrorReason"] = error
    else:
        params["responseStatusCode"] = status
        params["responseHeaders"] = [{"name": "Content-Type", "value": "application/json"}]
    return params
