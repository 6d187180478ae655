"""Every path a denied write or page load can take, as runnable attacks.

Each attack runs against a DevTools URL (Chrome's own, or the guard's) and says which hits
on the test site prove it landed. The tests run each one twice: without the guard it must
land (so the attack is real), through the guard it must not.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson
import websockets

from tests.support.site import Hit, HitSite

POST_JS = """async (path) => { try { const r = await fetch(path, {method: 'POST',
  body: 'payload'}); return r.status } catch (e) { return 'error: ' + e.message } }"""

PAGES = {
    "blank": "<title>blank</title><p>nothing here</p>",
    "onload": """<script>fetch('/hit/denied-onload', {method: 'POST', body: 'x'})</script>""",
    "form": """<form method="post" action="/hit/denied-form">
        <input name="record" value="R-101"><button id="go">Send</button></form>""",
    "unload": """<script>addEventListener('pagehide', () => {
        fetch('/hit/denied-keepalive', {method: 'POST', body: 'bye', keepalive: true}) })
        </script><p>leave me</p>""",
    "worker": """<script>new Worker('/js/worker.js')</script>""",
    "shared": """<script>new SharedWorker('/js/shared.js')</script>""",
    "sw": """<script>navigator.serviceWorker.register('/js/sw.js', {scope: '/'})
        .then(() => document.title = 'registered')</script>""",
    "oopif": """<iframe src="{B}/page/oopif-inner"></iframe>""",
    "oopif-inner": """<script>fetch('{A}/hit/denied-oopif', {method: 'POST', body: 'x'})
        </script>""",
    "subframe": """<iframe src="{B}/denied-subframe"></iframe>""",
    "popup": """<p>opener</p>""",
}

SCRIPTS = {
    "worker.js": "fetch('/hit/denied-worker', {method: 'POST', body: 'w'})",
    "shared.js": "fetch('/hit/denied-shared', {method: 'POST', body: 's'})",
    "sw.js": """self.addEventListener('install', (e) => { self.skipWaiting();
        e.waitUntil(fetch('/hit/denied-sw', {method: 'POST', body: 'sw'}).catch(() => 0)) });
        self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));""",
}


def install(site: HitSite) -> None:
    site.pages.update(PAGES)
    site.scripts.update(SCRIPTS)


@dataclass
class Env:
    """What an attack may use: a DevTools URL and the site. ``effect`` is what shows the
    attack has played out (its hit on the site without the guard, the guard's block line
    with it): the attack waits for that, not for a fixed time, before it lets go of its
    tab."""

    pw: Any
    cdp_url: str
    site: HitSite
    effect: Callable[[], bool] | None = None

    async def played_out(self) -> None:
        assert self.effect is not None, "an attack is run with the sign that it played out"
        await self.site.wait_for(self.effect)

    async def page(self) -> tuple[Any, Any, Any]:
        browser = await self.pw.chromium.connect_over_cdp(self.cdp_url)
        ctx = await browser.new_context()
        page = await ctx.new_page()
        return browser, ctx, page


async def _with_page(env: Env, body: Callable[[Any], Awaitable[None]]) -> None:
    browser, ctx, page = await env.page()
    try:
        await body(page)
    finally:
        with contextlib.suppress(Exception):
            await ctx.close()
        with contextlib.suppress(Exception):
            await browser.close()


async def skill_fetch(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/blank")
        await page.evaluate(POST_JS, "/hit/denied-skill")
    await _with_page(env, body)


async def page_script(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/onload")
        await env.played_out()
    await _with_page(env, body)


async def form_submit(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/form")
        with contextlib.suppress(Exception):
            await page.click("#go", timeout=3000)
        await env.played_out()
    await _with_page(env, body)


async def beacon(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/blank")
        await page.evaluate("navigator.sendBeacon('/hit/denied-beacon', 'b')")
        await env.played_out()
    await _with_page(env, body)


async def keepalive_on_unload(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/unload")
        await page.goto("about:blank")
        await env.played_out()
    await _with_page(env, body)


def _visit(path: str) -> Callable[[Env], Awaitable[None]]:
    async def attack(env: Env) -> None:
        async def body(page: Any) -> None:
            with contextlib.suppress(Exception):
                await page.goto(env.site.a + path)
            await env.played_out()
        await _with_page(env, body)
    return attack


async def redirect_page_load(env: Env) -> None:
    await _visit_url(env, env.site.redirect(env.site.a + "/denied-redirected-page"))


async def redirect_write(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/blank")
        target = env.site.redirect("/hit/denied-307", code=307)
        await page.evaluate(POST_JS, target)
    await _with_page(env, body)


async def _visit_url(env: Env, url: str) -> None:
    async def body(page: Any) -> None:
        with contextlib.suppress(Exception):
            await page.goto(url)
        await env.played_out()
    await _with_page(env, body)


async def main_frame_load(env: Env) -> None:
    await _visit_url(env, env.site.a + "/denied-main-frame")


async def popup(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/popup")
        await page.evaluate(f"window.open('{env.site.a}/denied-popup')")
        await env.played_out()
    await _with_page(env, body)


async def json_new(env: Env) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.put(f"{env.cdp_url}/json/new?{env.site.a}/denied-json-new") as resp:
            target = orjson.loads(await resp.read())
        await env.played_out()
        with contextlib.suppress(Exception):
            await http.get(f"{env.cdp_url}/json/close/{target['id']}")


async def raw_create_target(env: Env) -> None:
    async with aiohttp.ClientSession() as http, http.get(f"{env.cdp_url}/json/version") as resp:
        ws_url = orjson.loads(await resp.read())["webSocketDebuggerUrl"]
    async with websockets.connect(ws_url, max_size=None, compression=None) as ws:
        await ws.send(orjson.dumps({"id": 1, "method": "Target.createTarget", "params": {
            "url": env.site.a + "/denied-create-target"}}).decode())
        reply = orjson.loads(await ws.recv())
        await env.played_out()
        target = reply.get("result", {}).get("targetId")
        if target:
            await ws.send(orjson.dumps({"id": 2, "method": "Target.closeTarget",
                                        "params": {"targetId": target}}).decode())
            await asyncio.wait_for(ws.recv(), 5)


async def allowlist_other_origin(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/blank")
        await page.evaluate(POST_JS, env.site.b + "/hit/elsewhere")
    await _with_page(env, body)


async def client_rewrite(env: Env) -> None:
    async def body(page: Any) -> None:
        await page.goto(env.site.a + "/page/blank")
        denied = env.site.a + "/hit/denied-rewrite"
        await page.route("**/hit/innocent", lambda route: route.continue_(url=denied))
        await page.evaluate(POST_JS, "/hit/innocent")
    await _with_page(env, body)


async def _non_flat(env: Env, inner: dict[str, Any]) -> None:
    """An old-style client: a non-flat session (``flatten: false``) on a new tab, and one
    command for that tab wrapped in ``Target.sendMessageToTarget``, as clients did before
    flat sessions."""
    async with aiohttp.ClientSession() as http, http.get(f"{env.cdp_url}/json/version") as resp:
        ws_url = orjson.loads(await resp.read())["webSocketDebuggerUrl"]
    async with websockets.connect(ws_url, max_size=None, compression=None) as ws:
        ids = iter(range(1, 1000))

        async def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
            msg_id = next(ids)
            await ws.send(orjson.dumps({"id": msg_id, "method": method,
                                        "params": params}).decode())
            while True:
                msg = orjson.loads(await asyncio.wait_for(ws.recv(), 20))
                if msg.get("id") == msg_id:
                    return dict(msg.get("result") or {})

        target = (await call("Target.createTarget", {"url": "about:blank"}))["targetId"]
        session = (await call("Target.attachToTarget", {"targetId": target,
                                                        "flatten": False}))["sessionId"]
        await call("Target.sendMessageToTarget", {
            "sessionId": session, "message": orjson.dumps({"id": 1, **inner}).decode()})
        await env.played_out()
        await call("Target.closeTarget", {"targetId": target})


def non_flat_navigate(env: Env) -> Awaitable[None]:
    return _non_flat(env, {"method": "Page.navigate",
                           "params": {"url": env.site.a + "/denied-non-flat-load"}})


def non_flat_evaluate(env: Env) -> Awaitable[None]:
    return _non_flat(env, {"method": "Runtime.evaluate", "params": {
        "expression": f"fetch('{env.site.a}/hit/denied-non-flat', {{method: 'POST', "
                      "body: 'x', mode: 'no-cors'}).then(() => 1, () => 0)",
        "awaitPromise": True}})


@dataclass(frozen=True)
class Attack:
    name: str
    run: Callable[[Env], Awaitable[None]]
    landed: Callable[[HitSite], list[Hit]]


def _writes(part: str) -> Callable[[HitSite], list[Hit]]:
    return lambda site: site.writes(part)


def _gets(part: str) -> Callable[[HitSite], list[Hit]]:
    return lambda site: site.gets(part)


ATTACKS = [
    Attack("skill fetch", skill_fetch, _writes("denied-skill")),
    Attack("page script on load", page_script, _writes("denied-onload")),
    Attack("form submission", form_submit, _writes("denied-form")),
    Attack("sendBeacon", beacon, _writes("denied-beacon")),
    Attack("keepalive fetch during unload", keepalive_on_unload, _writes("denied-keepalive")),
    Attack("dedicated worker", _visit("/page/worker"), _writes("denied-worker")),
    Attack("shared worker", _visit("/page/shared"), _writes("denied-shared")),
    Attack("service worker", _visit("/page/sw"), _writes("denied-sw")),
    Attack("out-of-process iframe write", _visit("/page/oopif"), _writes("denied-oopif")),
    Attack("subframe page load", _visit("/page/subframe"), _gets("denied-subframe")),
    Attack("main-frame page load", main_frame_load, _gets("denied-main-frame")),
    Attack("redirect into a denied page", redirect_page_load, _gets("denied-redirected-page")),
    Attack("307 redirect of a write", redirect_write, _writes("denied-307")),
    Attack("popup", popup, _gets("denied-popup")),
    Attack("tab from /json/new", json_new, _gets("denied-json-new")),
    Attack("Target.createTarget with a URL", raw_create_target, _gets("denied-create-target")),
    Attack("write outside allow_writes", allowlist_other_origin, _writes("elsewhere")),
    Attack("client rewrites a paused request", client_rewrite, _writes("denied-rewrite")),
    Attack("page load from a non-flat session", non_flat_navigate,
           _gets("denied-non-flat-load")),
    Attack("write from a non-flat session", non_flat_evaluate, _writes("denied-non-flat")),
]
