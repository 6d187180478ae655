"""What the guard does with each kind of DevTools target.

Shared by the guard's own session (which decides how to install itself on a target) and
the client gate (which decides whether a client's command may reach it yet).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class TargetState(Enum):
    UNKNOWN = "unknown"  # the guard has not seen this target (yet)
    PENDING = "pending"  # attached, interception being installed; still paused
    GUARDED = "guarded"  # interception installed, released
    EXEMPT = "exempt"  # needs no guard (Chrome's own UI); released as is
    FAILED = "failed"  # could not be guarded; never released by the guard


# Chrome's own UI surfaces (chrome:// pages such as the omnibox popup). Chrome attaches
# them on auto-attach and they must be released; they run no site content.
EXEMPT_TYPES = frozenset({"browser_ui"})

# Containers with no network of their own. A client session on one of these carries
# Target.* commands; the pages inside are separate targets that the guard holds.
CONTAINER_TYPES = frozenset({"tab", "browser"})

# Types whose sessions can host Page.* commands (deny_clicks scripts, navigation).
DOCUMENT_TYPES = frozenset({"page", "iframe", "webview"})


@dataclass(frozen=True)
class InstallPlan:
    """What the guard must have in place on a target before it releases it."""

    exempt: bool = False
    fetch: bool = True
    auto_attach: bool = True
    page_scripts: bool = False


def install_plan(target_type: str) -> InstallPlan:
    if target_type in EXEMPT_TYPES:
        return InstallPlan(exempt=True, fetch=False, auto_attach=False)
    if target_type == "worker":
        # A dedicated worker has no Fetch domain ("'Fetch.enable' wasn't found", Chrome
        # 156); its requests are paused on its owner frame's session, which the guard
        # already holds. Auto-attach still brings the workers it starts to the guard.
        return InstallPlan(fetch=False)
    # Everything else, known (page, iframe, shared and service workers) or not, gets
    # interception; a type that refuses it stays paused rather than run unguarded.
    return InstallPlan(page_scripts=target_type in DOCUMENT_TYPES)


def is_settled(state: TargetState) -> bool:
    return state in (TargetState.GUARDED, TargetState.EXEMPT, TargetState.FAILED)
