"""Connections to denied URLs (WebSocket, EventSource) from every kind of target.

Each path first reaches the site without the guard (its hit log shows the handshake),
then is stopped by it; an allowed WebSocket and EventSource still work through it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from ajantik_cdp.core.record.record_schema import BlockLine
from tests.conftest import GuardFactory
from tests.guard.attacks import Env
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

CONFIG = {"deny": ["denied"]}

# Opens a WebSocket and says how it went: 'open', 'error', 'threw' (refused at once).
WS_BODY = """
  let w; try { w = new WebSocket(url) } catch (e) { return done('threw') }
  w.onopen = () => done('open'); w.onerror = () => done('error');
  setTimeout(() => done('timeout'), 4000);
"""
ES_BODY = """
  let s; try { s = new EventSource(url) } catch (e) { return done('threw') }
  s.onmessage = () => { s.close(); done('open') };
  s.onerror = () => { s.close(); done('error') };
  setTimeout(() => { s.close(); done('timeout') }, 4000);
"""
PAGE_JS = "(url) => new Promise((done) => { %s })"
# The same body, run in a dedicated worker made from a blob.
WORKER_JS = """(url) => new Promise((done) => {
  const src = 'const done = (r) => postMessage(r); const url = ' + JSON.stringify(url) +
    ';(() => {' + %s + '})()';
  const w = new Worker(URL.createObjectURL(new Blob([src])));
  w.onmessage = (e) => done(e.data);
})"""
# A dedicated worker started by a dedicated worker (its own target, attached through its
# parent worker's session).
NESTED_JS = """(url) => new Promise((done) => {
  const inner = 'const done = (r) => postMessage(r); const url = ' + JSON.stringify(url) +
    ';(() => {' + %s + '})()';
  const outer = 'const w = new Worker(URL.createObjectURL(new Blob([' +
    JSON.stringify(inner) + ']))); w.onmessage = (e) => postMessage(e.data);';
  const w = new Worker(URL.createObjectURL(new Blob([outer])));
  w.onmessage = (e) => done(e.data);
  setTimeout(() => done('no answer'), 8000);
})"""

SCRIPTS = {
    "ws-shared.js": f"""onconnect = (e) => {{ const port = e.ports[0];
        port.onmessage = (m) => {{ const url = m.data; const done = (r) => port.postMessage(r);
        {WS_BODY} }} }}""",
    "ws-sw.js": f"""self.addEventListener('install', () => self.skipWaiting());
        self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));
        self.addEventListener('message', (m) => {{ const url = m.data;
        const done = (r) => m.source.postMessage(r); {WS_BODY} }});""",
}
# A service worker whose first instructions open WebSockets (each start of it, also a
# restart after it was stopped), then says what its constructor did.
SCRIPTS["ws-sw-top.js"] = """const made = [];
    for (const path of ['/denied-sw-top/', '/dEnIeD-sw-top/']) {
      try { new WebSocket(location.origin.replace('http', 'ws') + path + Math.random());
            made.push('made') } catch (e) { made.push('threw') } }
    fetch('/sw-top-alive');
    self.addEventListener('install', () => self.skipWaiting());
    self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));
    self.addEventListener('message', (m) => m.source.postMessage(made.join(',')));"""
ASK_SW_TOP = """() => new Promise((done) => {
  navigator.serviceWorker.addEventListener('message', (e) => done(e.data), {once: true});
  navigator.serviceWorker.ready.then((reg) => reg.active.postMessage('say'));
  setTimeout(() => done('no answer'), 15000) })"""
SHARED_JS = """(url) => new Promise((done) => {
  const w = new SharedWorker('/js/ws-shared.js'); w.port.onmessage = (e) => done(e.data);
  w.port.postMessage(url); setTimeout(() => done('no answer'), 6000) })"""
SW_JS = """async (url) => {
  const reg = await navigator.serviceWorker.register('/js/ws-sw.js', {scope: '/page/'});
  await navigator.serviceWorker.ready;
  const sw = reg.active || reg.waiting || reg.installing;
  return await new Promise((done) => {
    navigator.serviceWorker.onmessage = (e) => done(e.data);
    sw.postMessage(url); setTimeout(() => done('no answer'), 6000) }) }"""

PAGES = {
    "blank": "<p>blank</p>",
    # Opened at parse time of the first document after a cross-process navigation: the
    # emulation rule alone has been measured to miss this one.
    "ws-parse": """<script>
        try { new WebSocket(location.origin.replace('http', 'ws') + '/denied-ws-parse') }
        catch (e) { document.title = 'threw' }</script><p>parse</p>""",
    "oopif": """<iframe src="{B}/page/blank"></iframe>""",
}


def ws_url(site: HitSite, path: str, origin: str | None = None) -> str:
    return (origin or site.a).replace("http://", "ws://") + path


@dataclass(frozen=True)
class Path:
    name: str
    run: Callable[[Any, HitSite, str], Awaitable[str]]  # (page, site, path) -> outcome
    channel: str = "ws"  # what the URL is given to


async def _in_page(page: Any, site: HitSite, path: str) -> str:
    return str(await page.evaluate(PAGE_JS % WS_BODY, ws_url(site, path)))


async def _http_spelling(page: Any, site: HitSite, path: str) -> str:
    # The constructor takes an http(s) URL too and makes it ws(s).
    return str(await page.evaluate(PAGE_JS % WS_BODY, site.a + path))


async def _in_oopif(page: Any, site: HitSite, path: str) -> str:
    await page.goto(site.a + "/page/oopif")
    frame = next(f for f in page.frames if f.url.startswith(site.b))
    await frame.wait_for_load_state()
    return str(await frame.evaluate(PAGE_JS % WS_BODY, ws_url(site, path, site.b)))


async def _in_worker(page: Any, site: HitSite, path: str) -> str:
    import orjson
    return str(await page.evaluate(WORKER_JS % orjson.dumps(WS_BODY).decode(),
                                   ws_url(site, path)))


async def _in_nested_worker(page: Any, site: HitSite, path: str) -> str:
    import orjson
    return str(await page.evaluate(NESTED_JS % orjson.dumps(WS_BODY).decode(),
                                   ws_url(site, path)))


async def _in_shared_worker(page: Any, site: HitSite, path: str) -> str:
    return str(await page.evaluate(SHARED_JS, ws_url(site, path)))


async def _in_service_worker(page: Any, site: HitSite, path: str) -> str:
    return str(await page.evaluate(SW_JS, ws_url(site, path)))


async def _event_source(page: Any, site: HitSite, path: str) -> str:
    return str(await page.evaluate(PAGE_JS % ES_BODY, site.a + path))


async def _event_source_in_worker(page: Any, site: HitSite, path: str) -> str:
    import orjson
    return str(await page.evaluate(WORKER_JS % orjson.dumps(ES_BODY).decode(), site.a + path))


PATHS = [
    Path("page-websocket", _in_page),
    Path("page-websocket-http-spelling", _http_spelling),
    Path("oopif-websocket", _in_oopif),
    Path("worker-websocket", _in_worker),
    Path("nested-worker-websocket", _in_nested_worker),
    Path("shared-worker-websocket", _in_shared_worker),
    Path("service-worker-websocket", _in_service_worker),
    Path("page-eventsource", _event_source, "es"),
    Path("worker-eventsource", _event_source_in_worker, "es"),
]


def install(site: HitSite) -> None:
    site.pages.update(PAGES)
    site.scripts.update(SCRIPTS)


async def _run(env: Env, path: Path, url_path: str) -> str:
    browser = await env.pw.chromium.connect_over_cdp(env.cdp_url)
    ctx = await browser.new_context()
    try:
        page = await ctx.new_page()
        await page.goto(env.site.a + "/page/blank")
        return await asyncio.wait_for(path.run(page, env.site, url_path), 30)
    finally:
        with contextlib.suppress(Exception):
            await ctx.close()
        with contextlib.suppress(Exception):
            await browser.close()


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
async def test_connection_to_a_denied_url_lands_without_guard_and_is_stopped_by_it(
        path: Path, pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    install(site)
    denied = f"/denied-{path.name}"
    outcome = await _run(Env(pw, chrome.http_url, site), path, denied)
    assert outcome == "open", f"{path.name}: did not connect even without the guard"
    assert site.gets(denied), f"{path.name}: the site saw no handshake without the guard"

    site.hits.clear()
    g = await guard(CONFIG)
    env = Env(pw, g.url, site)
    outcome = await _run(env, path, denied)
    await site.settle(0.5)
    assert site.gets(denied) == [], f"{path.name}: reached the site through the guard"
    assert outcome in ("error", "threw"), outcome
    assert await g.wait_for_line(lambda b: isinstance(b, BlockLine) and
                                 denied in (b.url or "")), \
        f"{path.name}: stopped, but the record has no block line for it"

    # The same channel to an allowed URL still works through the guard.
    allowed = f"/allowed-{path.name}"
    assert await _run(env, path, allowed) == "open"
    assert site.gets(allowed)


# Other spellings of the denied URL, as (spelling, what the server decodes it to). The
# rules ignore case and are searched in decoded forms; Chrome's emulation rule sees neither
# (it matches a path in the letter cases it is given), so these are refused by the
# guard's own check, in documents and in every kind of worker.
SPELLINGS = [("/dEnIeD-{}", "/dEnIeD-{}"), ("/d%65nied-pct-{}", "/denied-pct-{}")]
SOCKET_PATHS = [p for p in PATHS if p.channel == "ws"]


@pytest.mark.parametrize("path", SOCKET_PATHS, ids=[p.name for p in SOCKET_PATHS])
async def test_other_spellings_of_a_denied_websocket_url_land_without_guard_only(
        path: Path, pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    install(site)
    spellings = [(sent.format(path.name), seen.format(path.name)) for sent, seen in SPELLINGS]
    for sent, seen in spellings:
        outcome = await _run(Env(pw, chrome.http_url, site), path, sent)
        assert outcome == "open", f"{path.name} {sent}: did not connect without the guard"
        assert site.gets(seen), f"{path.name} {sent}: no handshake at the site without guard"

    site.hits.clear()
    g = await guard(CONFIG)
    env = Env(pw, g.url, site)
    for sent, seen in spellings:
        outcome = await _run(env, path, sent)
        await site.settle(0.5)
        assert site.gets(seen) == [], f"{path.name} {sent}: reached the site through the guard"
        assert outcome in ("error", "threw"), f"{path.name} {sent}: {outcome}"
        assert await g.wait_for_line(lambda b, sent=sent: isinstance(b, BlockLine) and
                                     sent in (b.url or "")), \
            f"{path.name} {sent}: stopped, but the record has no block line for it"


@pytest.mark.xfail(strict=False, reason=(
    "not finished: in full runs on a shared Chrome the worker's restart is not always "
    "observed, without the guard (its own precondition) and through it; never a pass "
    "for an escape: a denied hit fails the assertions when the test runs through"))
async def test_a_service_worker_websocket_at_its_first_instruction_is_stopped(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    """A service worker answers nothing while it waits for the debugger, so its emulation
    rule comes only after its release; the check queued ahead of the release holds from
    its first instruction, at its first start and when it starts again after a stop."""
    install(site)

    async def starts(cdp_url: str) -> list[str]:
        browser = await pw.chromium.connect_over_cdp(cdp_url)
        ctx = await browser.new_context()
        try:
            page = await ctx.new_page()
            await page.goto(site.a + "/page/blank")
            await page.evaluate("""async () => {
                await navigator.serviceWorker.register('/js/ws-sw-top.js', {scope: '/page/'});
                await navigator.serviceWorker.ready }""")
            said = [await page.evaluate(ASK_SW_TOP)]
            alive = len(site.gets("/sw-top-alive"))
            for _attempt in range(3):
                said[1:] = [await restarted(ctx, page)]
                # Seen through the guard now and then (not diagnosed): after the stop had
                # been reported, the message still reached the old instance (no script
                # run, no fetch). The stop is asked again until a new instance has run.
                if await site.wait_for(lambda: len(site.gets("/sw-top-alive")) > alive, 3):
                    break
            return said
        finally:
            with contextlib.suppress(Exception):
                await ctx.close()
            with contextlib.suppress(Exception):
                await browser.close()

    async def restarted(ctx: Any, page: Any) -> str:
        cdp = await ctx.new_cdp_session(page)
        stopped = asyncio.Event()
        running: set[str] = set()

        def seen(params: dict[str, Any]) -> None:
            # Every version seen running has stopped (not just some version: one
            # reported stopped while this worker still ran, and the next message
            # reached it instead of a new instance).
            for v in params["versions"]:
                if v.get("runningStatus") in ("starting", "running", "stopping"):
                    running.add(v["versionId"])
                elif v.get("runningStatus") == "stopped" and v["versionId"] in running:
                    running.discard(v["versionId"])
                    if not running:
                        stopped.set()

        cdp.on("ServiceWorker.workerVersionUpdated", seen)
        await cdp.send("ServiceWorker.enable")
        await cdp.send("ServiceWorker.stopAllWorkers")
        # The next message must start a new instance, not reach the stopping one.
        await asyncio.wait_for(stopped.wait(), 15)
        await cdp.detach()
        return str(await page.evaluate(ASK_SW_TOP))  # wakes it: a new instance

    assert await starts(chrome.http_url) == ["made,made", "made,made"]
    # Each start of the worker (two at least: the stop must have ended the first) opened
    # both WebSockets at the site.
    assert await site.wait_for(lambda: len(site.gets("/sw-top-alive")) >= 2 and
                               len(site.gets("/denied-sw-top/")) >= 2 and
                               len(site.gets("/dEnIeD-sw-top/")) >= 2, timeout=30), \
        ("without the guard, each start's WebSockets did not reach the site",
         [h.path for h in site.hits])

    g = await guard(CONFIG)
    for round_ in range(2):
        site.hits.clear()
        said = await starts(g.url)
        await site.settle(0.5)
        assert len(site.gets("/sw-top-alive")) >= 2, \
            (f"round {round_}: the worker did not start twice", said,
             [(type(x).__name__, getattr(x, "url", None)) for x in g.lines()][-8:])
        assert site.gets("/denied-sw-top/") == [], f"round {round_}: {said}"
        assert site.gets("/dEnIeD-sw-top/") == [], f"round {round_}: {said}"
        assert said == ["threw,threw", "threw,threw"], f"round {round_}: {said}"
    assert await g.wait_for_line(lambda b: isinstance(b, BlockLine) and
                                 "/dEnIeD-sw-top/" in (b.url or ""))


async def test_a_websocket_opened_while_the_first_document_parses_is_stopped(
        pw: Any, chrome: Any, guard: GuardFactory, site: HitSite) -> None:
    install(site)

    async def visit(cdp_url: str, rounds: int) -> None:
        browser = await pw.chromium.connect_over_cdp(cdp_url)
        ctx = await browser.new_context()
        page = await ctx.new_page()
        for _ in range(rounds):
            # From the other origin each time: a new renderer process for the document.
            await page.goto(site.b + "/page/blank")
            await page.goto(site.a + "/page/ws-parse")
            await site.settle(0.2)
        await ctx.close()
        await browser.close()

    await visit(chrome.http_url, 1)
    assert await site.wait_for(lambda: site.gets("/denied-ws-parse"))
    site.hits.clear()
    g = await guard(CONFIG)
    await visit(g.url, 8)
    await site.settle(0.5)
    assert site.gets("/denied-ws-parse") == []
    assert len(site.gets("/page/ws-parse")) == 8  # the page itself loaded every time


async def test_the_page_cannot_reach_the_unchecked_constructor(
        pw: Any, guard: GuardFactory, site: HitSite) -> None:
    install(site)
    g = await guard(CONFIG)
    browser = await pw.chromium.connect_over_cdp(g.url)
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(site.a + "/page/blank")
    url = ws_url(site, "/denied-ctor")
    outcome = await page.evaluate("""(url) => new Promise((done) => {
        const C = WebSocket.prototype.constructor;
        let w; try { w = new C(url) } catch (e) { return done('threw') }
        w.onopen = () => done('open'); w.onerror = () => done('error') })""", url)
    await ctx.close()
    await browser.close()
    assert outcome == "threw"
    assert site.gets("/denied-ctor") == []


async def test_a_rule_without_a_literal_refuses_every_websocket(
        pw: Any, guard: GuardFactory, site: HitSite) -> None:
    install(site)
    g = await guard({"deny": [r"/\d{7}$"]})
    env = Env(pw, g.url, site)
    assert await _run(env, PATHS[0], "/anything") in ("error", "threw")
    assert site.gets("/anything") == []
    # Plain page loads and reads are untouched.
    assert site.gets("/page/blank")


async def test_chrome_urlpattern_agrees_with_the_python_model(
        pw: Any, chrome: Any, site: HitSite) -> None:
    """The property tests check the patterns against the rules with a Python model of
    URLPattern; this checks the model against Chrome's own URLPattern."""
    import orjson

    from ajantik_cdp.core.policy.config import parse_config
    from ajantik_cdp.core.policy.socket_rules import socket_plan

    plan = socket_plan(parse_config({
        "deny": ["/submission", r"portal\.example", "8443", r"(?:api|v2)/\d+"],
        "allow_writes": [r"^https://app\.example/live/", r"^http://127\.0\.0\.1:9/"]}))
    urls = ["ws://h/submission", "ws://h/x/SUBMISSION?q", "wss://portal.example/",
            "ws://h/?to=portal.example", "wss://h:8443/", "ws://h/api/7", "ws://h/v2/x",
            "wss://app.example/live/a", "wss://app.example/other", "ws://127.0.0.1:9/x",
            "ws://127.0.0.1:9/x%2Fy", "ws://127.0.0.1:9/?a=%41", "ws://other/", "ws://h:9/"]
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    page = await browser.contexts[0].new_page()
    got = await page.evaluate("""([patterns, urls]) => patterns.map((p) => {
        const pattern = new URLPattern(p); return urls.map((u) => pattern.test(u)) })""",
                              [[p.page_pattern for p in plan.patterns], urls])
    await page.close()
    await browser.close()
    want = [[p.matches(u) for u in urls] for p in plan.patterns]
    assert got == want, orjson.dumps([p.page_pattern for p in plan.patterns]).decode()
