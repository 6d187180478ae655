"""The redaction corpus: every secret shape, sent from a real page through the guard.

For each shape the test proves the secret really travelled (the site's own hit log, or
what the page read back), finds the record line it produced, and then asserts that the
exact secret string appears nowhere in the record file, the guard's log output, the HAR
export or `record show`. Ordinary bodies must come out byte-identical.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import secrets
import zlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest
import pytest_asyncio
from click.testing import CliRunner

from ajantik_cdp.cli.main import cli
from ajantik_cdp.core.record.record_schema import RequestLine
from tests.conftest import GuardFactory
from tests.record.helpers import SEND_JS, guarded_page, requests_to, wait_for_record
from tests.record.secret_site import SecretSite

ORDINARY = '{"name": "Ada Lovelace"}'


@pytest_asyncio.fixture(loop_scope="session")
async def secret_site() -> AsyncIterator[SecretSite]:
    s = SecretSite()
    await s.start()
    yield s
    await s.stop()


@pytest.fixture
def guard_log() -> Iterator[list[str]]:
    """Everything the guard logs, at every level, whatever handlers others installed."""
    messages: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(self.format(record))

    logger = logging.getLogger("ajantik")
    handler, level = Keep(logging.DEBUG), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield messages
    logger.removeHandler(handler)
    logger.setLevel(level)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def pct(text: str) -> str:
    return quote(text, safe="")


def deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


@dataclass
class Corpus:
    """Secrets made fresh for this run, and what each request case expects."""

    secrets: dict[str, str] = field(default_factory=dict)
    # Secrets that travel only inside another encoding (a JWT claim, a SAML message before
    # base64) or only towards the page: never in the site's hit log as they are.
    hidden: set[str] = field(default_factory=set)

    def new(self, name: str, hidden: bool = False) -> str:
        value = f"Sekret{name}{secrets.token_hex(6)}"
        self.secrets[name] = value
        if hidden:
            self.hidden.add(name)
        return value

    def jwt(self, name: str, hidden: bool = False) -> str:
        claim = self.new(name + "Claim", hidden=True)
        token = ".".join([b64url(b'{"alg":"HS256","typ":"JWT"}'),
                          b64url(json.dumps({"sub": claim}).encode()),
                          b64url(secrets.token_bytes(32))])
        self.secrets[name] = token
        if hidden:
            self.hidden.add(name)
        return token

    def encoded(self, name: str, value: str, hidden: bool = False) -> str:
        self.secrets[name] = value
        if hidden:
            self.hidden.add(name)
        return value


@dataclass(frozen=True)
class Case:
    path: str  # unique per case: finds the hit and the record line
    js: str  # evaluated in the page; returns the status the page saw
    withheld: str  # "body", "header:<name>" or "url"


def post(path: str, body: str, headers: dict[str, str] | None = None) -> str:
    return f"post({json.dumps(path)}, {json.dumps(body)}, {json.dumps(headers or {})})"


def cases(c: Corpus, login_origin: str) -> list[Case]:
    js_json = {"Content-Type": "application/json"}
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    issuer = c.new("SamlIssuer", hidden=True)
    saml_xml = (f'<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">'
                f'<saml:Issuer>{issuer}</saml:Issuer></samlp:AuthnRequest>')
    saml_resp = (f'<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">'
                 f'<saml:Assertion><saml:NameID>{c.new("SamlNameId", hidden=True)}</saml:NameID>'
                 f'</saml:Assertion></samlp:Response>')
    # The base64 messages, and the same percent-encoded as the form carries them.
    saml_req = c.encoded("SamlRequestSent", pct(c.encoded(
        "SamlRequestB64", b64(deflate(saml_xml.encode())), hidden=True)))
    saml_resp = c.encoded("SamlResponseSent", pct(c.encoded(
        "SamlResponseB64", b64(saml_resp.encode()), hidden=True)))
    # An ordinary body: withheld only because it goes to the `redact` (login) host.
    login_body = json.dumps({"name": "Ada", "memo": c.new("LoginHost")})
    multipart = ("(() => { const f = new FormData(); f.append('user', 'ada'); "
                 f"f.append('password', {json.dumps(c.new('Multipart'))}); "
                 "return send('/api/multipart', {method: 'POST', body: f}); })()")
    return [
        Case("/api/json-password", post("/api/json-password", json.dumps(
            {"user": {"profile": {"login": {"password": c.new("JsonPassword")}}}}), js_json),
            "body"),
        Case("/api/json-token", post("/api/json-token", json.dumps(
            {"items": [{"meta": {"access_token": c.new("JsonToken")}}]}), js_json), "body"),
        Case("/api/json-secret", post("/api/json-secret", json.dumps(
            {"config": {"webhook": {"secret": c.new("JsonSecret")}}}), js_json), "body"),
        Case("/api/json-api-key", post("/api/json-api-key", json.dumps(
            {"integration": {"api_key": c.new("JsonApiKey")}}), js_json), "body"),
        Case("/api/json-client-secret", post("/api/json-client-secret", json.dumps(
            {"oauth": {"client_id": "portal", "client_secret": c.new("ClientSecret")}}),
            js_json), "body"),
        Case("/api/form", post("/api/form", f"username=ada&password={c.new('FormPw')}", form),
             "body"),
        Case("/api/multipart", multipart, "body"),
        Case("/api/saml-request", post(
            "/api/saml-request", f"SAMLRequest={saml_req}&RelayState=r1", form), "body"),
        Case("/api/saml-response", post(
            "/api/saml-response", f"SAMLResponse={saml_resp}", form), "body"),
        Case("/api/cookie-body", post("/api/cookie-body", json.dumps(
            {"cookies": [{"name": "sessionid", "value": c.new("CookieInBody")}]}), js_json),
            "body"),
        Case("/api/jwt-json", post("/api/jwt-json", json.dumps(
            {"note": "attached", "attachment": {"ref": c.jwt("JwtJson")}}), js_json), "body"),
        Case("/api/jwt-text", post("/api/jwt-text",
                                   f"please use {c.jwt('JwtText')} for the next step"), "body"),
        Case("/api/authorization", post("/api/authorization", ORDINARY,
                                        {"Authorization": f"Bearer {c.new('Bearer')}"}),
             "header:Authorization"),
        Case("/api/x-api-key", post("/api/x-api-key", ORDINARY,
                                    {"X-API-Key": c.new("HeaderApiKey")}),
             "header:X-API-Key"),
        Case(f"/api/query?page=2&access_token={c.new('QueryToken')}"
             f"&ref={c.jwt('QueryJwt')}",
             post(f"/api/query?page=2&access_token={c.secrets['QueryToken']}"
                  f"&ref={c.secrets['QueryJwt']}", ORDINARY), "url"),
        Case("/login/session", f"send({json.dumps(login_origin + '/login/session')}, "
             f"{{method: 'POST', body: {json.dumps(login_body)}}})", "body"),
        # Last: the cookie stays in the jar for every later request of this context.
        Case("/api/cookie-header",
             f"(() => {{ document.cookie = 'sessionid={c.new('CookieJar')}; path=/'; "
             f"return {post('/api/cookie-header', ORDINARY)}; }})()", "header:Cookie"),
    ]


def all_outputs(record_path: Path, log: list[str], tmp_path: Path) -> dict[str, str]:
    har_path = tmp_path / "corpus.har"
    runner = CliRunner()
    har = runner.invoke(cli, ["record", "har", str(record_path), "-o", str(har_path)])
    assert har.exit_code == 0, har.output
    show = runner.invoke(cli, ["record", "show", "--full", "--width", "400", str(record_path)])
    assert show.exit_code == 0, show.output
    return {"record": record_path.read_text(), "log": "\n".join(log),
            "har": har_path.read_text(), "show": show.output}


@pytest.mark.browser
async def test_no_secret_shape_reaches_record_log_or_har(
        pw, guard: GuardFactory, secret_site: SecretSite, guard_log: list[str],
        tmp_path: Path) -> None:
    c = Corpus()
    site = secret_site
    site.token_body = json.dumps({
        "access_token": c.new("RespAccess", hidden=True), "token_type": "Bearer",
        "refresh_token": c.new("RespRefresh", hidden=True),
        "id_token": c.jwt("RespJwt", hidden=True),
    }).encode()
    site.token_headers = {
        "Set-Cookie": f"sessionid={c.new('SetCookie', hidden=True)}; Path=/; HttpOnly",
        "Authorization": f"Bearer {c.new('RespAuthorization', hidden=True)}",
        "Proxy-Authorization": "Basic " + c.encoded(
            "ProxyAuth", b64(f"proxy:{c.new('ProxyPw', hidden=True)}".encode()), hidden=True),
        "X-API-Key": c.new("RespApiKey", hidden=True),
    }
    g = await guard({"record": ["/api/token-read", "/api/profile"],
                     "redact": [f"^{re.escape(site.b)}/"]})
    corpus = cases(c, site.b)
    async with guarded_page(pw, g.url, site.page("corpus", SEND_JS)) as page:
        for case in corpus:
            assert await page.evaluate(case.js) == 200, case.path
        # The same secret body twice, and a recorded read and write full of secrets.
        assert await page.evaluate(corpus[0].js) == 200
        read_back = await page.evaluate(
            "fetch('/api/token-read').then(r => r.text())")
        assert c.secrets["RespAccess"] in read_back  # the page did receive it
        assert await page.evaluate(post("/api/token", ORDINARY, {})) == 200
        assert await page.evaluate(post("/api/ordinary", ORDINARY,
                                        {"Content-Type": "application/json"})) == 200
        assert await page.evaluate("send('/api/profile')") == 200

    # Every request-side secret really reached the server.
    for name, value in c.secrets.items():
        if name in c.hidden:
            continue
        assert any(h.carries(value) for h in site.hits), f"{name} never reached the site"

    expected = len(corpus) + 5
    record = await wait_for_record(g.record, lambda r: len(r.requests) >= expected)
    assert len(record.requests) == expected

    for case in corpus:
        path = case.path.split("?")[0]
        lines = requests_to(record, path)
        assert lines, f"no record line for {case.path}"
        line = lines[0]
        if case.withheld == "body":
            assert line.request_body.withheld is not None, line
        elif case.withheld == "url":
            assert "access_token=%5Bwithheld%5D" in line.url and "page=2" in line.url
        else:
            header = case.withheld.partition(":")[2]
            assert line.request_headers[header].startswith("[withheld] hmac-sha256:")
    (login,) = requests_to(record, "/login/session")
    assert login.request_body.withheld and "redact[0]" in login.request_body.withheld.reason

    first, again = requests_to(record, corpus[0].path)
    assert first.request_body.withheld and again.request_body.withheld
    assert first.request_body.withheld.fingerprint == again.request_body.withheld.fingerprint
    other = requests_to(record, corpus[1].path)[0].request_body.withheld
    assert other and other.fingerprint != first.request_body.withheld.fingerprint

    (token_read,) = requests_to(record, "/api/token-read")
    (token_write,) = [ln for ln in requests_to(record, "/api/token") if ln.method == "POST"]
    for line in (token_read, token_write):
        assert line.system is not None and line.system.body is not None
        assert line.system.body.withheld is not None
        for header in ("Authorization", "Proxy-Authorization", "X-API-Key"):
            assert line.system.headers[header].startswith("[withheld] hmac-sha256:"), header
        # Measured on Chrome 156: Fetch leaves Set-Cookie out of responseHeaders. Should a
        # later Chrome pass it on, it must be withheld (and the leak check covers it).
        set_cookie = line.system.headers.get("Set-Cookie", "[withheld] hmac-sha256:")
        assert set_cookie.startswith("[withheld] hmac-sha256:")

    # Ordinary evidence is kept whole, byte for byte.
    (ordinary,) = requests_to(record, "/api/ordinary")
    assert ordinary.request_body.text == ORDINARY and ordinary.request_body.withheld is None
    (profile,) = requests_to(record, "/api/profile")
    assert profile.system is not None and profile.system.body is not None
    assert profile.system.body.text == ORDINARY
    assert requests_to(record, "/api/authorization")[0].request_body.text == ORDINARY

    outputs = all_outputs(g.record, guard_log, tmp_path)
    assert "Ada Lovelace" in outputs["har"] and "Ada Lovelace" in outputs["show"]
    leaks = [(name, where) for name, value in c.secrets.items()
             for where, text in outputs.items() if value in text]
    assert leaks == []


def test_corpus_secrets_are_what_the_redactor_must_catch() -> None:
    """The corpus itself, checked: every secret is distinct and long enough that finding
    it in an output cannot be a coincidence."""
    c = Corpus()
    built = cases(c, "http://127.0.0.2:1")
    assert len({case.path for case in built}) == len(built)
    assert len(set(c.secrets.values())) == len(c.secrets)
    assert all(len(v) >= 16 for v in c.secrets.values())
    assert all(isinstance(v, str) for v in c.secrets.values())
    assert RequestLine  # the schema the corpus is read through
