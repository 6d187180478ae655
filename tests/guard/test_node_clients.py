"""Playwright for Node, Puppeteer and chrome-remote-interface work through the guard as
they do against Chrome, and the guard still stops their denied writes."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import orjson
import pytest

from tests.conftest import GuardFactory, origin_rule
from tests.guard.attacks import install
from tests.support.site import HitSite

pytestmark = [pytest.mark.browser, pytest.mark.node]

NODE_DIR = Path(__file__).resolve().parents[1] / "node"


async def drive(kind: str, cdp_url: str, page_url: str) -> dict[str, object]:
    node = shutil.which("node")
    assert node, "Node.js is needed for these tests (see README)"
    assert (NODE_DIR / "node_modules").is_dir(), \
        "run `npm ci --prefix tests/node` first (the README's test command does)"
    proc = await asyncio.create_subprocess_exec(
        node, str(NODE_DIR / "clients.js"), kind, cdp_url, page_url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
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
