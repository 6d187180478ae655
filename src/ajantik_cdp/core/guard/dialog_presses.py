"""JavaScript dialogs as presses. Pure.

``confirm("Proceed to submission?")`` asks the person to press one of two buttons, and a
client's ``Page.handleJavaScriptDialog {accept: true}`` presses the one that goes on: a
press on a control named by the dialog's message. It is judged by ``deny_clicks`` like
any other press; a denied accept is refused (the client is answered an error and the
dialog stays open, so the page goes on only if it is dismissed) and recorded as a block.

``confirm``, ``prompt`` and ``beforeunload`` dialogs are judged: accepting each decides
something (go on, submit the typed answer, leave the page). An ``alert`` has one button
and decides nothing. The message is known from ``Page.javascriptDialogOpening``, which
both the guard's own session (Page is enabled on it wherever ``deny_clicks`` is set) and
the client's may see: whichever saw it first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ajantik_cdp.core.policy.click_patterns import click_pattern_matches

JUDGED_KINDS = frozenset({"confirm", "prompt", "beforeunload"})


@dataclass(frozen=True)
class OpenDialog:
    message: str
    kind: str  # "alert", "confirm", "prompt", "beforeunload"
    url: str


@dataclass(frozen=True)
class RefusedDialog:
    """A client's accept of a dialog whose message a ``deny_clicks`` pattern matches."""

    target_id: str
    dialog: OpenDialog
    rule_index: int
    rule: str  # as the record names it: "deny_clicks[0] 'proceed to submission'"

    @property
    def event(self) -> str:
        return f"{self.dialog.kind} accept"


def denied_accept(patterns: Sequence[str], target_id: str,
                  dialog: OpenDialog | None) -> RefusedDialog | None:
    """The refusal of an accept of ``dialog`` on ``target_id``, or None when it may go."""
    if dialog is None or dialog.kind not in JUDGED_KINDS:
        return None
    for index, pattern in enumerate(patterns):
        if click_pattern_matches(pattern, dialog.message):
            return RefusedDialog(target_id, dialog, index, f"deny_clicks[{index}] {pattern!r}")
    return None


@dataclass
class OpenDialogs:
    """Which dialog each target has open, from the Page events one connection sees."""

    _open: dict[str, OpenDialog] = field(default_factory=dict)

    def event(self, target_id: str | None, method: Any, params: Mapping[str, Any]) -> None:
        if target_id is None:
            return
        if method == "Page.javascriptDialogOpening":
            self._open[target_id] = OpenDialog(
                message=str(params.get("message", "")), kind=str(params.get("type", "")),
                url=str(params.get("url", "")))
        elif method == "Page.javascriptDialogClosed":
            self._open.pop(target_id, None)

    def get(self, target_id: str) -> OpenDialog | None:
        return self._open.get(target_id)

    def gone(self, target_id: str) -> None:
        self._open.pop(target_id, None)
