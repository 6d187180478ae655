"""examples/portal-pilot/README.md's route by hand, checked against what happens: its
headless sign-in snippet signs in, the submission step prints what it says and the
guard logs what it says, and no command writes into the package's folder."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ajantik_cdp.demo.portal_system import guard_config_data
from ajantik_portal_pilot.portal import Portal
from ajantik_portal_pilot.task import SKILL_DIR
from tests.conftest import GuardFactory

pytestmark = pytest.mark.browser

README = (Path(__file__).resolve().parents[2] / "examples" / "portal-pilot" / "README.md"
          ).read_text()


def sign_in_snippet() -> str:
    m = re.search(r"    python - <<'EOF'\n(.*?)\n    EOF\n", README, re.S)
    assert m, "the README has no headless sign-in snippet"
    return textwrap.dedent(m.group(1))


async def python(code: str, env: dict[str, str] | None = None, *args: str
                 ) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *(["-c", code] if code else []), *args,
        env={**os.environ, **(env or {})}, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_the_headless_sign_in_signs_in(pw: Any, chrome: Any, portal: Portal) -> None:
    code = sign_in_snippet().replace("http://127.0.0.1:9335", chrome.http_url) \
        .replace("http://127.0.0.1:8765", portal.origin)
    wrong = code.replace("harbour-demo-2024", "not-the-password")
    code_wrong, _, _ = await python(wrong.replace('"**/dashboard")',
                                                  '"**/dashboard", timeout=3000)'))
    assert code_wrong != 0  # the check can fail: a wrong password never reaches it
    returncode, _, err = await python(code)
    assert returncode == 0, err
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    try:
        context = browser.contexts[0]  # the profile's own, as the guard's skills see it
        page = await context.new_page()
        await page.goto(portal.origin + "/dashboard")
        assert page.url == portal.origin + "/dashboard"  # not sent back to /login
        for p in context.pages:
            if p.url.startswith(portal.origin):
                await p.close()
        await context.clear_cookies()
    finally:
        await browser.close()


async def test_the_submission_step_prints_and_logs_what_the_readme_says(
        pw: Any, guard: GuardFactory, portal: Portal, guard_log: list[str]) -> None:
    from ajantik_portal_pilot.sign_in import sign_in

    g = await guard(guard_config_data(portal.origin))
    browser = await pw.chromium.connect_over_cdp(g.url)
    context = await browser.new_context()
    await sign_in(await context.new_page(), portal.origin)
    promised = re.search(r'prints `(\{"step": "proceed_to_submission".*?\})`',
                         README.replace("\n", " "), re.S)
    logged = re.search(r"stderr says `(BLOCKED click .*?)`", README.replace("\n", " "))
    assert promised and logged
    try:
        returncode, out, err = await python(
            "", {"CDP_URL": g.url, "PORTAL_URL": portal.origin},
            str(SKILL_DIR / "scripts" / "proceed_to_submission.py"), "R-101")
    finally:
        await context.close()
        await browser.close()
    assert returncode == 1, err
    assert json.loads(out) == json.loads(re.sub(r"\s+", " ", promised.group(1)))
    assert any(logged.group(1) in m for m in guard_log), guard_log
    assert portal.submissions() == []


def test_no_command_runs_inside_the_package() -> None:
    # The route by hand and its crash test; `ajantik test run`'s section is its own.
    route = README[README.index("## Run it by hand"):README.index("## Crash-test it with")]
    assert "cd examples/portal-pilot" not in route
    for line in route.splitlines():
        for name in ("guard.json", "adapter.py", "scripts/", "files/"):
            if line.startswith("    ") and name in line and "$SKILL" not in line:
                pytest.fail(f"a command names {name} outside $SKILL: {line.strip()}")
