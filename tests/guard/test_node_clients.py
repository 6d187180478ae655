"""Playwright for Node, Puppeteer, chrome-remote-interface and Playwright MCP work through
the guard as they do against Chrome, and the guard still stops their denied writes."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import orjson
import pytest
import pytest_asyncio

from tests.conftest import GuardFactory, origin_rule
from tests.guard.attacks import install
from tests.support.session_portal import SessionPortal
from tests.support.site import HitSite

pytestmark = [pytest.mark.browser, pytest.mark.node]

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
CLIENT_TIMEOUT = 180.0  # seconds for one Node client run


async def drive(kind: str, cdp_url: str, page_url: str) -> dict[str, object]:
    node = shutil.which("node")
    assert node, "Node.js is needed for these tests (see README)"
    assert (NODE_DIR / "node_modules").is_dir(), \
        "run `npm ci --prefix tests/node` first (the README's test command does)"
    proc = await asyncio.create_subprocess_exec(
        node, str(NODE_DIR / "clients.js"), kind, cdp_url, page_url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        # Generous: the MCP client starts Playwright MCP as a second Node process and
        # makes several tool calls (each bounded at 60 s in clients.js); one whole run
        # at load 11 needed more than 60 s. This bound is only against a hang.
        out, err = await asyncio.wait_for(proc.communicate(), CLIENT_TIMEOUT)
    except TimeoutError:
        proc.kill()
        _, err = await proc.communicate()
        pytest.fail(f"the {kind} client did not finish in {CLIENT_TIMEOUT:g} s: "
                    f"{err.decode()[-2000:]}")
    assert proc.returncode == 0, err.decode()
    result: dict[str, object] = orjson.loads(out.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("kind", ["playwright", "puppeteer", "cri"])
async def test_node_client_through_the_guard(kind: str, chrome, guard: GuardFactory,
                                             site: HitSite) -> None:
    install(site)
    page = site.a + "/page/blank"
    direct = await drive(kind, chrome.http_url, page)
    assert direct == {"denied": 200, "allowed": 200}
    assert len(site.writes("denied-node")) == 1

    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]})
    guarded = await drive(kind, g.url, page)
    assert guarded == {"denied": "error", "allowed": 200}
    assert len(site.writes("denied-node")) == 1
    assert len(site.writes("allowed-node")) == 2


MCP_PAGE = """<!doctype html><title>MCP</title>
<button onclick="send('/hit/allowed-mcp', 'allowed')">Save draft</button>
<button onclick="send('/hit/denied-mcp', 'denied')">Submit</button>
<p id=out></p>
<script>
function send(path, key) {
  // The page reads the body: Playwright MCP waits for fetches whose body is unread.
  fetch(path, {method: 'POST', body: 'x'}).then(r => r.text().then(() => r.status),
                                                 () => 'error')
    .then(s => { document.getElementById('out').textContent += ` ${key}:${s}`; });
}
</script>"""


async def test_playwright_mcp_through_the_guard(chrome, guard: GuardFactory,
                                                site: HitSite) -> None:
    """An agent's tools (navigate, snapshot, click) over Playwright MCP's --cdp-endpoint,
    on a Chrome with a tab opened after its first, as a person's Chrome has (and as the
    session's shared Chrome had when this test first failed in CI: the first tab is then
    in the background, where a click never becomes "stable")."""
    page = site.page("mcp", MCP_PAGE)
    later_tab = await _open_tab(chrome.http_url)
    direct = await drive("mcp", chrome.http_url, page)
    assert direct == {"allowed": 200, "denied": 200}
    assert len(site.writes("denied-mcp")) == 1

    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]})
    guarded = await drive("mcp", g.url, page)
    assert guarded == {"allowed": 200, "denied": "error"}
    await site.settle(0.3)
    assert len(site.writes("denied-mcp")) == 1  # only the unguarded one
    assert len(site.writes("allowed-mcp")) == 2
    assert await g.wait_for_line(lambda line: getattr(line, "kind", "") == "block")
    await _close_tab(chrome.http_url, later_tab)


async def _open_tab(http_url: str) -> str:
    async with aiohttp.ClientSession() as s, s.put(f"{http_url}/json/new?about:blank") as r:
        return str((await r.json())["id"])


async def _close_tab(http_url: str, target: str) -> None:
    async with aiohttp.ClientSession() as s, s.get(f"{http_url}/json/close/{target}") as r:
        r.raise_for_status()


@pytest_asyncio.fixture(loop_scope="session")
async def portal() -> AsyncIterator[SessionPortal]:
    p = SessionPortal()
    await p.start()
    yield p
    await p.stop()


async def test_playwright_node_request_is_refused_through_the_guard(
        chrome, guard: GuardFactory, portal: SessionPortal) -> None:
    """Class 7 of issue 10 with Playwright for Node: context.request / page.request."""
    direct = await drive("session", chrome.http_url, portal.url)
    assert direct == {"cookies": ["portal_session", "portal_theme"], "post": 200,
                      "put": 200, "stillLoggedIn": True}
    assert len(portal.writes("/submission", authenticated=True)) == 1

    g = await guard({"deny": ["submission"]})
    guarded = await drive("session", g.url, portal.url)
    assert guarded == {"cookies": [], "post": 401, "put": 401, "stillLoggedIn": True}
    assert len(portal.writes("/submission", authenticated=True)) == 1
    assert len(portal.writes("/submission", authenticated=False)) == 1


async def test_puppeteer_cookies_copied_into_node_fetch_carry_no_login(
        chrome, guard: GuardFactory, portal: SessionPortal) -> None:
    """page.cookies() / browserContext.cookies() copied into another HTTP client."""
    direct = await drive("puppeteer-session", chrome.http_url, portal.url)
    assert direct == {"cookies": ["portal_session", "portal_theme"], "post": 200,
                      "loggedIn": True}
    g = await guard({"deny": ["submission"]})
    guarded = await drive("puppeteer-session", g.url, portal.url)
    assert guarded == {"cookies": [], "post": 401, "loggedIn": True}
    assert len(portal.writes("/submission", authenticated=True)) == 1
