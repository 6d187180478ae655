"""List the filings the signed-in agent can see.

    CDP_URL=http://127.0.0.1:9333 python read_dashboard.py
    {"step": "read_dashboard", "ok": true, "filings": [{"record": "R-101", ...}]}
"""

from __future__ import annotations

from typing import Any

from ajantik_portal_pilot.skill.scripts.portal_session import open_view, run_step


async def read_dashboard(page: Any, portal: str) -> dict[str, Any]:
    await open_view(page, portal, "/dashboard", "#filings[data-ready]")
    rows = await page.eval_on_selector_all(
        "#filings tbody tr",
        "rows => rows.map(r => ({record: r.dataset.record, "
        "cells: [...r.cells].map(c => c.textContent)}))",
    )
    filings = [
        {"record": r["record"], "account": r["cells"][1], "period": r["cells"][2],
         "status": r["cells"][3], "missing": r["cells"][4]}
        for r in rows
    ]
    return {"step": "read_dashboard", "ok": True, "filings": filings}


if __name__ == "__main__":
    run_step("read_dashboard", read_dashboard, "read_dashboard.py", 0)
