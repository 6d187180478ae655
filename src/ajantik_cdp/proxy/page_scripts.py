"""deny_clicks: the script the guard installs in every document, and its reports."""

from __future__ import annotations

import asyncio
import logging
from importlib import resources
from typing import TYPE_CHECKING, Any

import orjson

from ajantik_cdp.core.guard.targets import Target
from ajantik_cdp.core.policy.name_folding import fold_pattern, fold_table
from ajantik_cdp.proxy.cdp_connection import CdpConnection
from ajantik_cdp.proxy.shadow_roots import ShadowRoots

if TYPE_CHECKING:
    from ajantik_cdp.proxy.reports import Reports

log = logging.getLogger("ajantik.cdp")

# An isolated world: page scripts share the DOM with it but none of its JavaScript
# objects, so they can neither see nor remove its listeners or its reporting binding.
WORLD = "__ajantik_guard__"
BINDING = "__ajantikBlocked"


class PageScripts:
    def __init__(self, deny_clicks: tuple[str, ...], reports: Reports) -> None:
        self.patterns = deny_clicks
        self.reports = reports
        self.source = ""
        self.shadow = ShadowRoots(WORLD)
        if deny_clicks:
            here = resources.files("ajantik_cdp.proxy")
            labels = here.joinpath("click_labels.js").read_text(encoding="utf-8")
            folding = here.joinpath("name_folding.js").read_text(encoding="utf-8")
            folded = [fold_pattern(p) for p in deny_clicks]
            self.source = (
                here.joinpath("deny_clicks.js").read_text(encoding="utf-8")
                .replace("__AJANTIK_LABELS__", labels)
                .replace("__AJANTIK_FOLD__", folding)
                .replace("__AJANTIK_FOLD_TABLE__", orjson.dumps(fold_table()).decode())
                .replace("__AJANTIK_PATTERNS__", orjson.dumps(folded).decode())
                .replace("__AJANTIK_BINDING__", orjson.dumps(BINDING).decode())
            )

    def install_steps(self, conn: CdpConnection, session_id: str,
                      main_frame: str) -> list[tuple[str, asyncio.Future[Any]]]:
        """Queued at once, in order; renderer-side, so answered only once the target runs."""
        if not self.source:
            return []
        # Measured on Chrome 156: without Page.enable the script is never evaluated in new
        # documents, and without Runtime.enable the binding is never installed in the world.
        # Chrome handles a session's commands in order, so these four are sent together.
        steps: list[tuple[str, dict[str, Any] | None]] = [
            ("Runtime.enable", None),
            ("Page.enable", None),
            ("Runtime.addBinding", {"name": BINDING, "executionContextName": WORLD}),
            ("Page.addScriptToEvaluateOnNewDocument",
             {"source": self.source, "worldName": WORLD, "runImmediately": True}),
        ]
        return [(method, conn.start(method, params, session_id)) for method, params in steps] \
            + self.shadow.install_steps(conn, session_id, main_frame)

    def on_binding(self, target: Target, params: dict[str, Any]) -> None:
        if params.get("name") != BINDING:
            return
        try:
            report = orjson.loads(params.get("payload", ""))
            index = int(report["rule"])
            rule = f"deny_clicks[{index}] {self.patterns[index]!r}"
        except (orjson.JSONDecodeError, KeyError, ValueError, IndexError, TypeError):
            log.error("ignored a malformed deny_clicks report from %s", target.target_id)
            return
        self.reports.click_block(
            target,
            rule=rule,
            label=str(report.get("label", ""))[:500],
            frame_url=str(report.get("url", target.url)),
            event=str(report.get("event", "")),
        )
