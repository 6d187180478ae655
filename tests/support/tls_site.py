"""The test site over HTTPS, for what Chrome accepts from secure origins only.

Chrome takes ``Reporting-Endpoints`` only from a document whose scheme is cryptographic,
and ``Report-To``/``NEL`` only over HTTPS without certificate errors (measured on
Chromium 156: from ``http://127.0.0.1`` a CSP report is queued and never sent, with or
without the guard). The site
gets a throwaway certificate for 127.0.0.1 and 127.0.0.2; Chrome is told to trust its key
with ``--ignore-certificate-errors-spki-list`` (which, unlike
``--ignore-certificate-errors``, leaves no error on the connection), so nothing is
installed on the machine.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import ssl
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support.site import Hit, HitSite


@dataclass(frozen=True)
class LoopbackCert:
    context: ssl.SSLContext
    spki: str  # base64 SHA-256 of the key, for --ignore-certificate-errors-spki-list

    @property
    def chrome_flag(self) -> str:
        return f"--ignore-certificate-errors-spki-list={self.spki}"


def loopback_cert() -> LoopbackCert:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ajantik test site")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=7))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address(a)) for a in ("127.0.0.1", "127.0.0.2")]),
                critical=False)
            .sign(key, hashes.SHA256()))
    with tempfile.TemporaryDirectory() as tmp:
        cert_file, key_file = Path(tmp, "cert.pem"), Path(tmp, "key.pem")
        cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert_file, key_file)
    der = key.public_key().public_bytes(serialization.Encoding.DER,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)
    return LoopbackCert(context, base64.b64encode(hashlib.sha256(der).digest()).decode())


@dataclass
class TlsHitSite(HitSite):
    """HitSite on https://127.0.0.1 and https://127.0.0.2; a page can carry headers."""

    cert: LoopbackCert | None = None
    page_headers: dict[str, dict[str, str]] = field(default_factory=dict)
    # A test's own answers, by path prefix (set any time: the catch-all looks them up);
    # each hit is logged like any other.
    answers: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]] = \
        field(default_factory=dict)

    @property
    def a(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def b(self) -> str:
        return f"https://127.0.0.2:{self.port}"

    async def start(self) -> None:
        assert self.cert is not None
        app = web.Application()
        app.router.add_route("*", "/page/{name}", self._page)
        app.router.add_route("*", "/{tail:.*}", self._answer)
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self.runner.setup()
        first = web.TCPSite(self.runner, "127.0.0.1", 0, ssl_context=self.cert.context)
        await first.start()
        sockets = getattr(first._server, "sockets", None)
        assert sockets
        self.port = sockets[0].getsockname()[1]
        await web.TCPSite(self.runner, "127.0.0.2", self.port,
                          ssl_context=self.cert.context).start()

    async def _page(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        self.hits.append(Hit(request.method, request.host, request.path, await request.read()))
        html = self.pages.get(name)
        if html is None:
            return web.Response(status=404, text="no such page")
        headers = {k: self._render(v) for k, v in self.page_headers.get(name, {}).items()}
        return web.Response(text=self._render(html), content_type="text/html",
                            headers=headers)

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        for prefix, answer in self.answers.items():
            if request.path.startswith(prefix):
                self.hits.append(Hit(request.method, request.host, request.path,
                                     await request.read()))
                return await answer(request)
        return await self._hit(request)
