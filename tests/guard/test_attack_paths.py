"""Each attack path first reaches the site without the guard, then is stopped by it,
while an allowed write still lands. The site's own hit log is the only evidence."""

from __future__ import annotations

import pytest

from ajantik_cdp.core.record.record_schema import BlockLine
from tests.conftest import GuardFactory, origin_rule
from tests.guard.attacks import ATTACKS, POST_JS, Attack, Env, install
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

CONFIG_DENY = ["denied"]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
async def test_attack_lands_without_guard_and_is_stopped_by_it(
        attack: Attack, pw, chrome, guard: GuardFactory, site: HitSite) -> None:
    install(site)
    await attack.run(Env(pw, chrome.http_url, site, lambda: bool(attack.landed(site))))
    assert await site.wait_for(lambda: attack.landed(site)), \
        f"{attack.name}: the attack did not land even without the guard"

    site.hits.clear()
    g = await guard({"deny": CONFIG_DENY, "allow_writes": [origin_rule(site.a)]})

    def blocked(line: object) -> bool:
        return isinstance(line, BlockLine) and any(
            word in (line.url or "") for word in ("denied", "elsewhere"))

    await attack.run(Env(pw, g.url, site, lambda: any(map(blocked, g.lines()))))
    await site.settle(0.5)  # the one wait for what must not arrive, after the block
    assert attack.landed(site) == [], f"{attack.name}: got through the guard"
    assert await g.wait_for_line(blocked), \
        f"{attack.name}: stopped, but the guard recorded no block for it"

    # The same guard still lets an allowed write land.
    env = Env(pw, g.url, site)
    browser, ctx, page = await env.page()
    await page.goto(site.a + "/page/blank")
    assert await page.evaluate(POST_JS, "/hit/allowed") == 200
    await ctx.close()
    await browser.close()
    assert len(site.writes("/hit/allowed")) == 1
