"""The guard's log lines mask URLs as the record does (a token in a query string stays out
of stderr too)."""

from __future__ import annotations

import logging

import pytest

from tests.conftest import GuardFactory

pytestmark = pytest.mark.browser


async def test_a_failed_navigation_logs_the_masked_url(guard: GuardFactory,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    g = await guard()
    guardian = g.server.guardian
    assert guardian is not None
    secret = "SekretNavToken0123456789"
    with caplog.at_level(logging.DEBUG, logger="ajantik"):
        logger = logging.getLogger("ajantik")
        logger.addHandler(caplog.handler)  # even if a CLI test turned propagation off
        try:
            opened = await guardian.navigate_when_guarded(
                "no-such-target", f"https://app.test/cb?access_token={secret}&page=2", 0.1)
        finally:
            logger.removeHandler(caplog.handler)
    assert opened is False
    logged = caplog.text
    assert "did not open https://app.test/cb?access_token=%5Bwithheld%5D&page=2" in logged
    assert secret not in logged
