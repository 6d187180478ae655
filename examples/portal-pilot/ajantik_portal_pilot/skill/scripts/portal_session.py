"""What every step shares: reaching the signed-in browser through CDP_URL, finding the
portal's tab, and printing exactly one JSON line.

A step is an ``async def step(page, portal, *args) -> dict``. Run as a script it connects
to ``CDP_URL`` (the guard, never Chrome's own port) and uses the context the operator
signed in with; ``ajantik demo`` calls the same functions with a page it already holds.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

DEFAULT_PORTAL = "http://127.0.0.1:8765"
STEP_TIMEOUT_MS = 15_000

Step = Callable[..., Awaitable[dict[str, Any]]]


class StepFailed(Exception):
    """A step could not do what it was asked; the message is for the operator."""

    def __init__(self, message: str, http_status: int | None = None) -> None:
        super().__init__(message)
        self.http_status = http_status


def portal_url() -> str:
    return os.environ.get("PORTAL_URL", DEFAULT_PORTAL).rstrip("/")


async def open_view(page: Any, portal: str, path: str, ready: str) -> None:
    """Open a view of the portal and wait until it has loaded (``ready`` matches).

    Inside the portal's app the view changes the way the app's own links change it, with
    no page load; anywhere else the page goes to the view's address.
    """
    page.set_default_timeout(STEP_TIMEOUT_MS)
    if page.url.startswith(portal + "/") and await page.evaluate("() => !!window.harbourApp"):
        await page.evaluate(
            "p => { history.pushState(null, '', p); dispatchEvent(new PopStateEvent('popstate')) }",
            path)
    else:
        await page.goto(portal + path)
    if page.url.startswith(portal + "/login"):
        raise StepFailed("the portal is asking to sign in: ask the operator to sign in again",
                         401)
    # A view that could not load its data says why in the status line instead.
    found = await page.wait_for_selector(f"{ready}, #status[data-http-status]")
    if await found.get_attribute("data-http-status") is not None:
        status = int(await found.get_attribute("data-http-status") or 0)
        raise StepFailed(f"the portal said: {await found.text_content()}", status)


async def find_page(browser: Any, portal: str) -> Any:
    """The operator's portal tab, or a new tab in the browser's signed-in context."""
    contexts = browser.contexts
    if not contexts:
        raise StepFailed("the browser has no open window; ask the operator to open the portal")
    for context in contexts:
        for page in context.pages:
            if page.url.startswith(portal):
                return page
    return await contexts[0].new_page()


@asynccontextmanager
async def portal_page(portal: str) -> AsyncIterator[Any]:
    """The portal's tab in the browser behind ``CDP_URL``, for as long as the block."""
    from playwright.async_api import async_playwright

    cdp_url = os.environ.get("CDP_URL")
    if not cdp_url:
        raise StepFailed("set CDP_URL to the guard's address, e.g. http://127.0.0.1:9333")
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(cdp_url)
        try:
            yield await find_page(browser, portal)
        finally:
            # Disconnects only; the operator's browser and tabs stay as they are.
            await browser.close()


async def _run(step: Step, args: list[str]) -> dict[str, Any]:
    portal = portal_url()
    async with portal_page(portal) as page:
        return await step(page, portal, *args)


def run_step(name: str, step: Step, usage: str, arity: int) -> None:
    args = sys.argv[1:]
    if len(args) != arity:
        print(json.dumps({"step": name, "ok": False, "error": f"usage: {usage}"}))
        raise SystemExit(2)
    try:
        result = asyncio.run(_run(step, args))
    except StepFailed as exc:
        result = {"step": name, "ok": False, "error": str(exc), "http_status": exc.http_status}
    except Exception as exc:  # one JSON line, whatever went wrong
        result = {"step": name, "ok": False, "error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result))
    raise SystemExit(0 if result.get("ok") else 1)
