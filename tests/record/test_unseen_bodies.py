"""Every body as sent, or said not to be: a file chosen from disk in a multipart form.

Real Chromium, the test site's own log of the bytes it received. Measured on Chrome 156:
``DOM.setFileInputFiles`` (what Puppeteer's ``uploadFile`` sends) sets a file read from
disk, and Chrome's pause carries an empty entry for it. Shown first with the guard reading
the pause as it did (every entry's bytes, joined): a shorter body than was sent, recorded
as if whole. Then as it does: the body is recorded as not seen, with why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ajantik_cdp.core.guard import paused
from tests.conftest import GuardFactory
from tests.record.helpers import guarded_page, read_record, requests_to
from tests.support.site import HitSite

pytestmark = pytest.mark.browser

FORM = ('<form id=f><input type=file name=doc><input name=note value=hello></form>'
        "<script>function send() { return fetch('/upload', {method: 'POST', "
        "body: new FormData(document.getElementById('f'))}).then(r => r.status); }</script>")


def _as_before(req: Any) -> tuple[bytes | None, str | None]:
    """The pause read as the guard read it before: the bytes of every entry that has any."""
    body, _ = real_post_body(req)
    return body, None


real_post_body = paused.post_body


async def _upload_from_disk(pw: Any, g: Any, site: HitSite, file: Path) -> None:
    async with guarded_page(pw, g.url, site.page("upload", FORM)) as page:
        cdp = await page.context.new_cdp_session(page)
        found = await cdp.send("Runtime.evaluate",
                               {"expression": "document.querySelector('input[type=file]')"})
        await cdp.send("DOM.setFileInputFiles", {"files": [str(file)],
                                                 "objectId": found["result"]["objectId"]})
        assert await page.evaluate("send()") == 200
    await g.server.shutdown("test done", 1000)


async def test_a_file_from_disk_in_a_multipart_form_is_recorded_as_not_seen(
        pw: Any, guard: GuardFactory, site: HitSite, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "scan.bin"
    file.write_bytes(bytes(range(256)) * 12)  # 3072 bytes, binary

    monkeypatch.setattr(paused, "post_body", _as_before)
    before = await guard()
    await _upload_from_disk(pw, before, site, file)
    sent = len(site.writes("/upload")[0].body)
    [line] = requests_to(read_record(before.record), "/upload")
    # The loss: a body shorter than the one sent, written as if it were all of it.
    assert line.request_body.length < sent and line.request_body.unseen is None
    assert line.request_body.text is not None and "scan.bin" in line.request_body.text

    monkeypatch.setattr(paused, "post_body", real_post_body)
    after = await guard()
    await _upload_from_disk(pw, after, site, file)
    assert len(site.writes("/upload")) == 2
    [line] = requests_to(read_record(after.record), "/upload")
    body = line.request_body
    assert body.unseen is not None and "left out 1 of 3 parts" in body.unseen
    assert body.text is None and body.base64 is None  # nothing written as if whole
    assert 0 < body.length < sent  # what Chrome's pause carried, said to be only that
