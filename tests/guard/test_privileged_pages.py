"""Chrome's privileged pages by any spelling (issue 27, class 3).

``Page.navigate`` to ``chrome:settings/performance`` (no slashes) opened Chrome's settings
through the guard, where "Preload pages" can be turned back on. Every way a client opens
a URL as Chrome itself (flat and non-flat ``Page.navigate``, ``Target.createTarget``,
``/json/new``) is tried with spellings Chrome's parser reads as a privileged page: each
first opens one on Chrome's own port (its ``chrome.settingsPrivate`` is there), then is
refused through the guard, and no privileged tab appears. The gate's parser is checked
against Chrome's own on generated spellings.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import orjson
import pytest

from ajantik_cdp.core.guard.privileged_urls import chrome_url, is_privileged_url
from tests.conftest import GuardFactory
from tests.support.direct_cdp import DirectCdp, direct
from tests.support.http import request

pytestmark = pytest.mark.browser

SPELLINGS = (
    "chrome:settings/performance",  # the one that got through
    " CHROME://Settings/performance",
    "\x01chrome:\tset\ntings",
    "about:settings",
    "view-source:chrome:settings",
)


async def _privileged_tabs(cdp: DirectCdp) -> list[str]:
    infos = (await cdp.send("Target.getTargets"))["targetInfos"]
    return [i["targetId"] for i in infos
            if i["type"] == "page" and i["url"].split(":")[0] in ("chrome", "view-source")
            and "settings" in i["url"]]


async def _wait_privileged(cdp: DirectCdp, before: set[str], timeout: float = 10.0
                           ) -> set[str]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        found = set(await _privileged_tabs(cdp)) - before
        if found:
            return found
        await asyncio.sleep(0.1)
    return set()


async def _open_with_page_navigate(cdp: DirectCdp, url: str, flat: bool) -> dict[str, Any]:
    target = (await cdp.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    if flat:
        sid = (await cdp.send("Target.attachToTarget", {"targetId": target,
                                                        "flatten": True}))["sessionId"]
        return dict(await cdp.post("Page.navigate", {"url": url}, sid))
    # An old client: one session, every command wrapped in sendMessageToTarget.
    sid = (await cdp.send("Target.attachToTarget", {"targetId": target,
                                                    "flatten": False}))["sessionId"]
    inner = orjson.dumps({"id": 1, "method": "Page.navigate",
                          "params": {"url": url}}).decode()
    return dict(await cdp.post("Target.sendMessageToTarget",
                               {"sessionId": sid, "message": inner}))


async def _attempts(base: str) -> list[tuple[str, bool, str]]:
    """Each way and spelling: (how, whether a privileged tab opened, Chrome's answer)."""
    out = []
    async with direct(base) as cdp:
        for i, url in enumerate(SPELLINGS):
            for how in ("Page.navigate", "non-flat Page.navigate", "Target.createTarget",
                        "/json/new"):
                if i and how != "Page.navigate" and url != SPELLINGS[0]:
                    continue  # every spelling on one way, the first spelling on every way
                before = set(await _privileged_tabs(cdp))
                if how == "Target.createTarget":
                    answer: Any = await cdp.post("Target.createTarget", {"url": url})
                elif how == "/json/new":
                    answer = await request("PUT", f"{base}/json/new?{url}")
                else:
                    answer = await _open_with_page_navigate(cdp, url, how == "Page.navigate")
                opened = await _wait_privileged(cdp, before, 8.0 if "error" not in str(
                    answer) and "403" not in str(answer) else 1.5)
                out.append((f"{how} {url!r}", bool(opened), str(answer)[:200]))
                for tid in opened:
                    await cdp.send("Target.closeTarget", {"targetId": tid})
    return out


async def test_a_privileged_page_opens_on_chromes_port_and_never_through_the_guard(
        chrome: Any, guard: GuardFactory) -> None:
    direct_tries = await _attempts(chrome.http_url)
    landed = [how for how, opened, _ in direct_tries if opened]
    # Measured on Chrome 156: Page.navigate leaves about:settings unrewritten (no settings
    # page); the gate refuses it anyway, as Chrome maps about: aliases to chrome:// where
    # it rewrites URLs. Every other way and spelling opens the settings page.
    missed = [how for how, opened, _ in direct_tries if not opened]
    assert missed in ([], ["Page.navigate 'about:settings'"]), missed
    assert any("chrome:settings/performance" in how for how in landed)

    # And it is the settings page with its powers (the one "Preload pages" is set from).
    async with direct(chrome.http_url) as cdp:
        target = (await cdp.send("Target.createTarget",
                                 {"url": "chrome:settings/performance"}))["targetId"]
        sid = (await cdp.send("Target.attachToTarget", {"targetId": target,
                                                        "flatten": True}))["sessionId"]
        kind = None
        for _ in range(50):
            got = await cdp.send("Runtime.evaluate", {
                "expression": "typeof (globalThis.chrome||{}).settingsPrivate",
                "returnByValue": True}, sid)
            kind = got["result"].get("value")
            if kind == "object":
                break
            await asyncio.sleep(0.1)
        await cdp.send("Target.closeTarget", {"targetId": target})
    assert kind == "object"

    g = await guard()
    guarded = await _attempts(g.url)
    assert [how for how, opened, _ in guarded if opened] == []
    assert all("ajantik cdp refuses" in answer for _, _, answer in guarded), guarded
    print(f"privileged pages: {len(landed)}/{len(direct_tries)} opened on Chrome's port, "
          f"0/{len(guarded)} through the guard")


async def test_a_clients_script_cannot_open_one_either(chrome: Any) -> None:
    # window.open and location from a client's Runtime.evaluate are the page's own
    # (renderer-initiated) navigations: Chrome itself refuses them a privileged page, so
    # the gate has nothing to decide there. Measured on Chrome's own port.
    async with direct(chrome.http_url) as cdp:
        target = (await cdp.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        sid = (await cdp.send("Target.attachToTarget", {"targetId": target,
                                                        "flatten": True}))["sessionId"]
        before = set(await _privileged_tabs(cdp))
        for script in ("window.open('chrome:settings/performance')",
                       "window.open('about:settings')",
                       "location.href = 'chrome://settings/performance'"):
            await cdp.send("Runtime.evaluate", {"expression": script, "userGesture": True},
                           sid)
        opened = await _wait_privileged(cdp, before, 3.0)
        await cdp.send("Target.closeTarget", {"targetId": target})
    assert opened == set()


async def test_the_gates_parser_reads_the_scheme_as_chromes_does(chrome: Any) -> None:
    rng = random.Random(27)
    bases = ["chrome:settings", "chrome-untrusted://x/", "devtools://devtools/", "about:x",
             "view-source:chrome:x", "https://a.example/", "data:,x", "ab+c.d-e:x", "1a:x",
             "chr\u00f6me:x", "-x:y", ":x", "x"]
    samples = []
    for _ in range(300):
        chars = list(rng.choice(bases))
        chars = ["".join(rng.choice((c.upper(), c)) for c in ch) for ch in chars]
        for _ in range(rng.randint(0, 3)):
            chars.insert(rng.randint(0, len(chars)), rng.choice("\t\n\r \x00\x1f\x7f\u00a0"))
        pre = "".join(rng.choice(" \x00\x01\x1f\t") for _ in range(rng.randint(0, 2)))
        post = "".join(rng.choice(" \x00\x1f\n") for _ in range(rng.randint(0, 2)))
        samples.append(pre + "".join(chars) + post)
    async with direct(chrome.http_url) as cdp:
        target = (await cdp.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        sid = (await cdp.send("Target.attachToTarget", {"targetId": target,
                                                        "flatten": True}))["sessionId"]
        got = await cdp.send("Runtime.evaluate", {
            "expression": f"{orjson.dumps(samples).decode()}.map(s => {{ try {{ "
                          "return new URL(s).protocol.slice(0, -1); } catch (e) { "
                          "return null; } })", "returnByValue": True}, sid)
        await cdp.send("Target.closeTarget", {"targetId": target})
    chromes = got["result"]["value"]
    ours = [None if (p := chrome_url(s)) is None else p[0] for s in samples]
    wrong = [(s, c, o) for s, c, o in zip(samples, chromes, ours, strict=True)
             if c is not None and c != o]
    assert wrong == []
    # Where Chrome finds no URL at all, the gate refuses: it cannot be navigated to anyway.
    assert all(is_privileged_url(s) for s, c in zip(samples, chromes, strict=True)
               if c is None and chrome_url(s) is None)
    assert sum(c is not None for c in chromes) > 60  # many samples were URLs (95 here)
