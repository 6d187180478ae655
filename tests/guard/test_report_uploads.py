"""Reports Chrome uploads itself (issue 27, class 2): the Reporting API and Network Error
Logging.

The network service sends them, outside every Fetch session. Chrome uploads a report only
for an origin whose background-sync permission is granted; the guard holds it denied
(core/guard/browser_permissions.py). The site is HTTPS (Chrome takes these headers from
secure origins only: tests/support/tls_site.py), and this module's Chromium delivers
reports every 100 ms (``--short-reporting-delay``) instead of every minute.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio

from ajantik_cdp.browser.launch import ChromeProcess, start_chrome
from ajantik_cdp.core.policy.config import parse_config
from ajantik_cdp.proxy.running import running_guard
from ajantik_cdp.proxy.server import GuardOptions
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
    """A page whose image breaks its CSP (a report for ``Reporting-Endpoints``' ``csp``)
    and whose load is a NEL event (for the ``Report-To`` group NEL names), both endpoints
    on the denied origin."""
    site.page_headers["reports"] = {
        "Reporting-Endpoints": 'csp="{B}/denied-report-csp"',
        "Content-Security-Policy": "img-src 'none'; report-to csp",
        "Report-To": json.dumps({"group": "nel", "max_age": 3600,
                                 "endpoints": [{"url": "{B}/denied-report-nel"}]}),
        "NEL": json.dumps({"report_to": "nel", "max_age": 3600,
                           "success_fraction": 1.0, "failure_fraction": 1.0}),
    }
    return site.page("reports", "<title>reports</title><img src='{B}/blocked.png'>")


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
                                   and tls_site.writes("/denied-report-nel")), \
        f"the reports never arrived without the guard (queued: {queued}; hits: " \
        f"{[h.path for h in tls_site.hits]})"
    assert b"csp-violation" in tls_site.writes("/denied-report-csp")[0].body

    tls_site.hits.clear()
    opts = GuardOptions(upstream=chrome.http_url,
                        config=parse_config({"deny": [tls_site.b + "/denied"]}), port=0,
                        record_path=tmp_path / "record.jsonl", install_signal_handlers=False)
    async with running_guard(opts, "test finished") as handle:
        queued = await _load(pw, f"http://127.0.0.1:{handle.server.port}", url)
        assert "csp-violation" in queued, "Chrome queued no report: this test proves nothing"
        await tls_site.settle(2.0)  # twenty delivery rounds
        assert tls_site.gets("/page/reports"), "the page did not load through the guard"
        assert tls_site.writes("/denied-report") == [], "a report reached the denied origin"

    await tls_site.settle(2.0)
    assert tls_site.writes("/denied-report") == [], \
        "what Chrome queued under the guard was sent after it stopped"
    await _load(pw, chrome.http_url, url)
    assert await tls_site.wait_for(lambda: tls_site.writes("/denied-report-csp")), \
        "after the guard stopped Chrome no longer uploads reports"
