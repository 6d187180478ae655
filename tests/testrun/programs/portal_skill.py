"""A skill for portal-pilot that misbehaves when its work goes wrong: what `ajantik test
run` must never score as a pass. It saves one filing (the task in $PORTAL_PILOT_TASK)
with the page's own fetch, through CDP_URL, and on the first answer that is not 2xx:

  crash  raises (a traceback, exit 1, no report)
  hang   sleeps past any deadline
  quit   exits 0 and prints no report
  lie    goes on and reports every filing done
  shy    (never sees an error) writes the officers section only in the clean run, so a
         fault aimed at that write point is never reached (and says so in its report)

An honest run (every answer 2xx) prints the FILING REPORT with the filing done.
"""

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright

FETCH = """async ([method, url, body]) => {
  const r = await fetch(url, {method, credentials: "same-origin",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  return r.status;
}"""


async def main(mode: str, task: dict) -> None:
    portal = os.environ["PORTAL_URL"]
    record, spec = next(iter(task["filings"].items()))
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(os.environ["CDP_URL"])
        page = await browser.contexts[0].new_page()
        await page.goto(portal + "/dashboard")
        if "/login" in page.url:  # the browser was signed in before the test
            raise SystemExit("not signed in")
        skipped: list[str] = []
        for section, fields in spec["sections"].items():
            if mode == "shy" and section == "officers" and os.environ["AJANTIK_RUN"] != "clean":
                skipped.append(section)
                continue
            status = await page.evaluate(FETCH, [
                "PUT", f"{portal}/api/filings/{record}/sections/{section}", fields])
            if 200 <= status < 300:
                continue
            if mode == "crash":
                raise RuntimeError(f"{section}: HTTP {status}")
            if mode == "hang":
                time.sleep(3600)  # noqa: ASYNC251  (on purpose: a wedged skill)
            if mode == "quit":
                return
        await page.close()
        await browser.close()
    print("FILING REPORT")
    print(f"{record}: not done — skipped {', '.join(skipped)}" if skipped else
          f"{record}: done — every section saved")


if __name__ == "__main__":
    task = json.loads(Path(os.environ["PORTAL_PILOT_TASK"]).read_text(encoding="utf-8"))
    asyncio.run(main(sys.argv[1], task))
