"""Requests Chrome sends from its own process for secure origins (issue 27, class 2).

* Reports (the Reporting API, Network Error Logging): the network service uploads them,
  outside every Fetch session, and only for an origin whose background-sync permission
  is granted; the guard holds it denied (core/guard/browser_permissions.py).
* FedCM: the browser fetches the identity provider's endpoints and posts the chosen
  account to it, outside Fetch; the gate refuses a client's account choice that would
  post to a denied provider (core/guard/fedcm.py).

The site is HTTPS (Chrome takes these from secure origins only: tests/support/tls_site.py),
and this module's Chromium delivers reports every 100 ms (``--short-reporting-delay``)
instead of every minute.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web

from ajantik_cdp.browser.launch import ChromeProcess, start_chrome
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions
from tests.conftest import GuardFactory
from tests.support.tls_site import TlsHitSite, loopback_cert

pytestmark = pytest.mark.browser

CERT = loopback_cert()


@pytest.fixture(scope="module")
def chrome() -> Iterator[ChromeProcess]:
    proc = start_chrome(extra=(CERT.chrome_flag, "--short-reporting-delay"))
    yield proc
    proc.close()


@pytest_asyncio.fixture(loop_scope="session")
async def tls_site() -> AsyncIterator[TlsHitSite]:
    s = TlsHitSite(cert=CERT)
    await s.start()
    yield s
    await s.stop()


def _reporting_page(site: TlsHitSite) -> str:
    """A page whose image breaks its CSP (a report for ``Reporting-Endpoints``' ``csp``),
    that uses a deprecated feature (one for its ``default``), and whose load is a NEL
    event (for the ``Report-To`` group NEL names), every endpoint on the denied origin."""
    site.page_headers["reports"] = {
        "Reporting-Endpoints": 'csp="{B}/denied-report-csp", '
                               'default="{B}/denied-report-default"',
        "Content-Security-Policy": "img-src 'none'; report-to csp",
        "Report-To": json.dumps({"group": "nel", "max_age": 3600,
                                 "endpoints": [{"url": "{B}/denied-report-nel"}]}),
        "NEL": json.dumps({"report_to": "nel", "max_age": 3600,
                           "success_fraction": 1.0, "failure_fraction": 1.0}),
    }
    # A synchronous XHR on the main thread is deprecated: a report for ``default``.
    return site.page("reports", "<title>reports</title><img src='{B}/blocked.png'><script>"
                     "const x = new XMLHttpRequest(); x.open('GET', '/sync-xhr', false);"
                     "x.send();</script>")


async def _load(pw: Any, cdp_url: str, url: str) -> list[str]:
    """Load the page; return the types of the reports Chrome queued for it (seen by the
    client's own Network.enableReportingApi), so that none arriving means none sent."""
    queued: list[str] = []
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    try:
        ctx = await browser.new_context()
        page = await ctx.new_page()
        cdp = await ctx.new_cdp_session(page)
        cdp.on("Network.reportingApiReportAdded", lambda e: queued.append(e["report"]["type"]))
        await cdp.send("Network.enable")
        await cdp.send("Network.enableReportingApi", {"enable": True})
        await page.goto(url)
        await page.goto("about:blank")  # the document's reports go once it is gone too
        await ctx.close()
    finally:
        await browser.close()
    return queued


async def test_reports_chrome_uploads_itself_land_without_the_guard_only(
        pw: Any, chrome: ChromeProcess, tmp_path: Any, tls_site: TlsHitSite) -> None:
    """Without the guard, through it, and after it stopped: the denial is the guard's
    connection's, and Chrome drops it when that closes, so the person's Chrome uploads
    reports again (and what it queued meanwhile is not sent: measured, not promised)."""
    url = _reporting_page(tls_site)
    queued = await _load(pw, chrome.http_url, url)
    assert await tls_site.wait_for(lambda: tls_site.writes("/denied-report-csp")
                                   and tls_site.writes("/denied-report-nel")
                                   and tls_site.writes("/denied-report-default")), \
        f"the reports never arrived without the guard (queued: {queued}; hits: " \
        f"{[h.path for h in tls_site.hits]})"
    assert b"csp-violation" in tls_site.writes("/denied-report-csp")[0].body
    assert b"deprecation" in tls_site.writes("/denied-report-default")[0].body

    tls_site.hits.clear()
    opts = GuardOptions(upstream=chrome.http_url,
                        config=parse_config({"deny": [tls_site.b + "/denied"]}), port=0,
                        record_path=tmp_path / "record.jsonl", install_signal_handlers=False)
    async with running_guard(opts, "test finished") as handle:
        queued = await _load(pw, f"http://127.0.0.1:{handle.server.port}", url)
        assert {"csp-violation", "deprecation"} <= set(queued), \
            f"Chrome queued {queued}: this test proves nothing"
        await tls_site.settle(2.0)  # twenty delivery rounds
        assert tls_site.gets("/page/reports"), "the page did not load through the guard"
        assert tls_site.writes("/denied-report") == [], "a report reached the denied origin"

    await tls_site.settle(2.0)
    assert tls_site.writes("/denied-report") == [], \
        "what Chrome queued under the guard was sent after it stopped"
    await _load(pw, chrome.http_url, url)
    assert await tls_site.wait_for(lambda: tls_site.writes("/denied-report-csp")), \
        "after the guard stopped Chrome no longer uploads reports"


# An identity provider on the denied origin (its config under /denied-idp/) and on the
# page's own origin; the page asks for a sign-in and says in its title how it ended.
FEDCM_PAGE = """<title>waiting</title><script>
navigator.credentials.get({identity: {providers: [
    {configURL: '%s/denied-idp/config.json', clientId: 'rp'}]}})
  .then((c) => { document.title = 'signed in: ' + c.token; },
        (e) => { document.title = 'failed: ' + e.name; });
</script>"""


async def _idp(request: web.Request) -> web.StreamResponse:
    origin = f"{request.scheme}://{request.host}"
    cors = {"Access-Control-Allow-Origin": request.headers.get("Origin", "*"),
            "Access-Control-Allow-Credentials": "true"}
    name = request.path.rsplit("/", 1)[-1]
    if name == "web-identity":  # Chrome checks the provider's site lists the config
        return web.json_response({"provider_urls": [origin + "/denied-idp/config.json"]})
    if name == "config.json":
        return web.json_response({
            "accounts_endpoint": "/denied-idp/accounts",
            "client_metadata_endpoint": "/denied-idp/meta",
            "id_assertion_endpoint": "/denied-idp/assert",
            "login_url": "/denied-idp/login"})
    if name == "accounts":
        return web.json_response({"accounts": [{
            "id": "a1", "name": "Person", "email": "person@example.test",
            "given_name": "Person"}]})
    if name == "assert":
        return web.json_response({"token": "assertion"}, headers=cors)
    return web.json_response({"origin": origin})


async def _sign_in(pw: Any, cdp_url: str, site: TlsHitSite) -> tuple[str, list[str]]:
    """Load the page and, as a client does for the person, choose the first account in
    Chrome's chooser; return the page's title and any error the choice got."""
    errors: list[str] = []
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    try:
        ctx = await browser.new_context()
        page = await ctx.new_page()
        cdp = await ctx.new_cdp_session(page)

        async def choose(event: dict[str, Any]) -> None:
            try:
                await cdp.send("FedCm.selectAccount",
                               {"dialogId": event["dialogId"], "accountIndex": 0})
            except Exception as exc:  # the guard's refusal is the point
                errors.append(str(exc))
                await cdp.send("FedCm.dismissDialog", {"dialogId": event["dialogId"]})

        cdp.on("FedCm.dialogShown", lambda e: asyncio.ensure_future(choose(e)))
        await cdp.send("FedCm.enable", {"disableRejectionDelay": True})
        await page.goto(site.page("fedcm", FEDCM_PAGE % site.b))
        await page.wait_for_function("document.title !== 'waiting'", timeout=15_000)
        title: str = await page.title()
        await ctx.close()
        return title, errors
    finally:
        await browser.close()


async def test_a_client_choosing_a_fedcm_account_for_a_denied_provider_is_refused(
        pw: Any, chrome: ChromeProcess, guard: GuardFactory, tls_site: TlsHitSite) -> None:
    tls_site.answers["/denied-idp/"] = _idp
    tls_site.answers["/.well-known/web-identity"] = _idp
    title, errors = await _sign_in(pw, chrome.http_url, tls_site)
    assert title == "signed in: assertion", (title, errors)
    assert tls_site.writes("/denied-idp/assert"), "the assertion never reached the provider"

    tls_site.hits.clear()
    g = await guard({"deny": [tls_site.b + "/denied"]}, upstream=chrome.http_url)
    title, errors = await _sign_in(pw, g.url, tls_site)
    assert errors and "ajantik cdp refuses" in errors[0], errors
    assert title.startswith("failed"), title
    await tls_site.settle(0.5)
    assert tls_site.writes("/denied-idp") == []

    # A provider the rules do not deny: the choice goes through the guard.
    tls_site.hits.clear()
    g = await guard({"deny": [tls_site.a + "/nothing-here"]}, upstream=chrome.http_url)
    title, errors = await _sign_in(pw, g.url, tls_site)
    assert (title, errors) == ("signed in: assertion", [])
