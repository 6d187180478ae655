"""Class 7 of issue 10: the person's session stays inside Chrome.

Playwright's ``page.request`` / ``context.request`` send HTTP from the driver process with
cookies read from Chrome (``Storage.getCookies``); the guard never sees those requests.
Without the guard such a write lands with the person's login; through the guard the
client's cookie reads come back without the session, so the portal refuses the write,
while the browser's own login keeps working. The portal's hit log is the truth.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
import pytest_asyncio

from tests.conftest import GuardFactory
from tests.support.direct_cdp import direct
from tests.support.session_portal import SessionPortal

pytestmark = pytest.mark.browser

DENY = {"deny": ["submission"]}


@pytest_asyncio.fixture(loop_scope="session")
async def portal() -> AsyncIterator[SessionPortal]:
    p = SessionPortal()
    await p.start()
    yield p
    await p.stop()


async def log_in(pw: Any, cdp_url: str, portal: SessionPortal) -> tuple[Any, Any, Any]:
    """The person logs in with the browser itself (a form post answered by Set-Cookie)."""
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(portal.url + "/")
    await page.click("#login")
    await page.wait_for_url("**/home")  # /home sends an unauthenticated visitor back to /
    return browser, ctx, page


async def test_page_request_write_lands_without_guard_and_is_refused_through_it(
        pw: Any, chrome: Any, guard: GuardFactory, portal: SessionPortal) -> None:
    browser, ctx, page = await log_in(pw, chrome.http_url, portal)
    assert any(c["name"] == "portal_session" for c in await ctx.cookies())
    assert (await ctx.request.post(portal.url + "/submission", data="x")).status == 200
    assert (await page.request.put(portal.url + "/section/1", data="x")).status == 200
    assert len(portal.writes("/submission", authenticated=True)) == 1
    await browser.close()

    g = await guard(DENY)
    browser, ctx, page = await log_in(pw, g.url, portal)
    # The browser's own login works: /home loaded, and the page's own write carries it.
    await page.click("#draft")
    await page.wait_for_function("document.title.startsWith('draft ')")
    assert await page.title() == "draft 200"
    assert len(portal.writes("/draft", authenticated=True)) == 1

    names = {c["name"] for c in await ctx.cookies()}
    assert "portal_session" not in names and "portal_theme" not in names
    assert (await ctx.request.post(portal.url + "/submission", data="x")).status == 401
    assert (await page.request.put(portal.url + "/section/1", data="x")).status == 401
    assert (await page.request.fetch(portal.url + "/submission", method="POST",
                                     data="x")).status == 401
    assert len(portal.writes("/submission", authenticated=True)) == 1  # only the unguarded
    assert len(portal.writes("/submission", authenticated=False)) == 2

    # A client that writes back what it read (a storage state, a cookie jar) must not log
    # the person out: withheld cookies are missing from the read, not blanked.
    state = await ctx.storage_state()
    assert state["cookies"] == []
    await ctx.add_cookies(await ctx.cookies())
    await page.goto(portal.url + "/home")
    assert page.url == portal.url + "/home"
    await browser.close()


async def test_share_cookies_star_is_the_explicit_opt_out(
        pw: Any, guard: GuardFactory, portal: SessionPortal) -> None:
    g = await guard({**DENY, "share_cookies": ["*"]})
    browser, ctx, _ = await log_in(pw, g.url, portal)
    assert (await ctx.request.post(portal.url + "/submission", data="x")).status == 200
    assert len(portal.writes("/submission", authenticated=True)) == 1
    await browser.close()


async def test_share_cookies_names_domains(pw: Any, guard: GuardFactory,
                                           portal: SessionPortal) -> None:
    """A pattern that names another domain shares nothing of the portal's."""
    g = await guard({**DENY, "share_cookies": [r"^shop\.example$"]})
    browser, ctx, _ = await log_in(pw, g.url, portal)
    assert (await ctx.request.post(portal.url + "/submission", data="x")).status == 401
    await browser.close()
    g = await guard({**DENY, "share_cookies": [r"^127\.0\.0\.1$"]})
    browser, ctx, _ = await log_in(pw, g.url, portal)
    assert (await ctx.request.post(portal.url + "/submission", data="x")).status == 200
    await browser.close()


async def raw_client_session(cdp_url: str, portal: SessionPortal, pw: Any
                             ) -> tuple[list[str], dict[str, Any]]:
    """A bare DevTools client on a logged-in page: it reads cookies every way the protocol
    offers and watches the network (headers, raw header text, Fetch at the response
    stage) while the page logs in again and writes. Returns every frame it received."""
    browser, _ctx, page = await log_in(pw, cdp_url, portal)
    seen: list[str] = []
    answers: dict[str, Any] = {}
    async with direct(cdp_url) as cdp:
        def on_event(msg: dict[str, Any]) -> None:
            seen.append(orjson.dumps(msg).decode())
            if msg.get("method") == "Fetch.requestPaused":
                cdp.post("Fetch.continueRequest", {"requestId": msg["params"]["requestId"]},
                         msg.get("sessionId"))

        cdp.on_event = on_event
        targets = (await cdp.send("Target.getTargets"))["targetInfos"]
        target = next(t for t in targets if t["type"] == "page"
                      and t["url"].startswith(portal.url))
        sid = (await cdp.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                        "flatten": True}))["sessionId"]
        await cdp.send("Network.enable", {}, sid)
        await cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*",
                                                      "requestStage": "Response"}]}, sid)
        await page.goto(portal.url + "/")
        await page.click("#login")
        await page.wait_for_url("**/home")
        await page.click("#draft")
        await page.wait_for_function("document.title.startsWith('draft ')")
        for method, params, session in (
                ("Network.getCookies", {"urls": [portal.url + "/"]}, sid),
                ("Network.getAllCookies", {}, sid),
                ("Storage.getCookies", {"browserContextId": target["browserContextId"]},
                 None),
                ("Network.loadNetworkResource", {
                    "frameId": target["targetId"], "url": portal.url + "/export",
                    "options": {"disableCache": True, "includeCredentials": True}}, sid)):
            reply = await asyncio.wait_for(cdp.post(method, params, session), 30)
            answers[method] = reply
            seen.append(orjson.dumps(reply).decode())
        await cdp.send("Fetch.disable", {}, sid)
    await browser.close()
    return seen, answers


def tokens(portal: SessionPortal) -> set[str]:
    return set(portal.sessions)


async def test_no_frame_a_client_receives_carries_the_session(
        pw: Any, chrome: Any, guard: GuardFactory, portal: SessionPortal) -> None:
    seen, answers = await raw_client_session(chrome.http_url, portal, pw)
    leaked = {t for t in tokens(portal) if any(t in frame for frame in seen)}
    assert leaked, "without the guard the session should be readable (the test is void)"
    for method in ("Network.getCookies", "Network.getAllCookies", "Storage.getCookies"):
        assert "portal_session" in orjson.dumps(answers[method]).decode(), method
    assert answers["Network.loadNetworkResource"]["result"]["resource"]["success"]
    assert len([h for h in portal.hits if h.path == "/export" and h.authenticated]) == 1
    for needle in ("Network.requestWillBeSentExtraInfo", "Network.responseReceivedExtraInfo",
                   "Fetch.requestPaused"):
        assert any(needle in f and any(t in f for t in tokens(portal)) for f in seen), needle

    g = await guard(DENY)
    before = set(portal.sessions)
    seen, answers = await raw_client_session(g.url, portal, pw)
    fresh = portal.sessions - before
    assert len(fresh) == 2  # both logins through the guard worked
    assert not {t for t in fresh if any(t in frame for frame in seen)}
    assert not any("portal_session" in f for f in seen)
    for method in ("Network.getCookies", "Network.getAllCookies", "Storage.getCookies"):
        assert "result" in answers[method], answers[method]
    assert "refuses Network.loadNetworkResource" in \
        answers["Network.loadNetworkResource"]["error"]["message"]
    assert len([h for h in portal.hits if h.path == "/export"]) == 1  # only the unguarded
    # The network events still reach the client, only without the session.
    assert any("Network.responseReceivedExtraInfo" in f for f in seen)
    assert len(portal.writes("/draft", authenticated=True)) == 2

