"""What a WebSocket the rules refuse became, from the events Chrome sends (sequences as
measured on Chrome 156: see core/guard/socket_watch.py), and how the guard ends one that
got through."""

from __future__ import annotations

from ajantik_cdp.core.guard.socket_watch import (
    KEPT,
    SocketFate,
    SocketWatch,
    answered_url,
    close_step,
)

OFFLINE = "Error in connection establishment: net::ERR_INTERNET_DISCONNECTED"


def test_chromes_refusal_is_a_block_and_nothing_else() -> None:
    w = SocketWatch()
    w.created("S", "1", "ws://h/denied", refused=True)
    news = w.failed("S", "1", OFFLINE)
    assert news is not None and news.outcome is SocketFate.BLOCKED
    assert w.failed("S", "1", OFFLINE) is None  # told once
    assert w.handshake("S", "1", opened=False) is None


def test_a_handshake_of_a_refused_socket_is_an_escape_never_a_block() -> None:
    w = SocketWatch()
    w.created("S", "1", "ws://h/dEnIeD", refused=True)
    news = w.handshake("S", "1", opened=False)
    assert news is not None and news.outcome is SocketFate.ESCAPED
    assert news.stage == "handshake sent"
    # Whatever follows (the answer, an error when the guard ends it) tells nothing more.
    assert w.handshake("S", "1", opened=True) is None
    assert w.failed("S", "1", OFFLINE) is None
    assert w.escaped("S", "1")  # its answer asks the guard to end it again
    # An answer seen first (its request event lost) is an escape too.
    w.created("S", "2", "ws://h/denied", refused=True)
    opened = w.handshake("S", "2", opened=True)
    assert opened is not None and opened.stage == "opened"


def test_allowed_sockets_and_failures_of_their_own_write_nothing() -> None:
    w = SocketWatch()
    w.created("S", "1", "ws://h/allowed", refused=False)
    assert w.handshake("S", "1", opened=True) is None
    assert not w.escaped("S", "1")
    w.created("S", "2", "ws://h/denied", refused=True)
    # The site was down: not stopped by the guard, so no block line either.
    assert w.failed("S", "2", "net::ERR_CONNECTION_REFUSED") is None
    # Events for sockets never seen created, or on another session, are ignored.
    assert w.handshake("S", "9", opened=True) is None
    assert w.handshake("T", "2", opened=True) is None


def test_memory_is_bounded_and_sessions_forgotten() -> None:
    w = SocketWatch()
    for n in range(KEPT + 10):
        w.created("S", str(n), "ws://h/denied", refused=True)
    assert len(w) == KEPT
    w.closed("S", str(KEPT + 9))
    w.session_gone("S")
    assert len(w) == 0


def test_an_escape_is_ended_by_its_target_or_the_document_that_runs_it() -> None:
    page = close_step("page", "P", "SP", [])
    assert page is not None and (page.method, page.session_id) == ("Page.crash", "SP")
    frame = close_step("iframe", "F", "SF", [("page", "SP", "P")])
    assert frame is not None and (frame.method, frame.session_id) == ("Page.crash", "SF")
    for kind in ("shared_worker", "service_worker"):
        step = close_step(kind, "W", "SW", [])
        assert step is not None and step.method == "Target.closeTarget"
        assert step.params == {"targetId": "W"} and step.session_id is None
    # A dedicated worker cannot be closed as a target: the nearest document is crashed.
    nested = close_step("worker", "W2", "S2", [("worker", "S1", "W1"), ("iframe", "SF", "F"),
                                                ("page", "SP", "P")])
    assert nested is not None and (nested.method, nested.session_id) == ("Page.crash", "SF")
    under_shared = close_step("worker", "W2", "S2", [("shared_worker", "SS", "SH")])
    assert under_shared is not None and under_shared.params == {"targetId": "SH"}
    assert close_step("worker", "W", "S", []) is None  # the record says it was not closed


def test_a_sockets_url_is_read_from_chromes_request_line_when_its_creation_was_missed() -> None:
    line = "GET ws://127.0.0.1:37099/dEnIeD-page HTTP/1.1\r\nHost: 127.0.0.1:37099\r\n\r\n"
    assert answered_url({"status": 101, "requestHeadersText": line}) == \
        "ws://127.0.0.1:37099/dEnIeD-page"
    assert answered_url({"requestHeadersText": "GET /x HTTP/1.1\r\n"}) is None
    assert answered_url({"requestHeadersText": "POST ws://h/ HTTP/1.1"}) is None
    assert answered_url({"status": 101}) is None
    assert answered_url(None) is None
