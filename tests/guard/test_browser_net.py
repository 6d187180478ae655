"""The browser-wide net: requests from a tab that is closing, from a tab nobody has attached
to yet, from a tab released early by a script on Chrome's own port, and from clients that
bypass the guard altogether. Each attack first lands without the guard (the site's own hit
log is the truth), then is stopped with the guard running, and leaves a block line.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from ajantik_cdp.core.record.record_schema import BlockLine, RequestLine
from tests.conftest import GuardFactory, RunningGuard, origin_rule
from tests.support.direct_cdp import direct
from tests.support.http import get_json, request
from tests.support.site import Hit, HitSite

pytestmark = pytest.mark.browser

PAGES = {
    "close-keepalive": """<script>addEventListener('pagehide', () =>
        fetch('/hit/denied-close-keepalive', {method: 'POST', body: 'k', keepalive: true}))
        </script><p>close me</p>""",
    "close-beacon": """<script>addEventListener('pagehide', () =>
        navigator.sendBeacon('/hit/denied-close-beacon', 'b'))</script><p>close me</p>""",
    "close-later": """<script>fetchLater('/hit/denied-close-later',
        {method: 'POST', body: 'l'})</script><p>close me</p>""",
    "close-allowed": """<script>addEventListener('pagehide', () =>
        fetch('/hit/allowed-close', {method: 'POST', body: 'bye', keepalive: true}))
        </script><p>close me</p>""",
    "post-on-load": """<script>fetch('/hit/denied-early', {method: 'POST', body: 'e'})
        </script>""",
    "blank": "<p>blank</p>",
    "form": """<form method="post" action="/hit/denied-form"><button id="go">Send</button>
        </form>""",
    "outer": """<iframe id="f" src="/page/form"></iframe>""",
    "sw-post": """<script>navigator.serviceWorker.register('/js/sw-post.js', {scope: '/'})
        .then(() => navigator.serviceWorker.ready).then(() => document.title = 'ready')
        </script>""",
}
SCRIPTS = {
    "sw-post.js": """self.addEventListener('message', (e) =>
        e.waitUntil(fetch('/hit/sw-once', {method: 'POST', body: 'sw'})));
        self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));""",
}
POST = """async (path) => { try { const r = await fetch(path, {method: 'POST',
  body: 'payload'}); return r.status } catch (e) { return 'error' } }"""


def install(site: HitSite) -> None:
    site.pages.update(PAGES)
    site.scripts.update(SCRIPTS)


@dataclass
class Env:
    """``cdp_url``: where the skill connects (the guard, or Chrome for the control run).
    ``chrome_url``: Chrome's own port, which an attacker may use with the guard running.
    ``effect``: what shows the attack has played out (its hit on the site, or the guard's
    line for it), waited for before the attack lets go of its tab."""

    pw: Any
    cdp_url: str
    chrome_url: str
    site: HitSite
    effect: Callable[[], bool] | None = None

    async def played_out(self) -> None:
        assert self.effect is not None, "an attack is run with the sign that it played out"
        await self.site.wait_for(self.effect)


async def _close_while_sending(env: Env, page_name: str, lands: str | None = None) -> None:
    """``lands``: a path the closing tab writes to, waited for before the context is
    closed (disposing of a context drops what the guard still holds in it)."""
    browser = await env.pw.chromium.connect_over_cdp(env.cdp_url)
    try:
        ctx = await browser.new_context()
        page = await ctx.new_page()
        await page.goto(f"{env.site.a}/page/{page_name}")
        await page.close()  # the client closes the tab: Target.closeTarget
        if lands is not None:
            await env.site.wait_for(lambda: env.site.writes(lands))
        await env.played_out()
        await ctx.close()
    finally:
        with contextlib.suppress(Exception):
            await browser.close()


async def direct_create_target(env: Env) -> None:
    async with direct(env.chrome_url) as cdp:
        target = await cdp.send("Target.createTarget",
                                {"url": env.site.a + "/denied-direct-create"})
        await env.played_out()
        await cdp.send("Target.closeTarget", {"targetId": target["targetId"]})


async def direct_json_new(env: Env) -> None:
    tab = await get_json(f"{env.chrome_url}/json/new?{env.site.a}/denied-direct-new", "PUT")
    await env.played_out()
    await request("GET", f"{env.chrome_url}/json/close/{tab['id']}")


async def direct_early_release(env: Env) -> None:
    """Attach to new tabs as the guard does, and release each one the moment it appears,
    before the guard can have installed itself."""
    async with direct(env.chrome_url) as cdp:
        def on_event(msg: dict[str, Any]) -> None:
            if msg.get("method") == "Target.attachedToTarget":
                cdp.post("Runtime.runIfWaitingForDebugger", None, msg["params"]["sessionId"])

        cdp.on_event = on_event
        await cdp.send("Target.setAutoAttach", {"autoAttach": True,
                                                "waitForDebuggerOnStart": True,
                                                "flatten": True})
        target = await cdp.send("Target.createTarget",
                                {"url": env.site.a + "/page/post-on-load"})
        await env.played_out()
        await cdp.send("Target.closeTarget", {"targetId": target["targetId"]})


async def _open_blank(cdp: Any, env: Env) -> tuple[str, str]:
    """A tab of the site's blank page, opened and attached on Chrome's own port, once its
    document is in (a script run earlier would run in about:blank)."""
    target = (await cdp.send("Target.createTarget", {"url": env.site.a + "/page/blank"})
              )["targetId"]
    session = (await cdp.send("Target.attachToTarget", {"targetId": target,
                                                        "flatten": True}))["sessionId"]
    for _ in range(200):
        state = await cdp.send("Runtime.evaluate", {
            "expression": "location.pathname + ' ' + document.readyState"}, session)
        if state["result"].get("value") == "/page/blank complete":
            break
        await asyncio.sleep(0.05)
    return target, session


async def direct_evaluate(env: Env) -> None:
    """A script on Chrome's own port opens a tab and posts from it."""
    async with direct(env.chrome_url) as cdp:
        target, session = await _open_blank(cdp, env)
        await cdp.send("Runtime.evaluate", {
            "expression": f"({POST})('/hit/denied-direct-eval')", "awaitPromise": True},
            session)
        await cdp.send("Target.closeTarget", {"targetId": target})


async def direct_rewrite(env: Env) -> None:
    """A client on Chrome's own port intercepts an innocent write on its page session and
    rewrites it into a denied one (Fetch.continueRequest with a new URL)."""
    async with direct(env.chrome_url) as cdp:
        target, session = await _open_blank(cdp, env)
        patterns = {"patterns": [{"urlPattern": "*innocent*"}]}

        def on_event(msg: dict[str, Any]) -> None:
            if msg.get("method") == "Fetch.requestPaused" and msg.get("sessionId") == session:
                params = msg["params"]
                url = params["request"]["url"].replace("/hit/innocent", "/hit/denied-rewritten")
                cdp.post("Fetch.continueRequest", {"requestId": params["requestId"],
                                                   "url": url}, session)

        cdp.on_event = on_event
        await cdp.send("Fetch.enable", patterns, session)
        await cdp.send("Runtime.evaluate", {
            "expression": f"({POST})('/hit/innocent')", "awaitPromise": True}, session)
        await cdp.send("Target.closeTarget", {"targetId": target})


@dataclass(frozen=True)
class Attack:
    name: str
    run: Callable[[Env], Awaitable[None]]
    landed: Callable[[HitSite], list[Hit]]


def _writes(part: str) -> Callable[[HitSite], list[Hit]]:
    return lambda site: site.writes(part)


def _gets(part: str) -> Callable[[HitSite], list[Hit]]:
    return lambda site: site.gets(part)


def _closing(page_name: str) -> Callable[[Env], Awaitable[None]]:
    async def attack(env: Env) -> None:
        await _close_while_sending(env, page_name)
    return attack


ATTACKS = [
    Attack("keepalive fetch while the client closes the tab", _closing("close-keepalive"),
           _writes("denied-close-keepalive")),
    Attack("sendBeacon while the client closes the tab", _closing("close-beacon"),
           _writes("denied-close-beacon")),
    Attack("fetchLater sent when the client closes the tab", _closing("close-later"),
           _writes("denied-close-later")),
    Attack("Target.createTarget with a URL on Chrome's own port", direct_create_target,
           _gets("denied-direct-create")),
    Attack("PUT /json/new?url on Chrome's own port", direct_json_new,
           _gets("denied-direct-new")),
    Attack("a script on Chrome's own port releases a new tab early", direct_early_release,
           _writes("denied-early")),
    Attack("a script on Chrome's own port posts from a tab it opened", direct_evaluate,
           _writes("denied-direct-eval")),
    Attack("a client on Chrome's own port rewrites a write it intercepted", direct_rewrite,
           _writes("denied-rewritten")),
]
CONFIG = ["denied"]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
async def test_the_net_stops_what_lands_without_the_guard(
        attack: Attack, pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    install(site)
    await attack.run(Env(pw, chrome.http_url, chrome.http_url, site,
                         lambda: bool(attack.landed(site))))
    assert await site.wait_for(lambda: attack.landed(site)), \
        f"{attack.name}: did not land even without the guard"

    site.hits.clear()
    g = await guard({"deny": CONFIG, "allow_writes": [origin_rule(site.a)]})

    def blocked(line: object) -> bool:
        return isinstance(line, BlockLine) and line.source == "network" \
            and "denied" in (line.url or "")

    await attack.run(Env(pw, g.url, chrome.http_url, site,
                         lambda: any(map(blocked, g.lines()))))
    await site.settle(0.5)  # the one wait for what must not arrive, after the block
    assert attack.landed(site) == [], f"{attack.name}: got through the guard"
    assert await g.wait_for_line(blocked), \
        f"{attack.name}: stopped, but no block line: {g.lines()} {site.hits}"


async def test_a_write_sent_as_its_tab_closes_is_named_after_that_tab(
        pw: Any, guard: GuardFactory, site: HitSite) -> None:
    install(site)
    g = await guard({"deny": CONFIG, "allow_writes": [origin_rule(site.a)]})

    def blocked(line: object) -> bool:
        return isinstance(line, BlockLine) and "denied-close-later" in (line.url or "")

    await _close_while_sending(Env(pw, g.url, "", site, lambda: any(map(blocked, g.lines()))),
                               "close-later")
    assert await g.wait_for_line(blocked)
    block = next(b for b in g.lines() if isinstance(b, BlockLine))
    assert block.target_type == "page"
    assert block.frame_url == f"{site.a}/page/close-later"


async def test_an_allowed_keepalive_write_as_the_tab_closes_lands_and_is_recorded_once(
        pw: Any, guard: GuardFactory, site: HitSite) -> None:
    install(site)
    g = await guard({"deny": CONFIG, "allow_writes": [origin_rule(site.a)]})

    def recorded(line: object) -> bool:
        return isinstance(line, RequestLine) and line.url.endswith("/hit/allowed-close")

    await _close_while_sending(Env(pw, g.url, "", site, lambda: any(map(recorded, g.lines()))),
                               "close-allowed", "allowed-close")
    assert await site.wait_for(lambda: site.writes("allowed-close"))
    assert await g.wait_for_line(recorded)
    await site.settle(0.5)  # the one wait for a second copy, which must not arrive
    lines = [r for r in g.lines() if isinstance(r, RequestLine)
             and r.url.endswith("/hit/allowed-close")]
    assert len(site.writes("allowed-close")) == 1 and len(lines) == 1
    assert lines[0].system is not None and lines[0].system.status == 200


# -- the frame a block names ---------------------------------------------------------------

async def _submit_form(g: RunningGuard, pw: Any, site: HitSite, page_name: str) -> None:
    browser = await pw.chromium.connect_over_cdp(g.url)
    try:
        ctx = await browser.new_context()
        page = await ctx.new_page()
        await page.goto(f"{site.a}/page/{page_name}")
        frame = page.main_frame if page_name == "form" else page.frame_locator("#f")
        with contextlib.suppress(Exception):
            await frame.locator("#go").click(timeout=5000)
        # Decided once the block line is in; then a short wait for what must not arrive.
        await g.wait_for_line(lambda b: isinstance(b, BlockLine)
                              and "denied-form" in (b.url or ""))
        await site.settle(0.3)
        await ctx.close()
    finally:
        await browser.close()


@pytest.mark.parametrize("page_name,frame_page", [("form", "form"), ("outer", "form")],
                         ids=["main frame", "same-process subframe"])
async def test_a_blocked_form_post_names_the_frame_url_it_was_sent_from(
        pw: Any, guard: GuardFactory, site: HitSite, page_name: str,
        frame_page: str) -> None:
    # Chrome commits its error page in the frame once the post fails; the block line must
    # name the page the form was on, not chrome-error://chromewebdata/.
    install(site)
    g = await guard({"deny": CONFIG})
    await _submit_form(g, pw, site, page_name)
    assert site.writes("denied-form") == []
    assert await g.wait_for_line(lambda b: isinstance(b, BlockLine)
                                 and "denied-form" in (b.url or ""))
    block = next(b for b in g.lines() if isinstance(b, BlockLine))
    assert block.frame_url == f"{site.a}/page/{frame_page}"


# -- once per request ------------------------------------------------------------------------

async def test_a_service_worker_write_is_recorded_once(pw: Any, guard: GuardFactory,
                                                       site: HitSite) -> None:
    # Chrome attaches a service worker twice (through the browser and through its page);
    # the request is still decided, sent and recorded once.
    install(site)
    g = await guard({"allow_writes": [origin_rule(site.a)]})
    browser = await pw.chromium.connect_over_cdp(g.url)
    try:
        ctx = await browser.new_context()
        page = await ctx.new_page()
        await page.goto(site.a + "/page/sw-post")
        await page.wait_for_function("document.title === 'ready'", timeout=15_000)
        await page.evaluate("navigator.serviceWorker.controller ? "
                            "navigator.serviceWorker.controller.postMessage('go') : "
                            "navigator.serviceWorker.ready.then(r => r.active.postMessage('go'))")
        assert await site.wait_for(lambda: site.writes("sw-once"))
        assert await g.wait_for_line(lambda r: isinstance(r, RequestLine)
                                     and r.url.endswith("/hit/sw-once"))
        await site.settle(0.5)
        lines = [r for r in g.lines() if isinstance(r, RequestLine)
                 and r.url.endswith("/hit/sw-once")]
        assert len(site.writes("sw-once")) == 1 and len(lines) == 1
        assert lines[0].target_type == "service_worker"
        await ctx.close()
    finally:
        await browser.close()


async def test_a_fault_counts_each_write_once(pw: Any, guard: GuardFactory,
                                              site: HitSite) -> None:
    install(site)
    g = await guard({}, fault="phantom_success:/hit/counted", fault_at=2)
    browser = await pw.chromium.connect_over_cdp(g.url)
    try:
        ctx = await browser.new_context()
        page = await ctx.new_page()
        await page.goto(site.a + "/page/blank")
        assert await page.evaluate(POST, "/hit/counted") == 200  # write 1: sent
        assert await page.evaluate(POST, "/hit/counted") == 204  # write 2: the fault
        assert await page.evaluate(POST, "/hit/counted") == 200  # fired once
        await site.settle(0.3)
        assert len(site.writes("/hit/counted")) == 2
        await ctx.close()
    finally:
        await browser.close()


CLOSING = ("close-allowed", "close-beacon", "close-allowed", "close-later")


async def _close_tabs_at_once(env: Env, names: tuple[str, ...]) -> None:
    """Each page in its own context; every tab closed at once; the contexts are closed
    only after the allowed writes had time to land (disposing of a context drops the
    requests still held in it: see docs/guard.md, known limits)."""
    browser = await env.pw.chromium.connect_over_cdp(env.cdp_url)
    try:
        contexts = [await browser.new_context() for _ in names]
        pages = [await ctx.new_page() for ctx in contexts]
        for page, name in zip(pages, names, strict=True):
            await page.goto(f"{env.site.a}/page/{name}")
        await asyncio.gather(*(page.close() for page in pages))
        await env.site.wait_for(lambda: len(env.site.writes("allowed-close")) >= 2)
        await env.site.settle(0.5)
        for ctx in contexts:
            await ctx.close()
    finally:
        with contextlib.suppress(Exception):
            await browser.close()


async def test_several_tabs_closing_at_once(pw: Any, chrome: Any, guard: GuardFactory,
                                            site: HitSite) -> None:
    install(site)
    await _close_tabs_at_once(Env(pw, chrome.http_url, chrome.http_url, site), CLOSING)
    assert len(site.writes("allowed-close")) == 2, f"without the guard: {site.writes()}"
    assert site.writes("denied"), "the denied writes did not land without the guard"
    site.hits.clear()
    g = await guard({"deny": CONFIG, "allow_writes": [origin_rule(site.a)]})
    await _close_tabs_at_once(Env(pw, g.url, chrome.http_url, site), CLOSING)
    assert len(site.writes("allowed-close")) == 2, f"through the guard: {site.writes()}"
    assert site.writes("denied") == []
    assert await g.wait_for_line(lambda b: isinstance(b, BlockLine)
                                 and "denied-close-later" in (b.url or ""))
    assert await g.wait_for_line(lambda b: isinstance(b, BlockLine)
                                 and "denied-close-beacon" in (b.url or ""))
    assert g.server.guardian.interceptor.machine.in_flight == 0  # both answers came back
