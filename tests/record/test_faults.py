"""Each fault kind through the guard on real Chromium.

Three views are checked for every write: the status the page saw, whether the test
server received it (its own hit log, the only truth of "did the write happen"), and the
record line, which keeps the system's own status and body apart from the client's.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import GuardFactory
from tests.record.helpers import SEND_JS, guarded_page, requests_to, wait_for_record
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

BODY = json.dumps({"record": "R-101", "name": "Ada Lovelace"})
JSON = {"Content-Type": "application/json"}


def save(page_path: str = "/hit/save") -> str:
    return f"post({json.dumps(page_path)}, {json.dumps(BODY)}, {json.dumps(JSON)})"


async def test_phantom_success_answers_204_and_never_sends(pw, guard: GuardFactory,
                                                           site: HitSite) -> None:
    g = await guard(fault="phantom_success:/hit/save")
    async with guarded_page(pw, g.url, site.page("ps", SEND_JS)) as page:
        assert await page.evaluate(save()) == 204
        await site.settle()
        assert site.writes("/hit/save") == []
        # It fires once: the next matching write goes through.
        assert await page.evaluate(save()) == 200
        assert await site.wait_for(lambda: len(site.writes("/hit/save")) == 1)
    record = await wait_for_record(g.record, lambda r: len(requests_to(r, "/hit/save")) == 2)
    faulted, passed = requests_to(record, "/hit/save")
    assert faulted.fault == "phantom_success"
    assert faulted.system is None
    assert faulted.client_status == 204
    assert faulted.method == "POST" and faulted.request_body.text == BODY
    assert faulted.frame_url == site.a + "/page/ps"
    assert passed.fault is None and passed.client_status == 200
    assert passed.system is not None and passed.system.status == 200
    assert site.writes("/hit/save")[0].body == BODY.encode()


async def test_transient_error_answers_503_once_then_passes(pw, guard: GuardFactory,
                                                            site: HitSite) -> None:
    g = await guard(fault="transient_error:/hit/save")
    async with guarded_page(pw, g.url, site.page("te", SEND_JS)) as page:
        assert await page.evaluate(save()) == 503
        await site.settle()
        assert site.writes("/hit/save") == []
        assert await page.evaluate(save()) == 200  # the retry
        assert await site.wait_for(lambda: len(site.writes("/hit/save")) == 1)
    record = await wait_for_record(g.record, lambda r: len(requests_to(r, "/hit/save")) == 2)
    first, retry = requests_to(record, "/hit/save")
    assert (first.fault, first.system, first.client_status) == ("transient_error", None, 503)
    assert retry.fault is None and retry.client_status == 200
    assert retry.system is not None and retry.system.status == 200
    assert retry.system.body is not None and '"ok": true' in (retry.system.body.text or "")


async def test_phantom_failure_sends_then_answers_500_and_retry_duplicates(
        pw, guard: GuardFactory, site: HitSite) -> None:
    g = await guard(fault="phantom_failure:/hit/save")
    async with guarded_page(pw, g.url, site.page("pf", SEND_JS)) as page:
        assert await page.evaluate(save()) == 500
        assert await site.wait_for(lambda: len(site.writes("/hit/save")) == 1)
        assert await page.evaluate(save()) == 200  # the skill retries
        assert await site.wait_for(lambda: len(site.writes("/hit/save")) == 2)
    hits = site.writes("/hit/save")
    assert hits[0].body == hits[1].body == BODY.encode()  # the write landed twice
    record = await wait_for_record(g.record, lambda r: len(requests_to(r, "/hit/save")) == 2)
    faulted, retry = requests_to(record, "/hit/save")
    assert faulted.fault == "phantom_failure"
    assert faulted.client_status == 500
    # The system's own answer, kept apart from what the client was given.
    assert faulted.system is not None and faulted.system.status == 200
    assert faulted.system.body is not None
    assert json.loads(faulted.system.body.text or "") == {"ok": True, "path": "/hit/save"}
    assert retry.fault is None and retry.client_status == retry.system.status == 200  # type: ignore[union-attr]
    assert faulted.request_body == retry.request_body


async def test_session_drop_stays_dropped_for_matching_writes(pw, guard: GuardFactory,
                                                              site: HitSite) -> None:
    g = await guard(fault="session_drop:/hit/api/")
    async with guarded_page(pw, g.url, site.page("sd", SEND_JS)) as page:
        assert await page.evaluate(save("/hit/api/one")) == 401
        assert await page.evaluate(save("/hit/api/two")) == 401
        assert await page.evaluate(save("/hit/api/one")) == 401
        # A write that does not match the pattern is untouched.
        assert await page.evaluate(save("/hit/other")) == 200
        assert await site.wait_for(lambda: len(site.writes("/hit/other")) == 1)
        await site.settle()
    assert site.writes("/hit/api/") == []
    record = await wait_for_record(
        g.record, lambda r: len(requests_to(r, "/hit/api/")) == 3 and requests_to(r, "/other"))
    dropped = requests_to(record, "/hit/api/")
    assert [(ln.fault, ln.system, ln.client_status) for ln in dropped] == [
        ("session_drop", None, 401)] * 3
    (other,) = requests_to(record, "/hit/other")
    assert other.fault is None and other.client_status == 200


async def test_fault_at_2_fires_on_the_second_matching_write(pw, guard: GuardFactory,
                                                             site: HitSite) -> None:
    g = await guard(fault="phantom_success:/hit/save", fault_at=2)
    async with guarded_page(pw, g.url, site.page("fa", SEND_JS)) as page:
        assert await page.evaluate(save("/hit/unrelated")) == 200  # does not count
        assert await page.evaluate(save()) == 200
        assert await site.wait_for(lambda: len(site.writes("/hit/save")) == 1)
        assert await page.evaluate(save()) == 204
        await site.settle()
        assert len(site.writes("/hit/save")) == 1
        assert await page.evaluate(save()) == 200
        assert await site.wait_for(lambda: len(site.writes("/hit/save")) == 2)
    record = await wait_for_record(g.record, lambda r: len(requests_to(r, "/hit/save")) == 3)
    assert [(ln.fault, ln.client_status) for ln in requests_to(record, "/hit/save")] == [
        (None, 200), ("phantom_success", 204), (None, 200)]
    assert record.start is not None
    assert record.start.fault == {"kind": "phantom_success", "pattern": "/hit/save", "at": 2}


async def test_a_fault_never_fires_on_reads(pw, guard: GuardFactory, site: HitSite) -> None:
    g = await guard({"record": ["/hit/"]}, fault="phantom_success:/hit/save")
    async with guarded_page(pw, g.url, site.page("rd", SEND_JS)) as page:
        assert await page.evaluate("send('/hit/save')") == 200  # a GET
        assert await page.evaluate(save()) == 204
    assert len(site.gets("/hit/save")) == 1
    record = await wait_for_record(g.record, lambda r: len(requests_to(r, "/hit/save")) == 2)
    read, write = requests_to(record, "/hit/save")
    assert (read.method, read.fault, read.client_status) == ("GET", None, 200)
    assert (write.method, write.fault) == ("POST", "phantom_success")
