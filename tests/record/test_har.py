"""The HAR export: HAR 1.2's required structure, and a real import by Chrome DevTools.

The DevTools test loads the DevTools front end that Chromium itself serves on its
debugging port and runs the same parser and importer its Network panel uses for "Import
HAR file", then reads back what DevTools made of each entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ajantik_cdp.browser.launch import ChromeProcess
from ajantik_cdp.record.har import net_error, to_har
from ajantik_cdp.record.reader import parse_record
from tests.record.sample import APP, DRAFT, FP, sample_bytes


def sample_har() -> dict[str, Any]:
    return to_har(parse_record(Path("run.jsonl"), sample_bytes()))


# HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): required fields and types.
def check_fields(obj: dict[str, Any], where: str, fields: dict[str, type | tuple[type, ...]]
                 ) -> None:
    for name, kind in fields.items():
        assert name in obj, f"{where}.{name} is required"
        assert isinstance(obj[name], kind), f"{where}.{name} must be {kind}"
    for name in obj:
        assert name in fields or name in OPTIONAL or name.startswith("_"), f"{where}.{name}"


OPTIONAL = {"comment", "browser", "pages", "postData", "pageref", "serverIPAddress",
            "connection", "text", "encoding", "compression", "params", "blocked", "dns",
            "connect", "ssl"}
NV = {"name": str, "value": str}


def validate_har(har: dict[str, Any]) -> None:
    assert set(har) == {"log"}
    log = har["log"]
    check_fields(log, "log", {"version": str, "creator": dict, "entries": list})
    assert log["version"] == "1.2"
    check_fields(log["creator"], "creator", {"name": str, "version": str})
    if "browser" in log:
        check_fields(log["browser"], "browser", {"name": str, "version": str})
    for i, e in enumerate(log["entries"]):
        w = f"entries[{i}]"
        check_fields(e, w, {"startedDateTime": str, "time": (int, float), "request": dict,
                            "response": dict, "cache": dict, "timings": dict})
        assert e["time"] >= 0
        req, resp = e["request"], e["response"]
        check_fields(req, w + ".request", {
            "method": str, "url": str, "httpVersion": str, "cookies": list, "headers": list,
            "queryString": list, "headersSize": int, "bodySize": int})
        for pair in req["headers"] + req["queryString"]:
            check_fields(pair, w + ".request pair", NV)
        if "postData" in req:
            check_fields(req["postData"], w + ".postData", {"mimeType": str})
            assert ("text" in req["postData"]) != ("params" in req["postData"])
        check_fields(resp, w + ".response", {
            "status": int, "statusText": str, "httpVersion": str, "cookies": list,
            "headers": list, "content": dict, "redirectURL": str, "headersSize": int,
            "bodySize": int})
        for pair in resp["headers"]:
            check_fields(pair, w + ".response header", NV)
        check_fields(resp["content"], w + ".content", {"size": int, "mimeType": str})
        check_fields(e["timings"], w + ".timings", {"send": (int, float), "wait": (int, float),
                                                    "receive": (int, float)})
        assert all(e["timings"][k] >= 0 for k in ("send", "wait", "receive"))


def test_export_follows_har_1_2() -> None:
    har = sample_har()
    validate_har(har)
    log = har["log"]
    assert log["browser"] == {"name": "Chrome", "version": "156.0.8078.108"}
    # Six requests and one network block; the swallowed press made no request.
    assert len(log["entries"]) == 7
    assert [c["label"] for c in log["_ajantik"]["click_blocks"]] == ["Submit filing"]
    json.dumps(har)  # plain JSON all the way down


def entry(har: dict[str, Any], seq: int) -> dict[str, Any]:
    return next(e for e in har["log"]["entries"] if e["_ajantik"]["seq"] == seq)


def test_entries_show_the_client_view_and_keep_the_system_answer() -> None:
    har = sample_har()
    ok = entry(har, 1)
    assert ok["request"]["postData"] == {"mimeType": "application/json", "text": DRAFT}
    assert ok["response"]["status"] == 201 and ok["response"]["statusText"] == "Created"
    assert ok["response"]["content"]["text"] == '{"id": 101}'
    failure = entry(har, 3)
    assert failure["response"]["status"] == 500
    assert "content" in failure["response"] and "text" not in failure["response"]["content"]
    assert failure["_ajantik"]["system"]["status"] == 201
    assert failure["comment"] == ("fault phantom_failure: the system answered 201; the "
                                  "client was given 500")
    phantom = entry(har, 4)
    assert phantom["response"]["status"] == 204 and phantom["_ajantik"]["system"] is None
    assert "never sent" in phantom["comment"]
    error = entry(har, 5)
    assert error["response"]["status"] == 0
    assert error["response"]["_error"] == "net::ERR_CONNECTION_REFUSED"
    redirect = entry(har, 2)
    assert redirect["response"]["redirectURL"] == f"{APP}/home"
    read = entry(har, 6)
    assert "postData" not in read["request"]
    assert read["request"]["queryString"] == [{"name": "tab", "value": "1"}]
    block = entry(har, 7)
    assert block["response"]["_error"] == "net::ERR_BLOCKED_BY_CLIENT"
    assert block["comment"] == "blocked by ajantik (deny deny[0] 'submission')"


def test_withheld_bodies_are_markers_never_content() -> None:
    post = entry(sample_har(), 2)["request"]["postData"]
    assert post["text"] == f"[withheld by ajantik: field 'password'; 57 bytes; {FP}]"
    assert post["_withheld"] == {"reason": "field 'password'", "fingerprint": FP, "length": 57}


@pytest.mark.parametrize(("reason", "expected"), [
    ("BlockedByClient", "net::ERR_BLOCKED_BY_CLIENT"), ("Failed", "net::ERR_FAILED"),
    (None, "net::ERR_FAILED"), ("net::ERR_ABORTED", "net::ERR_ABORTED"),
])
def test_net_error_names(reason: str | None, expected: str) -> None:
    assert net_error(reason) == expected


IMPORT_JS = """async (har) => {
  const HAR = await import('/devtools/models/har/har.js');
  const log = new HAR.HARFormat.HARRoot(har).log;
  const requests = HAR.Importer.Importer.requestsFromHARLog(log);
  const out = [];
  for (const r of requests) {
    out.push({url: r.url(), method: r.requestMethod, status: r.statusCode,
              type: r.resourceType().name(), form: await r.requestFormData(),
              content: (await r.requestContentData()).text ?? null});
  }
  return out;
}"""


@pytest.mark.browser
async def test_chrome_devtools_imports_the_export(pw, chrome: ChromeProcess) -> None:
    har = sample_har()
    browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    ctx = await browser.new_context()
    try:
        page = await ctx.new_page()
        # Chromium serves its own DevTools front end here; run its HAR importer in place.
        await page.goto(chrome.http_url + "/devtools/inspector.html")
        imported = await page.evaluate(IMPORT_JS, har)
    finally:
        await ctx.close()
        await browser.close()
    by_url = {(r["method"], r["url"]): r for r in imported}
    assert len(imported) == len(har["log"]["entries"])
    draft = by_url[("POST", f"{APP}/api/draft")]
    assert (draft["status"], draft["type"], draft["form"]) == (201, "fetch", DRAFT)
    assert draft["content"] == '{"id": 101}'
    login = by_url[("POST", "https://login.example.com/session")]
    assert login["form"].startswith("[withheld by ajantik: field 'password'")
    assert by_url[("POST", f"{APP}/api/save")]["status"] == 500
    assert by_url[("GET", f"{APP}/api/profile?tab=1")]["type"] == "xhr"
    assert by_url[("POST", f"{APP}/api/submission")]["status"] == 0


def test_request_timing_comes_from_started_and_time() -> None:
    from ajantik_cdp.core.record.record_schema import Body, RequestLine
    from ajantik_cdp.record.har import _request_entry

    line = RequestLine(
        seq=1, target_id="T", target_type="page", frame_url=None, method="POST",
        url="https://app/x", resource_type="Fetch", request_headers={},
        request_body=Body(length=0, text=""), system=None, fault="phantom_success",
        client_status=204, started="2026-11-29T10:00:00.250Z", time="2026-11-29T10:00:01.000Z")
    entry = _request_entry(line)
    assert entry["startedDateTime"] == "2026-11-29T10:00:00.250Z"
    assert entry["time"] == 750.0 and entry["timings"]["wait"] == 750.0
    older = RequestLine(**{**line.__dict__, "started": None})
    assert _request_entry(older)["startedDateTime"] == older.time
    assert _request_entry(older)["time"] == 0


def test_an_escaped_websocket_is_an_entry_that_got_through_never_blocked(
        tmp_path: Path) -> None:
    from ajantik_cdp.record.reader import load_record
    from tests.support.records import RecordBuilder

    builder = RecordBuilder(tmp_path / "r.jsonl")
    builder.escaped("/submission/live")
    har = to_har(load_record(builder.close()))
    [got] = har["log"]["entries"]
    assert got["request"]["url"].endswith("/submission/live")
    assert got["response"]["status"] == 101 and "_error" not in got["response"]
    assert got["comment"].startswith("GOT THROUGH although deny[0] 'submission'")
    assert got["_ajantik"]["kind"] == "escaped"
