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
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from ajantik_cdp.core.guard.privileged_urls import chrome_url, is_privileged_url
from tests.conftest import GuardFactory
from tests.support.direct_cdp import DirectCdp, direct
from tests.support.http import request

pytestmark = pytest.mark.browser

NODE_DIR = Path(__file__).resolve().parents[1] / "node"

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


async def _evaluate_in(cdp: DirectCdp, target: str, expression: str) -> dict[str, Any]:
    sid = (await cdp.send("Target.attachToTarget", {"targetId": target,
                                                    "flatten": True}))["sessionId"]
    return dict(await cdp.post("Runtime.evaluate", {"expression": expression,
                                                    "returnByValue": True}, sid))


async def _settings_powers(cdp: DirectCdp, target: str) -> str | None:
    for _ in range(50):
        answer = await _evaluate_in(cdp, target,
                                    "typeof (globalThis.chrome||{}).settingsPrivate")
        if "error" in answer:
            return None
        if answer["result"]["result"].get("value") == "object":
            return "object"
        await asyncio.sleep(0.1)
    return "never"


async def test_a_settings_tab_the_person_has_open_is_out_of_a_clients_reach(
        pw: Any, chrome: Any, guard: GuardFactory, site: Any) -> None:
    # The person's own settings tab, and a tab whose history holds one.
    async with direct(chrome.http_url) as cdp:
        settings = (await cdp.send("Target.createTarget",
                                   {"url": "chrome://settings/performance"}))["targetId"]
        travelled = (await cdp.send("Target.createTarget",
                                    {"url": "chrome://settings/"}))["targetId"]
        sid = (await cdp.send("Target.attachToTarget", {"targetId": travelled,
                                                        "flatten": True}))["sessionId"]
        assert await _settings_powers(cdp, travelled) == "object"
        await cdp.send("Page.navigate", {"url": site.page("after-settings", "<p>x")}, sid)
        await asyncio.sleep(0.5)
        assert await _settings_powers(cdp, settings) == "object"  # a client on Chrome's port

        # And back through history (what Playwright's go_back sends).
        history = await cdp.send("Page.getNavigationHistory", {}, sid)
        back = history["entries"][history["currentIndex"] - 1]
        assert back["url"].startswith("chrome://settings")
        await cdp.send("Page.navigateToHistoryEntry", {"entryId": back["id"]}, sid)
        assert await _wait_privileged(cdp, set(await _privileged_tabs(cdp)) - {travelled})
        assert await _settings_powers(cdp, travelled) == "object"
        for name in ("after-settings-2", "after-settings-3"):
            await cdp.send("Page.navigate", {"url": site.page(name, "<p>y")}, sid)
            await asyncio.sleep(0.5)

    g = await guard()
    async with direct(g.url) as cdp:
        answer = await _evaluate_in(cdp, settings, "chrome.settingsPrivate.setPref("
                                    "'net.network_prediction_options', 0, '', () => 0)")
        assert "ajantik cdp refuses Runtime.evaluate" in answer["error"]["message"]
        sid = (await cdp.send("Target.attachToTarget", {"targetId": travelled,
                                                        "flatten": True}))["sessionId"]
        history = await cdp.send("Page.getNavigationHistory", {}, sid)
        entries = {e["id"]: e["url"] for e in history["entries"]}
        for entry_id, url in entries.items():
            if url.startswith("chrome://"):
                refused = await cdp.post("Page.navigateToHistoryEntry",
                                         {"entryId": entry_id}, sid)
                assert "ajantik cdp refuses" in refused["error"]["message"]
        guessed = await cdp.post("Page.navigateToHistoryEntry",
                                 {"entryId": max(entries) + 1000}, sid)
        assert "does not know where that entry leads" in guessed["error"]["message"]
        await asyncio.sleep(0.5)
        assert await _privileged_tabs(cdp) == [settings]  # the travelled tab stayed put
        # A history entry of an ordinary page still works.
        plain = next(i for i, u in entries.items() if "after-settings" in u
                     and i != history["entries"][history["currentIndex"]]["id"])
        assert "result" in await cdp.post("Page.navigateToHistoryEntry",
                                          {"entryId": plain}, sid)
        # Leaving a privileged page for an ordinary one is a navigation like any other.
        ssid = (await cdp.send("Target.attachToTarget", {"targetId": settings,
                                                         "flatten": True}))["sessionId"]
        assert "result" in await cdp.post("Page.navigate", {
            "url": site.page("left-settings", "<p>z")}, ssid)
        assert await site.wait_for(lambda: site.gets("/left-settings"))

    # A client library connecting while such a tab is open still drives its own pages.
    browser = await pw.chromium.connect_over_cdp(g.url)
    page = await browser.contexts[0].new_page()
    await page.goto(site.page("still-works", "<title>ok</title>"))
    assert await page.title() == "ok"
    await browser.close()
    async with direct(chrome.http_url) as cdp:
        for target in (settings, travelled):
            await cdp.send("Target.closeTarget", {"targetId": target})


PUPPETEER_PAGES = """
const puppeteer = require(process.argv[1] + '/node_modules/puppeteer-core');
(async () => {
  const browser = await puppeteer.connect({ browserURL: process.argv[2] });
  const pages = await browser.pages();  // every page target, the settings tab among them
  const page = await browser.newPage();
  await page.goto('about:blank');
  console.log(JSON.stringify(pages.map(p => p.url())));
  await page.close();
  await browser.disconnect();
})().catch(e => { console.error(e.message); process.exit(1); });
"""


@pytest.mark.node
async def test_puppeteer_still_lists_pages_while_a_settings_tab_is_open(
        chrome: Any, guard: GuardFactory) -> None:
    """Measured before the passive commands were let through: Puppeteer's browser.pages()
    failed through the guard (Network.enable refused on the settings tab)."""
    node = shutil.which("node")
    assert node, "Node.js is needed for this test (see README)"
    async with direct(chrome.http_url) as cdp:
        settings = (await cdp.send("Target.createTarget",
                                   {"url": "chrome://settings/"}))["targetId"]
        try:
            g = await guard()
            proc = await asyncio.create_subprocess_exec(
                node, "-e", PUPPETEER_PAGES, str(NODE_DIR), g.url,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await asyncio.wait_for(proc.communicate(), 120)
        finally:
            await cdp.send("Target.closeTarget", {"targetId": settings})
    assert proc.returncode == 0, err.decode()[-1000:]
    assert any(u.startswith("chrome://settings") for u in orjson.loads(out))


async def test_playwrights_back_and_forward_still_work_through_the_guard(
        pw: Any, guard: GuardFactory, site: Any) -> None:
    # Both ask Page.getNavigationHistory first, so the gate knows each entry's URL.
    # (Waiting for "load" after go_back times out on Chrome's own port too, measured:
    # the page comes back from the back-forward cache with no load event.)
    g = await guard()
    browser = await pw.chromium.connect_over_cdp(g.url)
    page = await browser.contexts[0].new_page()
    first, second = site.page("hist-1", "<p>1"), site.page("hist-2", "<p>2")
    await page.goto(first)
    await page.goto(second)
    await page.go_back(wait_until="commit")
    assert page.url == first
    await page.go_forward(wait_until="commit")
    assert page.url == second
    await browser.close()


async def test_playwright_on_a_settings_tab_can_take_it_away_but_not_script_it(
        pw: Any, chrome: Any, guard: GuardFactory, site: Any) -> None:
    """Measured before Playwright's empty utility-world script and font settings were let
    through: its page object for the settings tab had no URL and every goto failed ("Frame
    has been detached"), as it would on a desktop Chrome's new-tab page."""
    async with direct(chrome.http_url) as cdp:
        settings = (await cdp.send("Target.createTarget",
                                   {"url": "chrome://settings/"}))["targetId"]
        await _wait_privileged(cdp, set())
        try:
            g = await guard()
            browser = await pw.chromium.connect_over_cdp(g.url)
            page = next(p for p in browser.contexts[0].pages
                        if p.url.startswith("chrome://settings"))
            # Refused (Playwright words the refused Runtime.callFunctionOn as a destroyed
            # execution context).
            with pytest.raises(Exception, match=r"refuses|context was destroyed"):
                await page.evaluate("typeof chrome.settingsPrivate")
            await page.goto(site.page("taken-away", "<title>away</title>"))
            assert await page.title() == "away"
            assert await page.evaluate("1 + 1") == 2  # an ordinary page again
            await browser.close()
        finally:
            await cdp.send("Target.closeTarget", {"targetId": settings})
