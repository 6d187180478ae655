"""The redactor, without a browser: examples of each secret shape, and properties.

Properties: a secret under a sensitive key at any depth (JSON, form, multipart) or a JWT
anywhere never survives; a body with no secret is kept byte for byte; identical withheld
bodies share a fingerprint under one key and differ across keys.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any
from urllib.parse import quote, urlencode

import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.core.record.record_schema import Body, encode
from ajantik_cdp.core.record.redaction import Redactor, is_secret_header
from ajantik_cdp.core.record.secret_detection import (
    _TEXT_SECRET,
    TOKEN_PATTERNS,
    find_secret,
    has_token,
    is_secret_key,
    mask_tokens,
    text_finds_secret,
)
from tests.support.examples import examples

KEY = b"k" * 32
ORDINARY = b'{"name": "Ada Lovelace"}'


def redactor(config: dict[str, Any] | None = None, key: bytes = KEY) -> Redactor:
    if config is None and key == KEY:
        return _DEFAULT  # a Redactor holds only its config and key: one serves every example
    return Redactor(parse_config(config or {}), key)


_DEFAULT = Redactor(parse_config({}), KEY)


def written(body: Body) -> bytes:
    """Everything of a body that reaches the file."""
    return orjson.dumps(body.__dict__, default=lambda o: o.__dict__)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_jwt(payload: dict[str, Any], header: bytes = b'{"alg":"HS256","typ":"JWT"}') -> str:
    return ".".join([b64url(header), b64url(json.dumps(payload).encode()), b64url(b"s" * 32)])


SAML_XML = ('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">'
            '<saml:Assertion>Zq-saml-subject</saml:Assertion></samlp:Response>')


def deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


# -- examples: every shape the issue names, and the ordinary bodies that must survive ----

SECRET_BODIES = [
    ("application/json", b'{"user": "ada", "password": "Zq-pw-1"}'),
    ("application/json", b'{"a": {"b": [{"c": {"access_token": "Zq-tok-2"}}]}}'),
    ("application/json", b'{"client": {"client_secret": "Zq-cs-3"}}'),
    ("application/json", b'{"config": {"apiKey": "Zq-key-4"}}'),
    ("application/json", b'{"x": {"API-Key": "Zq-key-5"}}'),
    ("application/json", b'{"secret": "Zq-6"}'),
    ("application/json", b'{"password": ["Zq-in-list-7"]}'),
    ("application/json", b'{"credentials": {"user": "ada", "pin": 4821}}'),
    ("application/json", b'{"otp": 123456}'),
    ("application/json", b'{"cookies": [{"name": "sessionid", "value": "Zq-sess-8"}]}'),
    ("application/json", b'[{"name": "JSESSIONID", "value": "Zq-sess-9"}]'),
    ("application/json", b'{"note": "password=Zq-10"}'),
    ("application/json", b'{"note": "password: Zq-11"}'),
    ("application/json", b'{"next": "https://x.test/cb?token=Zq-12"}'),
    ("application/json", b'{"wrapped": "{\\"refresh_token\\": \\"Zq-13\\"}"}'),
    ("application/json", b'{"h": "Bearer Zq14abcdefghijklmnop"}'),
    ("application/json", b'{"h": "Basic ' + base64.b64encode(b"ada:Zq-15") + b'"}'),
    ("application/json", b'{"jar": "theme=dark; sessionid=Zq-16; lang=en"}'),
    ("application/x-www-form-urlencoded", b"user=ada&password=Zq-17"),
    ("application/x-www-form-urlencoded", b"grant_type=client_credentials&client_secret=Zq-18"),
    ("application/x-www-form-urlencoded",
     b"SAMLResponse=" + quote(base64.b64encode(SAML_XML.encode())).encode() + b"&RelayState=x"),
    ("application/x-www-form-urlencoded",
     b"SAMLRequest=" + quote(base64.b64encode(deflate(SAML_XML.encode()))).encode()),
    ("application/json",
     b'{"blob": "' + base64.b64encode(SAML_XML.encode()) + b'"}'),
    ("application/json",
     b'{"blob": "' + base64.b64encode(deflate(SAML_XML.encode())) + b'"}'),
    ("text/xml", SAML_XML.encode()),
    ("application/xml", b"<login><user>ada</user><password>Zq-19</password></login>"),
    ("text/html", b'<form><input type="hidden" name="csrf_token" value="Zq-20"></form>'),
    ("text/html", b'<meta name="csrf-token" content="Zq-21">'),
    ("text/plain", b"api_key = Zq-22"),
    ("text/plain", b"Set-Cookie: sessionid=Zq-23; Path=/; HttpOnly"),
    ("text/plain", b"-----BEGIN RSA PRIVATE KEY-----\nZq24\n-----END RSA PRIVATE KEY-----"),
    ("application/json", b'{"k": "AKIAZQ2512345678ABCD"}'),
    ("application/json", b'{"k": "sk_live_Zq26abcdefghijklmnop"}'),
    ("application/json", b'{"k": "ghp_Zq27abcdefghijklmnopqrstuvwxyz0123"}'),
]


@pytest.mark.parametrize(("ctype", "data"), SECRET_BODIES)
def test_each_secret_shape_is_withheld(ctype: str, data: bytes) -> None:
    body = redactor().body("https://app.test/api", ctype, data)
    assert body.withheld is not None, data
    assert body.text is None and body.base64 is None
    assert body.length == len(data)
    assert b"Zq" not in written(body)


def test_multipart_password_field_is_withheld() -> None:
    boundary = "----b0undary"
    data = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n"
            f"Zq-mp\r\n--{boundary}--\r\n").encode()
    body = redactor().body("https://app.test/", f"multipart/form-data; boundary={boundary}",
                           data)
    assert body.withheld is not None and body.withheld.reason == "field 'password'"
    assert b"Zq" not in written(body)


def test_jwt_with_a_header_not_starting_eyj_is_found() -> None:
    token = make_jwt({"sub": "ada"}, header=b'{ "alg": "RS256" }')
    assert not token.startswith("eyJ")
    assert find_secret("text/plain", f"see {token} here".encode()) == "token-shaped value"


ORDINARY_BODIES = [
    ("application/json", ORDINARY),
    ("application/json", b'{"secretary": "Jane Doe", "plan": "Basic membership"}'),
    ("application/json", b'{"token_type": "Bearer", "max_tokens": 512, "expires_in": 3600}'),
    ("application/json", b'{"password_policy": "at least 8 characters"}'),
    ("application/json", b'{"author": "Ada", "footprint": 3, "passenger": "Bob"}'),
    ("application/json", b'{"has_password": true, "password": ""}'),
    ("application/json", b'{"record": "R-101", "code": "ABC-1", "key": "filing-7"}'),
    ("application/x-www-form-urlencoded", b"name=Ada+Lovelace&record=R-101"),
    ("text/plain", b"Reset your password by clicking the link in the mail."),
    ("text/html", b'<form><input type="password" name="password"><b>Sign in</b></form>'),
    ("application/json", b'{"site": "www.example-portal.com", "v": "1.2.3"}'),
]


@pytest.mark.parametrize(("ctype", "data"), ORDINARY_BODIES)
def test_ordinary_bodies_are_kept_byte_for_byte(ctype: str, data: bytes) -> None:
    body = redactor().body("https://app.test/api", ctype, data)
    assert body.withheld is None, body
    assert body.text is not None and body.text.encode() == data


def test_redact_rule_withholds_any_body_sent_there() -> None:
    red = redactor({"redact": ["^https://login\\.test/"]})
    body = red.body("https://login.test/session", "application/json", ORDINARY)
    assert body.withheld is not None and "redact[0]" in body.withheld.reason
    assert red.body("https://app.test/x", "application/json", ORDINARY).text == ORDINARY.decode()


def test_binary_body_is_withheld() -> None:
    body = redactor().body("https://app.test/", "application/octet-stream", b"\xff\xfe\x00Zq")
    assert body.withheld is not None and body.base64 is None


def test_secret_field_names_in_reasons_never_echo_values() -> None:
    data = b'{"n": "Zq-secretvalue=1&x=2"}'
    body = redactor().body("https://app.test/", "application/json", data)
    assert body.withheld is not None
    assert "Zq" not in body.withheld.reason


@pytest.mark.parametrize("name", ["Authorization", "Cookie", "Set-Cookie", "Proxy-Authorization",
                                  "X-API-Key", "Api-Key", "X-Goog-Api-Key",
                                  "Ocp-Apim-Subscription-Key", "X-CSRF-Token", "X-Hub-Signature"])
def test_sensitive_headers_are_withheld(name: str) -> None:
    assert is_secret_header(name)
    out = redactor().headers({name: "Zq-header-value", "Content-Type": "application/json"})
    assert "Zq" not in out[name] and out[name].startswith("[withheld] hmac-sha256:")
    assert out["Content-Type"] == "application/json"


def test_credential_values_under_ordinary_header_names_are_withheld() -> None:
    red = redactor()
    assert "Zq" not in red.header_value("X-Custom", "Bearer Zq0123456789abcdef")
    assert "Zq" not in red.header_value("X-Custom", make_jwt({"Zq": 1}))
    assert red.header_value("Accept", "application/json") == "application/json"


def test_url_masks_secret_query_values_and_keeps_the_rest() -> None:
    red = redactor()
    url = ("https://u:Zq-userinfo@app.test/cb?page=2&access_token=Zq-a&code=Zq-b"
           "&next=" + quote("https://x.test/?token=Zq-c", safe="") + "#id_token=Zq-d&s=1")
    masked = red.url(url)
    assert "Zq" not in masked
    assert "page=2" in masked and "app.test/cb" in masked
    assert red.url("https://app.test/a?x=1&y=two#frag") == "https://app.test/a?x=1&y=two#frag"


def test_header_url_values_are_masked() -> None:
    out = redactor().header_value("Location", "https://app.test/cb?token=Zq-loc")
    assert "Zq" not in out and out.startswith("https://app.test/cb?token=")


def test_fingerprint_is_keyed_and_stable() -> None:
    a, b = redactor(key=b"a" * 32), redactor(key=b"b" * 32)
    assert a.fingerprint(b"x") == a.fingerprint(b"x") != b.fingerprint(b"x")
    with pytest.raises(ValueError):
        redactor(key=b"short")


# -- properties ----------------------------------------------------------------------

SECRET_KEYS = [
    "password", "Password", "user_password", "newPassword", "passwd", "pwd", "passphrase",
    "token", "access_token", "refreshToken", "id-token", "csrf_token", "secret", "clientSecret",
    "client_secret", "api_key", "apiKey", "X-API-KEY", "private_key", "SAMLRequest",
    "SAMLResponse", "sessionid", "session_id", "PHPSESSID", "JSESSIONID", "auth", "jwt",
    "credentials", "otp", "pin", "authorization",
]
ORDINARY_WORDS = ["name", "record", "city", "items", "notes", "amount", "title", "date",
                  "email", "country", "filing", "owner", "description", "street", "id"]
# No "Z": the secrets start with "Zq", so finding "Zq" in an output is always a leak.
SAFE_TEXT = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY0123456789 .,-",
                    max_size=30)
SECRET_VALUE = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=6,
                       max_size=24).map(lambda s: "Zq" + s)

ordinary_scalars = st.one_of(SAFE_TEXT, st.integers(-10**6, 10**6), st.booleans(), st.none())
ordinary_json = st.recursive(
    ordinary_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(ORDINARY_WORDS), children, max_size=4),
    ),
    max_leaves=20,
)


# Built once: a strategy made inside a draw is validated again on every example, which
# cost more than the redaction under test.
SECRET_KEY = st.sampled_from(SECRET_KEYS)
ORDINARY_WORD = st.sampled_from(ORDINARY_WORDS)
DEPTH = st.integers(0, 8)
SIBLINGS = st.dictionaries(ORDINARY_WORD, ordinary_scalars, max_size=3)


@st.composite
def json_with_secret_at_depth(draw: st.DrawFn) -> tuple[Any, str]:
    secret = draw(SECRET_VALUE)
    node: Any = {draw(SECRET_KEY): secret}
    for _ in range(draw(DEPTH)):
        siblings = draw(SIBLINGS)
        if draw(st.booleans()):
            node = {**siblings, draw(ORDINARY_WORD): node}
        else:
            node = [*siblings.values(), node]
    return node, secret


@examples(200)
@given(json_with_secret_at_depth(), st.booleans())
def test_secret_under_sensitive_key_never_survives_json(case: tuple[Any, str],
                                                        as_string: bool) -> None:
    value, secret = case
    if as_string:  # JSON carried inside a string field of the outer body
        value = {"payload": json.dumps(value)}
    data = json.dumps(value).encode()
    body = redactor().body("https://app.test/api", "application/json", data)
    assert body.withheld is not None
    assert secret.encode() not in written(body) and b"Zq" not in written(body)


@examples(200)
@given(st.sampled_from(SECRET_KEYS), SECRET_VALUE,
       st.lists(st.tuples(st.sampled_from(ORDINARY_WORDS), SAFE_TEXT), max_size=4),
       st.sampled_from(["form", "multipart"]))
def test_secret_field_never_survives_form_or_multipart(key: str, secret: str,
                                                       others: list[tuple[str, str]],
                                                       shape: str) -> None:
    fields = [*others, (key, secret)]
    if shape == "form":
        ctype, data = "application/x-www-form-urlencoded", urlencode(fields).encode()
    else:
        ctype = "multipart/form-data; boundary=XyZbound"
        data = b"".join(
            f'--XyZbound\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
            for k, v in fields) + b"--XyZbound--\r\n"
    body = redactor().body("https://app.test/api", ctype, data)
    assert body.withheld is not None
    assert b"Zq" not in written(body)


@examples(200)
@given(ordinary_json, st.dictionaries(st.sampled_from(ORDINARY_WORDS), SAFE_TEXT, max_size=3),
       st.sampled_from(["value", "text", "form", "query"]))
def test_jwt_anywhere_never_survives(container: Any, claims: dict[str, str],
                                     where: str) -> None:
    token = make_jwt({"sub": "Zq-subject", **claims})
    if where == "value":
        data = json.dumps({"outer": container, "x": [token]}).encode()
    elif where == "text":
        data = f"some words {token} more words".encode()
    elif where == "form":
        data = urlencode({"state": "1", "blob": token}).encode()
    else:
        data = json.dumps({"link": f"https://app.test/cb?x={token}"}).encode()
    body = redactor().body("https://app.test/api", None, data)
    assert body.withheld is not None
    assert token.encode() not in written(body)


@examples(300)
@given(ordinary_json)
def test_bodies_with_no_secret_round_trip_exactly(value: Any) -> None:
    data = json.dumps(value).encode()
    body = redactor().body("https://app.test/api", "application/json", data)
    assert body.withheld is None
    assert body.text is not None and body.text.encode() == data
    assert body.length == len(data)


@examples(100)
@given(st.dictionaries(st.sampled_from(ORDINARY_WORDS), SAFE_TEXT, min_size=1, max_size=5))
def test_ordinary_forms_and_queries_round_trip_exactly(fields: dict[str, str]) -> None:
    red = redactor()
    data = urlencode(fields).encode()
    body = red.body("https://app.test/api", "application/x-www-form-urlencoded", data)
    assert body.text is not None and body.text.encode() == data
    url = "https://app.test/p?" + data.decode()
    assert red.url(url) == url


@examples(150)
@given(st.sampled_from(SECRET_KEYS), SECRET_VALUE,
       st.dictionaries(st.sampled_from(ORDINARY_WORDS), SAFE_TEXT, max_size=3))
def test_secret_query_values_are_masked(key: str, secret: str, others: dict[str, str]) -> None:
    masked = redactor().url("https://app.test/p?" + urlencode({**others, key: secret}))
    assert secret not in masked and "Zq" not in masked
    for k in others:
        assert f"{k}=" in masked


@examples(100)
@given(json_with_secret_at_depth(), st.binary(min_size=16, max_size=32),
       st.binary(min_size=16, max_size=32))
def test_identical_withheld_bodies_share_a_fingerprint_per_key(case: tuple[Any, str],
                                                               key1: bytes,
                                                               key2: bytes) -> None:
    assume(key1 != key2)
    data = json.dumps(case[0]).encode()
    one, same, other = redactor(key=key1), redactor(key=key1), redactor(key=key2)
    first = one.body("https://app.test/a", "application/json", data)
    second = one.body("https://app.test/b", "application/json", data)
    assert first.withheld and second.withheld
    assert first.withheld.fingerprint == second.withheld.fingerprint
    assert same.body("https://app.test/a", "application/json", data) == first
    third = other.body("https://app.test/a", "application/json", data)
    assert third.withheld and third.withheld.fingerprint != first.withheld.fingerprint
    changed = one.body("https://app.test/a", "application/json", data + b" ")
    assert changed.withheld and changed.withheld.fingerprint != first.withheld.fingerprint


@examples(200)
@given(st.sampled_from(SECRET_KEYS))
def test_every_secret_key_spelling_is_recognised(key: str) -> None:
    assert is_secret_key(key)


def test_a_withheld_body_round_trips_through_the_schema() -> None:
    body = redactor().body("https://app.test/", "application/json", b'{"password": "Zq-x"}')
    assert b"Zq" not in encode_body_line(body)


def encode_body_line(body: Body) -> bytes:
    from ajantik_cdp.core.record.record_schema import RequestLine

    return encode(RequestLine(
        seq=1, target_id="t", target_type="page", frame_url=None, method="POST",
        url="https://app.test/", resource_type="Fetch", request_headers={}, request_body=body,
        system=None, fault=None, client_status=204))


@examples(60)
@given(st.from_regex(TOKEN_PATTERNS))
def test_the_anchor_prefilter_never_hides_a_token(text: str) -> None:
    assert has_token(text)
    assert mask_tokens(text, "#") != text


@examples(60)
@given(st.from_regex(_TEXT_SECRET))
def test_the_text_prefilter_never_hides_a_secret_named_value(text: str) -> None:
    assert text_finds_secret(text) is not None


def test_a_body_too_large_to_inspect_is_withheld() -> None:
    from ajantik_cdp.core.record.redaction import MAX_INSPECTED_BODY

    red = redactor()
    big = b'{"name": "' + b"a" * MAX_INSPECTED_BODY + b'"}'
    body = red.body("https://app.test/", "application/json", big)
    assert body.withheld is not None and "not inspected" in body.withheld.reason
    assert body.length == len(big)
    small = b'{"name": "' + b"a" * 1000 + b'"}'
    assert red.body("https://app.test/", "application/json", small).text == small.decode()
