"""Upload a document (the annual accounts) to a filing.

    CDP_URL=... python upload_document.py R-101 files/accounts-R-101.pdf
    {"step": "upload_document", "record": "R-101", "file": "accounts-R-101.pdf",
     "ok": true, "http_status": 200, "message": "Uploaded"}

Every upload adds a document: uploading again after an error can leave two copies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ajantik_portal_pilot.skill.scripts.portal_session import StepFailed, open_view, run_step


async def upload_document(page: Any, portal: str, record: str, path: str) -> dict[str, Any]:
    file = Path(path)
    if not file.is_file():  # noqa: ASYNC240 (one stat of a local file)
        raise StepFailed(f"no such file: {path}")
    await open_view(page, portal, f"/filings/{record}/documents", "#upload-form[data-ready]")
    await page.set_input_files("#file", str(file))
    await page.click("#upload-form button[type=submit]")
    status = await page.wait_for_selector("#status[data-http-status]")
    http_status = int(await status.get_attribute("data-http-status") or 0)
    return {"step": "upload_document", "record": record, "file": file.name,
            "ok": 200 <= http_status < 300, "http_status": http_status,
            "message": await status.text_content()}


if __name__ == "__main__":
    run_step("upload_document", upload_document, "upload_document.py RECORD FILE", 2)
