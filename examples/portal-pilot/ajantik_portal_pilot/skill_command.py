"""The portal-pilot skill as one program: what ``ajantik test run`` runs.

    CDP_URL=http://127.0.0.1:9333 PORTAL_URL=http://127.0.0.1:8765 \\
        python -m ajantik_portal_pilot.skill_command verifying

It connects to ``CDP_URL``, takes the portal's tab in the signed-in browser (or opens
one), runs the ``blind`` or ``verifying`` skill (scripted_skills.py) over the task
(skill/filings.json, or ``$PORTAL_PILOT_TASK``), prints the FILING REPORT on stdout and
exits 0. When the portal asks to sign in, it asks the operator the way docs/adapter.md
describes: one JSON line on stdout, ``{"ask": "sign_in", ...}``, then it waits for the
answer line on stdin and goes on (or stops, when the answer is not ok). Exit code 2 for
a wrong argument, 1 when it could not work at all (no CDP_URL, no browser).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys

from ajantik_portal_pilot.scripted_skills import SKILLS
from ajantik_portal_pilot.skill.scripts.portal_session import StepFailed, portal_page, portal_url
from ajantik_portal_pilot.task import load_task

_ids = itertools.count(1)


async def ask_operator(kind: str, message: str) -> bool:
    """Ask over stdout, read the answer from stdin; no answer (EOF) is a no."""
    ask_id = next(_ids)
    print(json.dumps({"ask": kind, "id": ask_id, "message": message, "portal": portal_url()}),
          flush=True)
    line = await asyncio.to_thread(sys.stdin.readline)
    try:
        answer = json.loads(line) if line.strip() else {}
    except json.JSONDecodeError:
        answer = {}
    ok = isinstance(answer, dict) and answer.get("id") == ask_id and answer.get("ok") is True
    print(f"operator: {'done' if ok else 'not done'}: {answer.get('message', '')}"
          if isinstance(answer, dict) else "operator: no answer", file=sys.stderr, flush=True)
    return ok


async def main(skill: str) -> str:
    portal = portal_url()
    async with portal_page(portal) as page:
        return await SKILLS[skill](page, portal, load_task(), ask_operator)


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in SKILLS:
        print(f"usage: python -m ajantik_portal_pilot.skill_command {{{','.join(SKILLS)}}}",
              file=sys.stderr)
        raise SystemExit(2)
    try:
        report = asyncio.run(main(sys.argv[1]))
    except StepFailed as exc:
        print(f"skill_command: error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    sys.stdout.write(report)
