"""The canonicaliser against a real server: aiohttp on loopback, sent random spellings of
paths as raw request lines. Whatever handler aiohttp's router picks, the rule engine must
have believed the path could be that: a spelling that reaches the ``/submission`` handler
is denied, one the allowlist admits reaches the allowed handler, and aiohttp's own decoded
path is always among the readings the rules are searched in.

No browser: Chrome normalises some spellings before they leave it (tests/guard/
test_url_spellings.py measures which); a raw client sends them all."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from collections.abc import Iterator

import pytest
from aiohttp import web
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.canonical_url import url_forms
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.policy.rules import RequestFacts, decide
from ajantik_cdp.local_http import start_app
from tests.support.examples import examples


def _app() -> web.Application:
    app = web.Application()

    def handler(name: str) -> web.Handler:
        async def answer(request: web.Request) -> web.Response:
            return web.Response(text=f"{name}\n{request.rel_url.path_safe}")
        return answer

    app.router.add_route("*", "/submission", handler("submission"))
    app.router.add_route("*", "/submission/{tail:.*}", handler("submission"))
    app.router.add_route("*", "/api/drafts/{tail:.*}", handler("drafts"))
    app.router.add_route("*", "/{tail:.*}", handler("other"))
    return app


@pytest.fixture(scope="module")
def server_port() -> Iterator[int]:
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: dict[str, object] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)
        runner, port = loop.run_until_complete(start_app(_app()))
        box["runner"], box["port"] = runner, port
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30)
    yield int(box["port"])  # type: ignore[call-overload]
    loop.call_soon_threadsafe(loop.stop)
    thread.join(30)


def dispatch(port: int, target: str) -> tuple[str, str] | None:
    """(handler, aiohttp's decoded path) for a raw POST of ``target``, or None when
    aiohttp refuses the request line."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"POST {target} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                     "Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        return None
    name, _, path = body.decode("utf-8").partition("\n")
    return name, path


def upper_escapes(path: str) -> str:
    return re.sub(r"%[0-9a-fA-F]{2}", lambda m: m.group().upper(), path)


BASES = ["/submission", "/submission/final", "/api/drafts/7", "/api/drafts/a/b",
         "/other/submissions", "/a/submission", "/api/submission"]
PIECES = ["/", "//", "/./", "/../", "/x/../", "%2e", "%2E%2e", ".%2e", "%2f", "%2F", "%5c",
          "%5C", ";v=1", "%3b", "%3f", "%23", "%25", "%2573", "%252f", "%20", "%00", ".",
          "%EF%BD%93"]


@st.composite
def spelling(draw: st.DrawFn) -> str:
    """A base path with characters escaped (random hex case, sometimes twice) and junk
    spliced in at random places."""
    base = draw(st.sampled_from(BASES))
    out: list[str] = []
    for ch in base:
        choice = draw(st.integers(0, 9))
        if ch != "/" and choice < 3:
            esc = f"%{ord(ch):02x}" if choice == 0 else f"%{ord(ch):02X}"
            out.append(esc if choice < 2 else "%25" + esc[1:])
        else:
            out.append(ch)
        if draw(st.integers(0, 12)) == 0:
            out.append(draw(st.sampled_from(PIECES)))
    return "".join(out)


DENY_ANCHORED = parse_config({"deny": [r"^http://127\.0\.0\.1:\d+/submission(/|$)"]})
DENY_PLAIN = parse_config({"deny": ["submission"]})
ALLOW = parse_config({"allow_writes": [r"^http://127\.0\.0\.1:\d+/api/drafts/"]})


@examples(400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spelling())
def test_the_router_and_the_rule_engine_agree(server_port: int, target: str) -> None:
    got = dispatch(server_port, target)
    if got is None:
        return
    handler, router_path = got
    url = f"http://127.0.0.1:{server_port}{target}"
    paths = {r.split(f":{server_port}", 1)[1] for r in url_forms(url).server}
    assert upper_escapes(router_path) in paths, (target, router_path, paths)
    facts = RequestFacts("POST", url, "Fetch")
    if handler == "submission":
        assert decide(DENY_ANCHORED, facts).blocked, target
        assert decide(DENY_PLAIN, facts).blocked, target
    if not decide(ALLOW, facts).blocked:
        assert handler == "drafts", target


@st.composite
def agreed_spelling(draw: st.DrawFn) -> tuple[str, str]:
    """A base path and a spelling of it that only percent-encodes characters (either
    hex case): every server decodes it back to the base."""
    base = draw(st.sampled_from(BASES))
    spelled = "".join(
        (f"%{ord(ch):02x}" if draw(st.booleans()) else f"%{ord(ch):02X}")
        if ch != "/" and draw(st.booleans()) else ch
        for ch in base)
    return base, spelled


@examples(200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(agreed_spelling())
def test_agreed_spellings_dispatch_where_the_canonical_form_says(server_port: int,
                                                                 case: tuple[str, str]
                                                                 ) -> None:
    base, target = case
    got = dispatch(server_port, target)
    plain = dispatch(server_port, base)
    assert got is not None and plain is not None
    assert got == plain
    url = f"http://127.0.0.1:{server_port}{target}"
    assert url_forms(url).canonical == f"http://127.0.0.1:{server_port}{base}"
    facts = RequestFacts("POST", url, "Fetch")
    assert decide(ALLOW, facts).blocked is (got[0] != "drafts")
    assert decide(DENY_ANCHORED, facts).blocked is (got[0] == "submission")


def test_the_spellings_of_the_issue_reach_the_handler(server_port: int) -> None:
    """The two spellings issue 10 names really are the submission handler for aiohttp,
    and the raw URL holds no 'submission' a rule could find."""
    for target in ("/%73ubmission/x", "/sub%6dission/x"):
        got = dispatch(server_port, target)
        assert got is not None and got[0] == "submission"
        assert "submission" not in target
        assert decide(DENY_PLAIN, RequestFacts(
            "POST", f"http://127.0.0.1:{server_port}{target}", "Fetch")).blocked
