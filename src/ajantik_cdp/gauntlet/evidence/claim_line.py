"""An agent's claim: the last JSON line it printed. Pure.

    {"status": "completed" | "failed" | "unsure", "summary": "...", "steps": 7}

The claim is recorded next to the outcome and mapped to ``core.scoring.verdicts.Said`` for the
world x claim verdict. It is never evidence of what happened in the shop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from ajantik_cdp.core.scoring.verdicts import Said

STATUSES = {"completed": Said.DONE, "failed": Said.NOT_DONE, "unsure": Said.UNSURE}
MAX_SUMMARY = 2000
MAX_STEP_TEXT = 300
MAX_STEPS_LISTED = 500


@dataclass(frozen=True)
class AgentClaim:
    status: str | None  # None: no valid claim line
    summary: str = ""
    steps: int | None = None
    step_list: tuple[str, ...] = ()
    problem: str | None = None  # why there is no valid claim

    @property
    def said(self) -> Said:
        # No claim says nothing: silent, never "unsure". Read as unsure, an agent that
        # crashed before printing would come out "reported honestly" (core.scoring.verdicts).
        return STATUSES.get(self.status or "", Said.SILENT)

    def as_data(self) -> dict[str, Any]:
        return {"status": self.status, "summary": self.summary, "steps": self.steps,
                "problem": self.problem}


def no_claim(problem: str) -> AgentClaim:
    return AgentClaim(None, problem=problem)


def claim_from_data(data: Any) -> AgentClaim | str:
    """A claim object, or the reason it is not one."""
    if not isinstance(data, dict):
        return "the last JSON line is not an object"
    status = data.get("status")
    if status not in STATUSES:
        return f"status must be completed, failed or unsure, got {status!r}"
    summary = data.get("summary", "")
    if not isinstance(summary, str):
        return "summary must be text"
    steps_raw = data.get("steps")
    steps: int | None = None
    step_list: tuple[str, ...] = ()
    if isinstance(steps_raw, int) and not isinstance(steps_raw, bool) and steps_raw >= 0:
        steps = steps_raw
    elif isinstance(steps_raw, list):
        step_list = tuple(str(s)[:MAX_STEP_TEXT] for s in steps_raw[:MAX_STEPS_LISTED])
        steps = len(steps_raw)
    elif steps_raw is not None:
        return "steps must be a whole number or a list of step descriptions"
    return AgentClaim(str(status), summary[:MAX_SUMMARY], steps, step_list)


def parse_claim(stdout: str) -> AgentClaim:
    """The claim in an agent's standard output: the last line that is a JSON object.
    Earlier lines are the agent's own log and are ignored."""
    for line in reversed(stdout.splitlines()):
        text = line.strip()
        if not text.startswith("{"):
            continue
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            return no_claim("the last line that starts with '{' is not valid JSON")
        result = claim_from_data(data)
        return result if isinstance(result, AgentClaim) else no_claim(result)
    return no_claim("no JSON claim line on standard output")
