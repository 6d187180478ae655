"""Browser extensions (issue 10): an unpacked MV3 extension, loaded with
``--load-extension`` and ``--disable-extensions-except`` (honoured by Debian's Chromium
156; its background worker is a ``service_worker`` target at ``chrome-extension://``).

Its background worker is held to ``deny`` only, so it still reaches its own server when
``allow_writes`` names only the portal; its content scripts run in the page and their
requests are the page's (held to the page's rules). Each write first lands without the
guard; the site's hit log is the truth.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ajantik_cdp.browser.launch import ChromeProcess, start_chrome
from ajantik_cdp.core.record.record_schema import BlockLine
from tests.conftest import GuardFactory, origin_rule
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

MANIFEST = {
    "manifest_version": 3,
    "name": "ajantik test extension",
    "version": "1.0",
    "background": {"service_worker": "bg.js"},
    "host_permissions": ["http://127.0.0.1/*", "http://127.0.0.2/*"],
    "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["cs.js"],
                         "run_at": "document_idle"}],
}

BACKGROUND = """
const post = (url) => fetch(url, {method: 'POST', body: 'from-bg'})
  .then((r) => 'sent ' + r.status, () => 'failed');
chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  Promise.all([post(msg.portal + '/denied-bg-post'), post(msg.vendor + '/ext-sync')])
    .then(([denied, own]) => reply({denied, own}));
  return true;
});"""

CONTENT = """(async () => {
  if (!location.pathname.startsWith('/page/ext')) return;
  const cs = await fetch('/denied-cs-post', {method: 'POST', body: 'from-cs'})
    .then((r) => 'sent ' + r.status, () => 'failed');
  const bg = await chrome.runtime.sendMessage({portal: location.origin,
    vendor: location.origin.replace('127.0.0.1', '127.0.0.2')});
  document.documentElement.dataset.ext = JSON.stringify({cs, bg});
})();"""


@pytest.fixture(scope="module")
def chrome_with_extension(tmp_path_factory: pytest.TempPathFactory
                          ) -> Iterator[ChromeProcess]:
    ext = tmp_path_factory.mktemp("extension")
    (ext / "manifest.json").write_text(json.dumps(MANIFEST))
    (ext / "bg.js").write_text(BACKGROUND)
    (ext / "cs.js").write_text(CONTENT)
    proc = start_chrome(extra=(f"--load-extension={ext}",
                               f"--disable-extensions-except={ext}"))
    yield proc
    proc.close()


async def _run_extension(pw: Any, cdp_url: str, site: HitSite) -> dict[str, Any]:
    browser = await pw.chromium.connect_over_cdp(cdp_url)
    try:
        # Extensions run in the profile's own context, not in a new (incognito) one.
        page = await browser.contexts[0].new_page()
        await page.goto(site.page("ext", "<p>a page the extension's script runs in</p>"))
        await page.wait_for_function("document.documentElement.dataset.ext",
                                     timeout=15_000)
        said: dict[str, Any] = json.loads(
            await page.evaluate("document.documentElement.dataset.ext"))
        await page.close()
        return said
    finally:
        await browser.close()


async def test_extension_writes_are_held_to_deny_only(
        pw: Any, chrome_with_extension: ChromeProcess, guard: GuardFactory,
        site: HitSite, tmp_path: Path) -> None:
    said = await _run_extension(pw, chrome_with_extension.http_url, site)
    assert said == {"cs": "sent 200", "bg": {"denied": "sent 200", "own": "sent 200"}}
    assert site.writes("/denied-cs-post") and site.writes("/denied-bg-post")
    assert site.writes("/ext-sync")

    site.hits.clear()
    g = await guard({"deny": ["denied"], "allow_writes": [origin_rule(site.a)]},
                    upstream=chrome_with_extension.http_url)
    said = await _run_extension(pw, g.url, site)
    await site.settle(0.3)
    assert site.writes("/denied-cs-post") == [], "a content script's denied write landed"
    assert site.writes("/denied-bg-post") == [], "the background worker's denied write landed"
    assert said["cs"] == "failed" and said["bg"]["denied"] == "failed"
    # Only deny: the extension's own server (outside allow_writes) is still reached.
    assert said["bg"]["own"] == "sent 200"
    assert len(site.writes("/ext-sync")) == 1
    for path in ("/denied-cs-post", "/denied-bg-post"):
        assert await g.wait_for_line(
            lambda b, p=path: isinstance(b, BlockLine) and p in (b.url or ""))
