"""The reference agent: deterministic, no model, no API key.

It parses the task into intents (``task_intents``) and carries them out in order through
Playwright, finding every control by accessible name (``reference_vocabulary``). Its
presets differ only in capability (``Capabilities``). It ends with the same claim a
command agent prints, and counts its steps: every click, fill and navigation, overlay
dismissals and recoveries included, so a run that needed detours shows more steps.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from ajantik_cdp.gauntlet.evidence.claim_line import AgentClaim
from ajantik_cdp.gauntlet.reference import reference_vocabulary as vocab
from ajantik_cdp.gauntlet.reference.reference_vocabulary import Capabilities
from ajantik_cdp.gauntlet.suite.task_intents import (
    AddToCart,
    ApplyCoupon,
    ContinueToReview,
    FillFields,
    Intent,
    ProceedToCheckout,
    StopBefore,
    parse_task,
)

MAX_RESUMES = 2  # per write: a session that drops a third time is not coming back
MAX_REDOS = 2  # per write: re-sent after a read-back showed it had not landed


class StepFailed(Exception):
    """The agent could not carry out a step; it reports this as its failure."""


class ReferenceAgent:
    def __init__(self, page: Any, start_url: str, preset: str) -> None:
        self.page = page
        self.root = start_url if start_url.endswith("/") else start_url + "/"
        self.preset = preset
        self.caps: Capabilities = vocab.PRESETS[preset]
        self.steps: list[str] = []
        self.forbidden: re.Pattern[str] | None = None
        self.added: list[AddToCart] = []

    # -- the run -------------------------------------------------------------------------

    async def run(self, task_text: str) -> AgentClaim:
        parsed = parse_task(task_text)
        if parsed.not_understood:
            return AgentClaim("failed", f"I do not understand: {'; '.join(parsed.not_understood)}",
                         0)
        if any(isinstance(i, StopBefore) for i in parsed.intents):
            self.forbidden = vocab.PAYMENT
        if self.caps.handle_overlays:
            await self._watch_overlays()
        for intent in parsed.intents:
            try:
                await self._carry_out(intent)
            except StepFailed as exc:
                return self._claim("failed", f"{_describe(intent)}: {exc}")
            except Exception as exc:  # Playwright's timeouts and detached elements
                return self._claim("failed", f"{_describe(intent)}: {_first_line(exc)}")
        return await self._final_claim(parsed.intents)

    def _claim(self, status: str, summary: str) -> AgentClaim:
        return AgentClaim(status, summary, len(self.steps), tuple(self.steps))

    async def _final_claim(self, intents: tuple[Intent, ...]) -> AgentClaim:
        done = "; ".join(_describe(i) for i in intents)
        if self.caps.trust_silence:
            return self._claim("completed", f"done: {done}")
        if any(isinstance(i, ContinueToReview) for i in intents):
            heading = self.page.get_by_role("heading", level=1, name=vocab.REVIEW_HEADING)
            if not await heading.is_visible():
                return self._claim("failed", "every step was answered, but the review page "
                                   "is not showing")
        return self._claim("completed", f"done, and stopped before payment: {done}")

    async def _carry_out(self, intent: Intent) -> None:
        if isinstance(intent, AddToCart):
            await self._add(intent)
            self.added.append(intent)
        elif isinstance(intent, ApplyCoupon):
            await self._coupon(intent)
        elif isinstance(intent, ProceedToCheckout):
            await self._proceed()
        elif isinstance(intent, FillFields):
            for label, value in intent.fields:
                await self._fill(self.page.get_by_label(vocab.field_label(label)), value,
                                 f"fill {label!r}")
        elif isinstance(intent, ContinueToReview):
            await self._write(
                lambda: self._click(self.page.get_by_role("button", name=vocab.REVIEW_ORDER),
                                    "press 'Review order'"),
                self.page.get_by_role("heading", level=1, name=vocab.REVIEW_HEADING))
        # StopBefore is a constraint, enforced in _click.

    # -- intents -------------------------------------------------------------------------

    async def _add(self, intent: AddToCart) -> None:
        async def press() -> None:
            if self.page.url.split("#")[0] != self.root:
                await self._goto(self.root, "open the shop's start page")
            await self._click(self.page.get_by_role("link", name=vocab.names(intent.product)),
                              f"open {intent.product!r}")
            await self._settle()
            if intent.quantity != 1:
                await self._fill(self.page.get_by_label(vocab.QUANTITY), str(intent.quantity),
                                 "set the quantity")
            await self._click(self.page.get_by_role("button", name=vocab.ADD_TO_CART),
                              "press 'Add to cart'")

        confirm = self.page.get_by_role("status").filter(has_text=intent.product)
        before = await self._cart_quantity(intent.product) if self.caps.recover else 0

        async def landed() -> bool:
            return await self._cart_quantity(intent.product) >= before + intent.quantity

        await self._write(press, confirm, landed, repeat=press)

    async def _coupon(self, intent: ApplyCoupon) -> None:
        await self._open_cart()
        field = self.page.get_by_label(vocab.COUPON_FIELD)
        await self._fill(field, intent.code, "type the coupon")

        async def press() -> None:
            await self._click(self.page.get_by_role("button", name=vocab.APPLY_COUPON),
                              "press 'Apply coupon'")

        async def again() -> None:
            await self._open_cart()
            await self._fill(field, intent.code, "type the coupon")
            await press()

        async def landed() -> bool:
            cart = await self._read_cart()
            return str(cart.get("coupon") or "").upper() == intent.code.upper()

        confirm = self.page.get_by_role("status").filter(has_text=intent.code)
        await self._write(press, confirm, landed, repeat=again)

    async def _proceed(self) -> None:
        button = self.page.get_by_role("button", name=vocab.PROCEED)
        if not await button.is_visible():
            await self._open_cart()
        await self._write(lambda: self._click(button, "press 'Proceed to checkout'"),
                          self.page.get_by_label(vocab.field_label("name")))
        # The form shows before the page's script has loaded: filled and sent then, it
        # submits natively (a GET to checkout?name=...) and no review ever comes. Seen
        # under network_delay on a loaded machine. Like every other navigation, wait.
        await self._settle()

    async def _open_cart(self) -> None:
        link = self.page.get_by_role("link", name=vocab.CART_LINK)
        if not await link.is_visible():
            menu = self.page.get_by_role("button", name=vocab.MENU)
            if await menu.is_visible():
                await self._click(menu, "open the menu")
        await self._click(link, "open the cart")
        await self._settle()

    # -- writes, answers and recovery ------------------------------------------------------

    async def _write(self, press: Callable[[], Awaitable[None]], confirm: Any,
                     landed: Callable[[], Awaitable[bool]] | None = None,
                     repeat: Callable[[], Awaitable[None]] | None = None) -> None:
        """Press, then wait for the shop's answer: ``confirm`` showing, or an alert.
        With ``recover``: resume an expired session and press again; after an error or a
        success, read the write back (``landed``) and press again only if it is missing."""
        page = self.page
        alert = page.get_by_role("alert")
        resumes = redos = 0
        await press()
        while True:
            answer = await self._answer(confirm, alert)
            if answer == "confirmed" and (not self.caps.recover or landed is None
                                          or await landed()):
                return
            if answer == "silence":
                if self.caps.trust_silence:
                    return
                raise StepFailed(f"no answer from the shop within {self.caps.confirm_wait:g}s")
            text = await _text(alert) if answer == "alert" else "the page said it worked"
            if answer == "alert" and not self.caps.stop_on_alert:
                return  # naive: an error on the page is not its concern
            if not self.caps.recover:
                raise StepFailed(f"the shop said: {text}")
            resume = alert.get_by_role("button", name=vocab.RESUME)
            if answer == "alert" and await resume.is_visible():
                resumes += 1
                if resumes > MAX_RESUMES:
                    raise StepFailed(f"the session expired {resumes} times: {text}")
                await self._click(resume, "press 'Resume'")
                await page.get_by_role("status").filter(has_text=vocab.RESUMED).or_(
                    alert).first.wait_for(timeout=self.caps.confirm_wait * 1000)
                if await alert.is_visible():
                    raise StepFailed(f"resuming failed: {await _text(alert)}")
                await press()
                continue
            if landed is not None and await landed():
                return  # it had landed: pressing again would duplicate it
            redos += 1
            if redos > MAX_REDOS:
                raise StepFailed(f"it did not land after {redos} attempts: {text}")
            self.steps.append(f"the write did not land ({text}); doing it again")
            await (repeat or press)()

    async def _answer(self, confirm: Any, alert: Any) -> str:
        try:
            await confirm.or_(alert).first.wait_for(timeout=self.caps.confirm_wait * 1000)
        except Exception as exc:
            if type(exc).__name__ == "TimeoutError":
                return "silence"
            raise
        return "alert" if await alert.is_visible() else "confirmed"

    async def _read_cart(self) -> dict[str, Any]:
        """The cart as the shop holds it (``GET api/cart``), fetched by the page itself."""
        self.steps.append("read the cart back from the shop")
        data: dict[str, Any] = await self.page.evaluate(
            "async (u) => (await fetch(u, {cache: 'no-store'})).json()", self.root + "api/cart")
        return data

    async def _cart_quantity(self, product: str) -> int:
        cart = await self._read_cart()
        wanted = product.casefold()
        return sum(int(line.get("quantity", 0)) for line in cart.get("lines", [])
                   if str(line.get("name", "")).casefold() == wanted)

    # -- acting on the page --------------------------------------------------------------

    async def _present(self, locator: Any, what: str) -> Any:
        """The control, once it is on the page. Without patience it must be there now."""
        first = locator.first
        if self.caps.patience <= 0:
            if await locator.count() == 0:
                raise StepFailed(f"{what}: no such control on the page")
        else:
            await first.wait_for(state="attached", timeout=self.caps.patience * 1000)
        return first

    async def _click(self, locator: Any, what: str) -> None:
        control = await self._present(locator, what)
        if self.forbidden is not None:
            name = " ".join(str(await control.inner_text(timeout=self._act())).split())
            if self.forbidden.search(name):
                raise StepFailed(f"refused to press {name!r}: the task stops before payment")
        self.steps.append(what)
        await control.click(timeout=self._act())

    async def _fill(self, locator: Any, value: str, what: str) -> None:
        control = await self._present(locator, what)
        self.steps.append(what)
        await control.fill(value, timeout=self._act())

    async def _goto(self, url: str, what: str) -> None:
        self.steps.append(what)
        await self.page.goto(url, wait_until=self.caps.page_ready)

    async def _settle(self) -> None:
        await self.page.wait_for_load_state(self.caps.page_ready)

    def _act(self) -> float:
        return self.caps.action_timeout * 1000

    async def _watch_overlays(self) -> None:
        page = self.page
        dialog = page.get_by_role("dialog").filter(
            has=page.get_by_role("button", name=vocab.DISMISS))

        async def dismiss(found: Any) -> None:
            button = found.get_by_role("button", name=vocab.DISMISS).first
            self.steps.append(f"dismiss a dialog ({await _text(button)})")
            await button.click()

        await page.add_locator_handler(dialog.first, dismiss)


async def _text(locator: Any) -> str:
    try:
        return " ".join(str(await locator.first.inner_text(timeout=1000)).split())
    except Exception:
        return ""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def _describe(intent: Intent) -> str:
    if isinstance(intent, AddToCart):
        return f"add {intent.quantity} x {intent.product}"
    if isinstance(intent, ApplyCoupon):
        return f"apply coupon {intent.code}"
    if isinstance(intent, ProceedToCheckout):
        return "proceed to checkout"
    if isinstance(intent, FillFields):
        return "enter " + ", ".join(f"{label}: {value}" for label, value in intent.fields)
    if isinstance(intent, ContinueToReview):
        return "continue to review"
    return f"stop before {intent.step}"
