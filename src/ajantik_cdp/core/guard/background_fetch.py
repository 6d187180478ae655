"""Background Fetch jobs that would send to a denied URL, and what stops them.

Chrome's download service sends a Background Fetch's requests from the browser process:
no Fetch session pauses them (measured on Chromium 156: not the browser session's with
the pattern ``*``, nor ``Network.setBlockedURLs`` on the page's session), and Chrome lets a
job start by its download limiter, which ``Browser.setPermission`` does not reach. What
Chrome does tell is each request it is about to send: with the BackgroundService domain
observing (and recording) ``backgroundFetch``, a page session gets "Request processing
started" with the request's URL, about two seconds before the request left (measured).
Removing the site's service workers (``Storage.clearDataForOrigin`` with
``service_workers``) then abandons the job in Chrome, before the request goes: measured,
the site never received it. So the guard removes the service workers of a site whose
Background Fetch names a denied URL. Chrome's event does not carry the method, so each
request is decided as a write (a download from a URL outside ``allow_writes`` costs the
site its service worker too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.rules import Decision, RequestFacts, decide

SERVICE = "backgroundFetch"
OBSERVE = (
    ("BackgroundService.startObserving", {"service": SERVICE}),
    # Chrome sends the events only while it records them (kept in the profile, shown in
    # DevTools' Background services panel); the guard stops recording when it stops.
    ("BackgroundService.setRecording", {"shouldRecord": True, "service": SERVICE}),
)
STOP_RECORDING = ("BackgroundService.setRecording", {"shouldRecord": False, "service": SERVICE})
EVENT = "BackgroundService.backgroundServiceEventReceived"
STARTED = "Request processing started"
COMPLETED = "Request processing completed"


@dataclass(frozen=True)
class DeniedFetch:
    """A request a Background Fetch job is about to send (or sent) to a denied URL."""

    origin: str  # the site whose service workers are removed
    url: str
    decision: Decision
    sent: bool  # Chrome says the request completed with an answer: it got through


def _metadata(event: Mapping[str, Any]) -> dict[str, str]:
    entries = event.get("eventMetadata")
    if not isinstance(entries, list):
        return {}
    return {str(e.get("key")): str(e.get("value")) for e in entries if isinstance(e, Mapping)}


def denied_fetch(config: GuardConfig, params: Mapping[str, Any]) -> DeniedFetch | None:
    """What one ``backgroundServiceEventReceived`` means for the rules, or None."""
    event = params.get("backgroundServiceEvent")
    if not isinstance(event, Mapping) or event.get("service") != SERVICE:
        return None
    name = event.get("eventName")
    if name not in (STARTED, COMPLETED):
        return None
    meta = _metadata(event)
    url = meta.get("URL", "")
    origin = str(event.get("origin", "")).rstrip("/")
    if not url or not origin:
        return None
    decision = decide(config, RequestFacts("POST", url, "Fetch"))
    if not decision.blocked:
        return None
    status = meta.get("Response Status", "0")
    return DeniedFetch(origin, url, decision,
                       sent=name == COMPLETED and status not in ("", "0"))


def clear_command(origin: str) -> tuple[str, dict[str, Any]]:
    """Remove the site's service workers: Chrome abandons their Background Fetch jobs."""
    return ("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "service_workers"})


def recording_refusal(method: str, params: Mapping[str, Any]) -> str | None:
    """A client's command that would stop Chrome recording Background Fetch (recording is
    the profile's, not the session's: the guard's events would stop with it)."""
    if method == "BackgroundService.setRecording" and params.get("service") == SERVICE \
            and not params.get("shouldRecord"):
        return ("the guard watches Background Fetch through Chrome's recording of it, "
                "which this would stop for every session")
    return None
