"""Issue 10, class 1: other spellings of a denied URL, through real Chromium.

The site is aiohttp with a real ``/submission`` handler: its hit log says whether the
handler ran. Every spelling first reaches that handler without the guard, then is blocked
through it with ``deny: ["submission"]``; an allowed write spelled oddly still lands. A
last test records what Chrome itself puts on the wire for odd spellings, and checks that
it never changes the canonical form the rules see."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest
import pytest_asyncio
from aiohttp import web

from ajantik_cdp.core.policy.canonical_url import canonical_url
from ajantik_cdp.core.record.record_schema import BlockLine, RequestLine
from ajantik_cdp.local_http import start_app
from tests.conftest import GuardFactory
from tests.support.waiting import eventually

pytestmark = pytest.mark.browser

PAGES = {
    "blank": "<title>blank</title><p>blank</p>",
    "form": """<form method="post" action="/submissio%6E/form">
        <input name="record" value="R-101"><button id="go">Send</button></form>""",
    "frame": """<iframe src="/%73ubmission/framed"></iframe>""",
}


@dataclass
class SpellingSite:
    """``/submission/...`` is the handler a deny rule protects; ``/api/drafts/...`` the
    allowed write; everything else lands in ``other``. Each hit keeps the path as it came
    on the wire."""

    port: int = 0
    hits: list[tuple[str, str, str]] = field(default_factory=list)  # handler, method, raw
    runner: web.AppRunner | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def landed(self, handler: str) -> list[tuple[str, str, str]]:
        return [h for h in self.hits if h[0] == handler]

    async def start(self) -> None:
        app = web.Application()

        def handler(name: str) -> web.Handler:
            async def answer(request: web.Request) -> web.StreamResponse:
                await request.read()
                self.hits.append((name, request.method, request.raw_path))
                if name == "page":
                    return web.Response(text=PAGES.get(request.match_info["name"], ""),
                                        content_type="text/html")
                if name == "redirect":
                    return web.Response(status=int(request.query.get("code", "302")),
                                        headers={"Location": request.query["to"]})
                return web.Response(text=f"<h1>{name}</h1>", content_type="text/html")
            return answer

        app.router.add_route("*", "/page/{name}", handler("page"))
        app.router.add_route("*", "/redirect", handler("redirect"))
        app.router.add_route("*", "/submission", handler("submission"))
        app.router.add_route("*", "/submission/{tail:.*}", handler("submission"))
        app.router.add_route("*", "/api/drafts/{tail:.*}", handler("drafts"))
        app.router.add_route("*", "/{tail:.*}", handler("other"))
        self.runner, self.port = await start_app(app)

    async def settle(self) -> None:
        import asyncio
        await asyncio.sleep(0.5)


@pytest_asyncio.fixture(loop_scope="session")
async def spelling_site() -> AsyncIterator[SpellingSite]:
    s = SpellingSite()
    await s.start()
    yield s
    if s.runner is not None:
        await s.runner.cleanup()


async def _in_page(pw: Any, cdp_url: str, site: SpellingSite,
                   body: Callable[[Any], Awaitable[None]],
                   played_out: Callable[[], object]) -> None:
    """``played_out``: what shows the attack has had its effect (its hit on the site, or
    the guard's line for it), waited for before the tab is let go."""
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    try:
        await page.goto(site.origin + "/page/blank")
        await body(page)
        await eventually(played_out)
    finally:
        with contextlib.suppress(Exception):
            await ctx.close()
        with contextlib.suppress(Exception):
            await browser.close()


POST = """async ([url, method]) => { try { const r = await fetch(url, {method, body: 'x'});
  return r.status } catch (e) { return 'error: ' + e.message } }"""


def _fetch(path: str, method: str = "POST") -> Callable[[Any, SpellingSite], Awaitable[None]]:
    async def attack(page: Any, site: SpellingSite) -> None:
        await page.evaluate(POST, [site.origin + path, method])
    return attack


def _goto(url: str) -> Callable[[Any, SpellingSite], Awaitable[None]]:
    async def attack(page: Any, site: SpellingSite) -> None:
        with contextlib.suppress(Exception):
            await page.goto(url.replace("{O}", site.origin).replace("{P}", str(site.port)),
                            timeout=5000)
    return attack


async def _form(page: Any, site: SpellingSite) -> None:
    await page.goto(site.origin + "/page/form")
    with contextlib.suppress(Exception):
        await page.click("#go", timeout=3000)


async def _beacon(page: Any, site: SpellingSite) -> None:
    await page.evaluate("navigator.sendBeacon('/%73%75%62mission/beacon', 'b')")


async def _frame(page: Any, site: SpellingSite) -> None:
    with contextlib.suppress(Exception):
        await page.goto(site.origin + "/page/frame")


async def _redirected_read(page: Any, site: SpellingSite) -> None:
    # A GET is not a write, but a redirect hop into a denied URL is blocked.
    await page.evaluate(POST.replace("body: 'x'", ""), [
        site.origin + "/redirect?to=" + quote("/%73ubmission/after-redirect", safe=""), "GET"])


@dataclass(frozen=True)
class Spelling:
    name: str
    attack: Callable[[Any, SpellingSite], Awaitable[None]]


SPELLINGS = [
    Spelling("POST /%73ubmission", _fetch("/%73ubmission/x")),
    Spelling("POST /sub%6dission", _fetch("/sub%6dission/x")),
    Spelling("PUT /%73%75%62%6d%69%73%73%69%6f%6e", _fetch("/%73%75%62%6d%69%73%73%69%6f%6e/1",
                                                           "PUT")),
    Spelling("DELETE /x/%2e%2e/sub%6Dission", _fetch("/x/%2e%2e/sub%6Dission/y", "DELETE")),
    Spelling("page load /%73ubmission", _goto("{O}/%73ubmission/page")),
    Spelling("page load /sub%6Dission", _goto("{O}/sub%6Dission/page")),
    Spelling("page load with backslashes", _goto("{O}\\%73ubmission\\page")),
    Spelling("page load with a fragment and a dot segment",
             _goto("{O}/a/../submissio%6e/page#x")),
    Spelling("page load of 2130706433 with userinfo",
             _goto("http://user:pw@2130706433:{P}/%73ubmission/page")),
    Spelling("form post to /submissio%6E", _form),
    Spelling("beacon to /%73%75%62mission", _beacon),
    Spelling("iframe of /%73ubmission", _frame),
    Spelling("redirect hop into /%73ubmission", _redirected_read),
]


@pytest.mark.parametrize("spelling", SPELLINGS, ids=[s.name for s in SPELLINGS])
async def test_spelling_reaches_the_handler_without_guard_and_is_blocked_with_it(
        spelling: Spelling, pw: Any, chrome: Any, guard: GuardFactory,
        spelling_site: SpellingSite) -> None:
    site = spelling_site

    async def body(page: Any) -> None:
        await spelling.attack(page, site)

    await _in_page(pw, chrome.http_url, site, body, lambda: site.landed("submission"))
    assert site.landed("submission"), f"{spelling.name}: never reached the handler"
    # ...spelled so that a rule searched in the raw URL would not have seen it.
    assert not [raw for _, _, raw in site.landed("submission") if "submission" in raw]

    site.hits.clear()
    g = await guard({"deny": ["submission"]})

    def blocked(line: object) -> bool:
        return isinstance(line, BlockLine) and line.reason == "deny"

    await _in_page(pw, g.url, site, body, lambda: any(map(blocked, g.lines())))
    await site.settle()  # the one wait for what must not arrive, after the block
    assert site.landed("submission") == [], f"{spelling.name}: reached the handler"
    assert await g.wait_for_line(blocked)


async def test_allowed_writes_spelled_oddly_still_land(
        pw: Any, guard: GuardFactory, spelling_site: SpellingSite) -> None:
    site = spelling_site
    allow = rf"^http://127\.0\.0\.1:{site.port}/api/drafts/"
    g = await guard({"deny": ["submission"], "allow_writes": [allow]})

    async def body(page: Any) -> None:
        for path in ("/api/drafts/1", "/api/dr%61fts/2", "/%61pi/drafts/3",
                     "/api/x/%2e%2e/drafts/4"):
            await page.evaluate(POST, [site.origin + path, "PUT"])
        await page.evaluate(POST, [site.origin + "/%73ubmission/5", "POST"])
        await page.evaluate(POST, [site.origin + "/elsewhere/%61pi/drafts/6", "POST"])

    def both_blocked() -> bool:
        return {ln.reason for ln in g.lines() if isinstance(ln, BlockLine)} == {
            "deny", "allow_writes"}

    await _in_page(pw, g.url, site, body, both_blocked)
    await site.settle()  # the one wait for a write that must not arrive
    # Chrome resolves the dot segments of the fourth; the others reach the wire spelled.
    assert {raw for _, _, raw in site.landed("drafts")} == {
        "/api/drafts/1", "/api/dr%61fts/2", "/%61pi/drafts/3", "/api/drafts/4"}
    assert site.landed("submission") == []
    assert [h for h in site.landed("other") if h[1] != "GET"] == []
    assert await g.wait_for_line(lambda ln: isinstance(ln, RequestLine)
                                 and ln.url.endswith("/api/dr%61fts/2"))
    blocks = [ln for ln in g.lines() if isinstance(ln, BlockLine)]
    assert {b.reason for b in blocks} == {"deny", "allow_writes"}, blocks


ODD = [
    "/%73ubmission/x", "/sub%6Dission/x", "/%2573ubmission/x", "/a/../submission/x",
    "/a/%2e%2E/submission/x", "/a/.%2e/submission/x", "//submission/x",
    "/a%2f..%2fsubmission/x", "\\submission\\x", "/%5csubmission/x", "/submission;v=1/x",
    "/ｓubmission/x", "/%EF%BD%93ubmission/x", "/submission/x#frag", "/submission%2Fx",
    "/submission/x?q=%73ubmit&a=b+c", "/sub%00mission/x", "/submission./x",
    "/submission%20/x", "/a b/x", "/é/x", "/%c3%a9/x", "/submission/x/..",
    "/submission/x/.", "/100%/x", "/%zz/x",
]
HOSTS = ["{O}", "http://2130706433:{P}", "http://0x7f.1:{P}", "http://127.1:{P}",
         "http://0177.0.0.1:{P}", "http://127.0.0.1.:{P}", "http://%31%32%37.0.0.1:{P}",
         "http://127.0.0.1:0{P}", "http://u:p@127.0.0.1:{P}", "HTTP://127.0.0.1:{P}"]


async def test_what_chrome_sends_never_changes_the_canonical_form(
        pw: Any, chrome: Any, spelling_site: SpellingSite) -> None:
    """Chrome rewrites some spellings before they leave it (dot segments, backslashes,
    IPv4 notations, fragments) and passes others on untouched (escapes of unreserved
    characters, ``//``, ``;``, ``%2F``). The guard sees Chrome's URL; the rules must see
    the same canonical form as the spelling the page used."""
    site = spelling_site
    typed = [site.origin + p for p in ODD] + [
        h.replace("{O}", site.origin).replace("{P}", str(site.port)) + "/%73ubmission/x"
        for h in HOSTS]
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.origin + "/page/blank")
    mismatches = []
    for url in typed:
        site.hits.clear()
        with contextlib.suppress(Exception):
            await page.goto(url, timeout=5000)
        wire = [raw for _, method, raw in site.hits
                if method == "GET" and raw != "/favicon.ico"]
        assert wire, f"Chrome sent nothing for {url!r}"
        sent = site.origin + wire[0]
        if canonical_url(sent) != canonical_url(url):
            mismatches.append((url, sent, canonical_url(url), canonical_url(sent)))
    await ctx.close()
    await browser.close()
    assert mismatches == []
