"""What the guard does with each kind of DevTools target.

Shared by the guard's own session (which decides how to install itself on a target) and
the client gate (which decides whether a client's command may reach it yet).
"""

from __future__ import annotations

from enum import Enum


class TargetState(Enum):
    UNKNOWN = "unknown"  # the guard has not seen this target (yet)
    PENDING = "pending"  # attached, interception being installed; still paused
    GUARDED = "guarded"  # interception installed, released
    EXEMPT = "exempt"  # needs no guard (Chrome's own UI); released as is
    FAILED = "failed"  # could not be guarded; never released by the guard


# Targets that run web content and can make requests: the guard installs Fetch
# interception and auto-attach on each before releasing it.
GUARDED_TYPES = frozenset(
    {
        "page",
        "iframe",
        "worker",
        "shared_worker",
        "service_worker",
        "webview",
        "other",
        "auction_worklet",
        "shared_storage_worklet",
        "worklet",
    }
)

# Chrome's own UI surfaces (chrome:// pages such as the omnibox popup). Chrome attaches
# them on auto-attach and they must be released; they run no site content.
EXEMPT_TYPES = frozenset({"browser_ui"})

# Containers with no network of their own. A client session on one of these carries
# Target.* commands; the pages inside are separate targets that the guard holds.
CONTAINER_TYPES = frozenset({"tab", "browser"})

# Types whose sessions can host Page.* commands (deny_clicks scripts, navigation).
DOCUMENT_TYPES = frozenset({"page", "iframe", "webview"})


def is_settled(state: TargetState) -> bool:
    return state in (TargetState.GUARDED, TargetState.EXEMPT, TargetState.FAILED)
