"""Fill in one section of a filing and press its Save button.

    CDP_URL=... python save_section.py R-101 company '{"company_number": "07123456", ...}'
    {"step": "save_section", "record": "R-101", "section": "company", "ok": true,
     "http_status": 200, "message": "Saved"}

``ok`` and ``message`` are what the portal's page said after the save. The page can be
wrong about what the registry holds; check_filing.py reads the filing back.
"""

from __future__ import annotations

import json
from typing import Any

from ajantik_portal_pilot.skill.scripts.portal_session import StepFailed, open_view, run_step


async def save_section(page: Any, portal: str, record: str, section: str,
                       fields: dict[str, str] | str) -> dict[str, Any]:
    values = json.loads(fields) if isinstance(fields, str) else fields
    if not isinstance(values, dict):
        raise StepFailed("the fields must be a JSON object")
    await open_view(page, portal, f"/filings/{record}/sections/{section}",
                    "#section-form[data-ready]")
    for key, value in values.items():
        await page.fill(f'#section-form [name="{key}"]', str(value))
    await page.click("#section-form button[type=submit]")
    status = await page.wait_for_selector("#status[data-http-status]")
    http_status = int(await status.get_attribute("data-http-status") or 0)
    return {"step": "save_section", "record": record, "section": section,
            "ok": 200 <= http_status < 300, "http_status": http_status,
            "message": await status.text_content()}


if __name__ == "__main__":
    run_step("save_section", save_section, "save_section.py RECORD SECTION JSON", 3)
