"""Read a filing back from its review page: what the registry says it holds.

    CDP_URL=... python check_filing.py R-101
    {"step": "check_filing", "record": "R-101", "ok": true, "status": "draft",
     "sections": {"company": {...}, "officers": null, ...},
     "documents": [{"name": "accounts-R-101.pdf", "sha256": "..."}], "missing": "..."}

It never presses anything on the page.
"""

from __future__ import annotations

from typing import Any

from ajantik_portal_pilot.skill.scripts.portal_session import open_view, run_step


async def check_filing(page: Any, portal: str, record: str) -> dict[str, Any]:
    await open_view(page, portal, f"/filings/{record}/review", "#review[data-ready]")
    found = await page.evaluate("""() => {
      const sections = {};
      for (const td of document.querySelectorAll("#review td[data-section]")) {
        const name = td.dataset.section;
        if (td.dataset.missing) { sections[name] = null; continue; }
        (sections[name] = sections[name] || {})[td.dataset.field] = td.textContent;
      }
      const documents = [...document.querySelectorAll("#review li[data-doc]")].map(
        li => ({id: li.dataset.doc, name: li.dataset.name, sha256: li.dataset.sha256}));
      return {sections, documents,
              status: document.getElementById("filing-status").textContent,
              missing: document.getElementById("missing").textContent};
    }""")
    return {"step": "check_filing", "record": record, "ok": True, **found}


if __name__ == "__main__":
    run_step("check_filing", check_filing, "check_filing.py RECORD", 1)
