"""Permissions the guard holds denied in every browser context, and the client commands
that would lift them.

Chrome sends some requests for a page from its own process, where no Fetch session
pauses them. One permission gates several of them in Chrome's own machinery:

* ``background-sync``: a page registers a sync (``registration.sync.register``) and
  Chrome wakes its service worker later to send what it queued, again and again after a
  failure (with backoff), so a write the net failed is retried, possibly after the guard
  has stopped. Chrome also uploads Reporting API and Network Error Logging reports (from
  the network service, outside Fetch) only for a report whose origin has this permission
  (measured on Chromium 156: tests/guard/test_https_channels.py).
* ``periodic-background-sync``: the same, on a timer.

Denied with ``Browser.setPermission`` (measured on Chromium 156: ``sync.register`` then
rejects with NotAllowedError, and no report is uploaded). The override lasts as long as
the guard's connection: Chrome drops it when that closes, so the person's Chrome gets
the permission back when the guard stops. A client that sets either back, grants it, or resets the
overrides would lift the guard's denial; those commands are refused.
"""

from __future__ import annotations

from typing import Any

# Browser.setPermission descriptor names, with Browser.grantPermissions' names for them.
DENIED = {
    "background-sync": "backgroundSync",
    "periodic-background-sync": "periodicBackgroundSync",
}
WHY = ("the guard holds background sync denied: Chrome sends what a sync queued, and its "
       "reports, from its own process, outside the guard's net")


def deny_commands(context_id: str | None) -> list[tuple[str, dict[str, Any]]]:
    """The browser-session commands that deny each permission in one browser context
    (None: the default context)."""
    out = []
    for name in DENIED:
        params: dict[str, Any] = {"permission": {"name": name}, "setting": "denied"}
        if context_id is not None:
            params["browserContextId"] = context_id
        out.append(("Browser.setPermission", params))
    return out


class DeniedContexts:
    """Which browser contexts already have the denials: each gets them once, before the
    first target in it is released."""

    def __init__(self) -> None:
        self._done: set[str | None] = set()

    def needed(self, context_id: str | None) -> list[tuple[str, dict[str, Any]]]:
        if context_id in self._done:
            return []
        self._done.add(context_id)
        return deny_commands(context_id)


def _name(value: Any) -> str:
    return str(value).strip().lower().replace("_", "-")


_GRANT_NAMES = {v.lower() for v in DENIED.values()}


def permission_refusal(method: str, params: dict[str, Any]) -> str | None:
    """Why a client's command must not reach Chrome, or None."""
    if method == "Browser.setPermission":
        descriptor = params.get("permission")
        name = _name(descriptor.get("name", "")) if isinstance(descriptor, dict) else ""
        if name in DENIED and params.get("setting") != "denied":
            return WHY
    elif method == "Browser.grantPermissions":
        wanted = params.get("permissions")
        if isinstance(wanted, list) and any(str(p).lower() in _GRANT_NAMES for p in wanted):
            return WHY
    elif method == "Browser.resetPermissions":
        return "it would lift the guard's denial of background sync (" + WHY + ")"
    return None
