"""Which Background Fetch events name a denied URL (core/guard/background_fetch.py)."""

from __future__ import annotations

from typing import Any

from ajantik_cdp.core.guard.background_fetch import clear_command, denied_fetch
from ajantik_cdp.core.policy.config import parse_config

CONFIG = parse_config({"deny": ["denied"]})


def _event(name: str, url: str, status: str | None = None,
           service: str = "backgroundFetch") -> dict[str, Any]:
    meta = [{"key": "URL", "value": url}, {"key": "Request Index", "value": "0"}]
    if status is not None:
        meta.append({"key": "Response Status", "value": status})
    return {"backgroundServiceEvent": {"service": service, "eventName": name,
                                       "origin": "https://site.example/",
                                       "eventMetadata": meta}}


def test_a_request_about_to_go_to_a_denied_url_is_found() -> None:
    found = denied_fetch(CONFIG, _event("Request processing started",
                                        "https://x.example/denied-thing"))
    assert found is not None
    assert (found.origin, found.url, found.sent) == \
        ("https://site.example", "https://x.example/denied-thing", False)
    assert clear_command(found.origin) == ("Storage.clearDataForOrigin", {
        "origin": "https://site.example", "storageTypes": "service_workers"})


def test_a_completed_request_with_an_answer_got_through() -> None:
    url = "https://x.example/denied-thing"
    sent = denied_fetch(CONFIG, _event("Request processing completed", url, "200"))
    assert sent is not None and sent.sent
    failed = denied_fetch(CONFIG, _event("Request processing completed", url, "0"))
    assert failed is not None and not failed.sent


def test_allowed_urls_other_events_and_services_are_left_alone() -> None:
    assert denied_fetch(CONFIG, _event("Request processing started",
                                       "https://x.example/fine")) is None
    assert denied_fetch(CONFIG, _event("Background Fetch registered",
                                       "https://x.example/denied")) is None
    assert denied_fetch(CONFIG, _event("Request processing started",
                                       "https://x.example/denied",
                                       service="backgroundSync")) is None
    assert denied_fetch(CONFIG, {"backgroundServiceEvent": "nonsense"}) is None


def test_the_method_is_unknown_so_allow_writes_decides_every_request() -> None:
    config = parse_config({"allow_writes": ["api\\.example"]})
    assert denied_fetch(config, _event("Request processing started",
                                       "https://cdn.example/video.mp4")) is not None
    assert denied_fetch(config, _event("Request processing started",
                                       "https://api.example/upload")) is None


def test_a_client_may_not_stop_the_recording_the_guard_watches() -> None:
    from ajantik_cdp.core.guard.background_fetch import recording_refusal

    stop = {"service": "backgroundFetch", "shouldRecord": False}
    assert recording_refusal("BackgroundService.setRecording", stop)
    assert recording_refusal("BackgroundService.setRecording",
                             {**stop, "shouldRecord": True}) is None
    assert recording_refusal("BackgroundService.setRecording",
                             {**stop, "service": "backgroundSync"}) is None
    assert recording_refusal("BackgroundService.stopObserving", stop) is None
