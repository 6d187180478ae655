"""What the operator does in the browser: sign in to the portal (before handing the
browser to a skill, and again when the skill asks after its session expired)."""

from __future__ import annotations

from typing import Any

from ajantik_portal_pilot.portal import PASSWORD, USERNAME


async def sign_in(page: Any, origin: str, username: str = USERNAME,
                  password: str = PASSWORD) -> None:
    await page.goto(origin + "/login")
    await page.fill("#username", username)
    await page.fill("#password", password)
    await page.click("button[type=submit]")
    await page.wait_for_url(origin + "/dashboard")
    # The dashboard reads the filings as it loads. Closed before that read has answered,
    # the page takes the answer with it: the guard records the read without its body, and
    # the judge cannot score a run whose record lacks it (seen in the demo's session_drop
    # run, where the operator signs in again on a page of its own and then closes it).
    await page.wait_for_load_state("networkidle")
