"""The target book read from Chrome's Target events (``TargetBook.news``), as the guard's
session and the camera's own session both read them: a conversation of events in, what the
book holds and what its reader must do out."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.targets import TargetBook, TargetState
from tests.support.examples import examples


def info(target_id: str, kind: str = "page", url: str = "about:blank") -> dict[str, Any]:
    return {"targetInfo": {"targetId": target_id, "type": kind, "url": url}}


def test_a_page_from_creation_to_destruction() -> None:
    book = TargetBook()
    created = book.news("Target.targetCreated", info("T1", url="http://a/"))
    assert created is not None and created.attached is None and created.gone is None
    assert book.status("T1") is TargetState.UNKNOWN

    news = book.news("Target.attachedToTarget",
                     {**info("T1", url="http://a/"), "sessionId": "S1",
                      "waitingForDebugger": True})
    assert news is not None and news.attached is not None and news.waiting
    assert news.attached.session_id == "S1" and book.status("T1") is TargetState.PENDING
    assert book.by_session("S1") is news.attached

    book.news("Target.targetInfoChanged", info("T1", url="http://a/next"))
    assert news.attached.url == "http://a/next"

    detached = book.news("Target.detachedFromTarget", {"sessionId": "S1"})
    assert detached is not None and detached.gone == "T1"
    assert book.by_session("S1") is None and book.live("T1") is None
    assert book.get("T1") is not None  # its last requests can still be named

    destroyed = book.news("Target.targetDestroyed", {"targetId": "T1"})
    assert destroyed is not None and destroyed.gone == "T1"


def test_a_detach_of_an_unknown_session_names_no_target() -> None:
    news = TargetBook().news("Target.detachedFromTarget", {"sessionId": "nobody"})
    assert news is not None and news.gone is None


def test_an_attach_not_waiting_for_the_debugger() -> None:
    news = TargetBook().news("Target.attachedToTarget",
                             {**info("W", "service_worker"), "sessionId": "S"})
    assert news is not None and news.attached is not None and not news.waiting
    assert news.attached.target_type == "service_worker"


@given(st.sampled_from(["Target.attachedToTarget", "Target.targetCreated",
                        "Target.targetInfoChanged"]),
       st.dictionaries(st.sampled_from(["targetInfo", "sessionId", "waitingForDebugger"]),
                       st.one_of(st.none(), st.integers(), st.text(max_size=3),
                                 st.fixed_dictionaries({"targetId": st.integers()}))))
@examples(200)
def test_malformed_target_events_change_nothing(method: str, params: dict[str, Any]) -> None:
    book = TargetBook()
    news = book.news(method, params)
    assert news is None or news.attached is None
    assert list(book) == []


def test_other_events_are_not_the_books() -> None:
    book = TargetBook()
    assert book.news("Page.frameNavigated", info("T1")) is None
    assert list(book) == []


def test_a_worker_attached_twice_stays_guarded_when_its_pages_session_goes() -> None:
    # A service worker comes to the guard through the browser's auto-attach and through
    # its page's; when its last page closes, the page's session goes and the browser's
    # stays. Forgetting the worker then held every client command for it (issue 28).
    book = TargetBook()
    by_browser = book.news("Target.attachedToTarget",
                           {**info("W", "service_worker"), "sessionId": "S-BROWSER"})
    by_page = book.news("Target.attachedToTarget",
                        {**info("W", "service_worker"), "sessionId": "S-PAGE"})
    assert by_browser is not None and by_browser.attached is not None
    assert by_page is not None and by_page.attached is not None
    by_browser.attached.state = TargetState.GUARDED
    by_page.attached.state = TargetState.GUARDED
    book.news("Target.detachedFromTarget", {"sessionId": "S-PAGE"})
    assert book.live("W") is by_browser.attached
    assert book.status("W") is TargetState.GUARDED
    # The last session going forgets it, as for any target.
    book.news("Target.detachedFromTarget", {"sessionId": "S-BROWSER"})
    assert book.live("W") is None and book.status("W") is TargetState.UNKNOWN
    assert book.get("W") is by_browser.attached
