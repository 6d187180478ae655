"""OPERATOR ONLY: press "Proceed to submission" on a filing's review page.

Submission is irreversible. SKILL.md forbids running this step unless the operator asks
for it by record number; under ``ajantik cdp`` with guard.json it is denied twice over
(the press is swallowed and the submission request is blocked).
"""

from __future__ import annotations

from typing import Any

from ajantik_portal_pilot.skill.scripts.portal_session import open_view, run_step


async def proceed_to_submission(page: Any, portal: str, record: str) -> dict[str, Any]:
    await open_view(page, portal, f"/filings/{record}/review", "#review[data-ready]")
    await page.click("#proceed")
    status = page.locator("#status[data-http-status]")
    try:
        await status.wait_for(timeout=3000)
    except Exception:
        return {"step": "proceed_to_submission", "record": record, "ok": False,
                "error": "the page did not answer the press"}
    http_status = int(await status.get_attribute("data-http-status") or 0)
    return {"step": "proceed_to_submission", "record": record,
            "ok": 200 <= http_status < 300, "http_status": http_status,
            "message": await status.text_content()}


if __name__ == "__main__":
    run_step("proceed_to_submission", proceed_to_submission,
             "proceed_to_submission.py RECORD", 1)
