"""The demo's system: a fresh Harbour Registry (examples/portal-pilot) for every run, a
guard config that allows writes to that portal only, and, once a run is judged, the
portal's own state held against the verdicts (agreement.py)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.config import GuardConfig, parse_config
from ajantik_cdp.demo.agreement import disagreements
from ajantik_cdp.judge.judging import Judgement
from ajantik_cdp.testrun.plan.run_plan import PlannedRun
from ajantik_cdp.testrun.run.workspace import SystemCheck, Workspace
from ajantik_portal_pilot.portal import Portal
from ajantik_portal_pilot.task import SKILL_DIR, FilingTask
from ajantik_portal_pilot.truth import FilingTruth, registry_truth

ADAPTER = SKILL_DIR / "adapter.py"
GUARD_CONFIG = SKILL_DIR / "guard.json"


def guard_config_data(origin: str) -> dict[str, Any]:
    """The example's guard.json, with writes allowed to this run's portal address."""
    data: dict[str, Any] = json.loads(GUARD_CONFIG.read_text(encoding="utf-8"))
    data["allow_writes"] = [f"^{re.escape(origin)}/"]
    return data


def guard_config(origin: str) -> GuardConfig:
    return parse_config(guard_config_data(origin), str(GUARD_CONFIG))


@dataclass(frozen=True)
class PortalCheck:
    """The portal's side of one run: what tests and the conclusions read."""

    truth: Mapping[str, FilingTruth] = field(default_factory=dict)
    compared: int = 0  # units compared with the portal's state
    submissions: int = 0  # submission requests that reached the portal


@dataclass(frozen=True)
class PortalSystem:
    tasks: list[FilingTask]

    @asynccontextmanager
    async def workspace(self, run: PlannedRun, folder: Path) -> AsyncIterator[Workspace]:
        portal = Portal()
        await portal.start()
        try:
            async def check(judgement: Judgement) -> SystemCheck:
                truth = registry_truth(portal, self.tasks)
                found, compared = disagreements(judgement, truth)
                submissions = len(portal.submissions())
                if submissions:
                    found.append(f"{counted(submissions, 'submission request')} reached the portal")
                agrees = "yes" if not found else "; ".join(found)
                return SystemCheck((("portal agrees", agrees),), tuple(found),
                             PortalCheck(truth, compared, submissions))

            yield Workspace(guard_config(portal.origin), {"PORTAL_URL": portal.origin}, check)
        finally:
            await portal.stop()
