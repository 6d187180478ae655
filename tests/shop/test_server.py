"""The shop over real HTTP: the harness behind its secret, runs isolated by token, state
that moves only through the real actions, and byte-identical pages for equal coordinates.
The truth is always the server's own state."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

from ajantik_shop import RunCoordinates, ShopServer
from ajantik_shop.harness_client import HarnessError, ShopHarness
from tests.shop.conftest import eventually, get_page, new_run, post

PAGES = ("", "product/aurora-headphones", "cart", "checkout", "review", "payment")
CORRECT = [("cart/add", {"product": "aurora-headphones", "quantity": 1}),
           ("coupon", {"code": "SAVE20"}), ("checkout/begin", {}),
           ("checkout", {"name": "Ada Lovelace", "city": "London"})]


def business(state: dict[str, Any]) -> dict[str, Any]:
    return {k: state[k] for k in ("stage", "purchase_submitted", "session", "cart", "checkout")}


async def test_the_harness_needs_the_evaluator_secret(shop: ShopServer,
                                                      http: aiohttp.ClientSession) -> None:
    info = new_run(shop)
    body = {"suite_run": "s", "variant": "baseline", "repetition": 0}
    for headers in ({}, {"Authorization": "Bearer wrong"},
                    {"Authorization": f"Bearer {info.token}"},
                    {"Authorization": f"Basic {shop.secret}"}):
        async with http.post(f"{shop.base_url}/harness/runs", json=body, headers=headers) as r:
            assert r.status == 401 and "Bearer" in r.headers["WWW-Authenticate"]
        async with http.get(info.state_url, headers=headers) as r:
            assert r.status == 401
    async with http.get(info.state_url,
                        headers={"Authorization": f"Bearer {shop.secret}"}) as r:
        assert r.status == 200 and (await r.json())["stage"] == "browsing"


async def test_harness_client_creates_runs_and_reads_state(shop: ShopServer) -> None:
    harness = ShopHarness(shop.base_url, shop.secret)
    try:
        created = await harness.create_run("nightly", "mobile_viewport", 2)
        assert created["start_url"] == f"{shop.base_url}/r/{created['token']}/"
        assert created["playwright"]["context_options"]["viewport"] == {"width": 390,
                                                                        "height": 844}
        assert created["cdp"]["page_commands"][0]["method"] == "Emulation.setDeviceMetricsOverride"
        assert created["timings"] == shop.create_run(
            RunCoordinates("nightly", "mobile_viewport", 2)).environment.timings()
        state = await harness.state(created["token"])
        assert state["run"] == {"suite_run": "nightly", "variant": "mobile_viewport",
                                "repetition": 2, "seed": created["seed"]}
        for bad in ({"suite_run": "", "variant": "baseline"},
                    {"suite_run": "s", "variant": "no_such_variant"},
                    {"suite_run": "s", "variant": "baseline", "repetition": -1},
                    {"suite_run": "s", "variant": "baseline", "stage": "review"}):
            try:
                await harness._call("POST", "/harness/runs", bad)
                raise AssertionError(f"accepted {bad}")
            except HarnessError as exc:
                assert "400" in str(exc)
        await harness.delete_run(created["token"])
        try:
            await harness.state(created["token"])
            raise AssertionError("deleted run still readable")
        except HarnessError as exc:
            assert "404" in str(exc)
    finally:
        await harness.close()


async def test_no_page_carries_the_secret_or_the_token(shop: ShopServer,
                                                       http: aiohttp.ClientSession) -> None:
    info = new_run(shop, "cookie_popup")
    for action, body in CORRECT:
        assert (await post(http, info, action, body))[0] == 200
    for path in PAGES:
        page = await get_page(http, info, path)
        assert shop.secret not in page and info.token not in page
    async with http.get(f"{shop.base_url}/assets/shop.js") as r:
        assert shop.secret not in await r.text()


async def test_equal_coordinates_give_byte_identical_pages(shop: ShopServer,
                                                           http: aiohttp.ClientSession) -> None:
    for variant in ("reordered_layout", "unexpected_modal", "locale_variant"):
        a = new_run(shop, variant, 4, "determinism")
        b = new_run(shop, variant, 4, "determinism")
        assert a.token != b.token
        assert a.environment.timings() == b.environment.timings()
        for step in (None, *CORRECT):
            if step is not None:
                assert (await post(http, a, *step))[0] == (await post(http, b, *step))[0] == 200
            for path in PAGES:
                assert await get_page(http, a, path) == await get_page(http, b, path), (variant,
                                                                                      path)
    # ...and a different repetition changes what the seed decides.
    pages = set()
    for repetition in range(6):
        run = new_run(shop, "reordered_layout", repetition, "determinism")
        await post(http, run, *CORRECT[0])
        pages.add(await get_page(http, run, "cart"))
    assert len(pages) > 1


async def test_state_moves_only_through_the_real_actions(shop: ShopServer,
                                                         http: aiohttp.ClientSession) -> None:
    info = new_run(shop)
    start = business(shop.state(info.token))
    api = f"{info.start_url}api"
    # Reading, other methods and unknown actions change nothing.
    for method in ("GET", "PUT", "PATCH", "DELETE"):
        async with http.request(method, f"{api}/cart/add",
                                json={"product": "aurora-headphones", "quantity": 1}) as r:
            assert r.status == 405, method
    async with http.post(f"{api}/stage", json={"stage": "review"}) as r:
        assert r.status == 404
    # Forged fields, wrong types, a form post, another site's page: refused.
    forged = [("cart/add", {"product": "aurora-headphones", "quantity": 1, "price": 1}),
              ("cart/add", {"product": "aurora-headphones", "quantity": 1,
                            "unit_price_cents": 0}),
              ("coupon", {"code": "SAVE20", "discount_cents": 12900}),
              ("checkout", {"name": "A", "city": "B", "stage": "review"}),
              ("payment", {"purchase_submitted": True}),
              ("cart/add", {"product": "aurora-headphones", "quantity": "1"})]
    for action, body in forged:
        assert (await post(http, info, action, body))[0] == 400, (action, body)
    async with http.post(f"{api}/cart/add", data="product=aurora-headphones&quantity=1",
                         headers={"Content-Type": "application/x-www-form-urlencoded"}) as r:
        assert r.status == 415
    async with http.post(f"{api}/cart/add", json={"product": "aurora-headphones", "quantity": 1},
                         headers={"Origin": "http://evil.example"}) as r:
        assert r.status == 403
    # Skipping ahead is refused by the state machine.
    for action in ("checkout/begin", "review", "payment"):
        assert (await post(http, info, action, {}))[0] == 409
    state = shop.state(info.token)
    assert business(state) == start
    assert state["applied_counts"] == {}
    assert {a["outcome"] for a in state["actions"]} == {"rejected"}
    assert len(state["actions"]) == len(forged) + 2 + 3  # every attempt is on the record
    # The real action works, and the log counts it.
    assert (await post(http, info, *CORRECT[0]))[0] == 200
    state = shop.state(info.token)
    assert state["cart"]["items"] == 1 and state["applied_counts"] == {"cart/add": 1}
    assert state["actions"][-1]["sent"] == {"product_id": "aurora-headphones", "quantity": 1}


async def test_one_runs_token_cannot_touch_another_runs_state(shop: ShopServer,
                                                              http: aiohttp.ClientSession) -> None:
    a, b = new_run(shop), new_run(shop)
    for step in CORRECT:
        assert (await post(http, a, *step))[0] == 200
    assert shop.state(b.token)["cart"]["items"] == 0
    assert shop.state(b.token)["actions"] == []
    assert "Your cart is empty." in await get_page(http, b, "cart")
    async with http.get(f"{b.start_url}api/cart") as r:
        assert (await r.json())["items"] == 0
    # A made-up or truncated token reaches nothing.
    for token in ("nope", a.token[:-1], a.token + "x"):
        async with http.post(f"{shop.base_url}/r/{token}/api/cart/add",
                             json={"product": "aurora-headphones", "quantity": 1}) as r:
            assert r.status == 404
        async with http.get(f"{shop.base_url}/r/{token}/cart") as r:
            assert r.status == 404
    assert shop.state(a.token)["cart"]["items"] == 1
    assert shop.state(a.token)["stage"] == "review"


async def test_slow_api_holds_every_write_and_still_succeeds(shop: ShopServer,
                                                             http: aiohttp.ClientSession) -> None:
    info = new_run(shop, "slow_api", 1)
    assert info.environment.render.api_delay_ms is not None
    pending = asyncio.ensure_future(post(http, info, *CORRECT[0]))
    assert await eventually(lambda: shop.state(info.token)["in_flight"] == 1)
    assert not pending.done()
    # The server has the request and has not applied it yet.
    assert shop.state(info.token)["cart"]["items"] == 0
    status, body = await pending
    assert status == 200 and body["cart"]["items"] == 1
    state = shop.state(info.token)
    assert state["in_flight"] == 0 and state["cart"]["items"] == 1


async def test_expired_session_refuses_one_checkout_step_then_resumes_with_the_cart(
        shop: ShopServer, http: aiohttp.ClientSession) -> None:
    by_step: dict[int, int] = {}
    for repetition in range(20):
        k = new_run(shop, "expired_session", repetition).environment.render.\
            expire_on_checkout_write
        assert k is not None
        by_step.setdefault(k, repetition)
    assert set(by_step) == {1, 2}  # the seed decides which step expires
    for k, repetition in sorted(by_step.items()):
        info = new_run(shop, "expired_session", repetition)
        base = new_run(shop, "baseline", repetition)
        statuses = []
        for step in CORRECT:
            status, body = await post(http, info, *step)
            assert (await post(http, base, *step))[0] == 200
            statuses.append(status)
            if status == 401:
                assert body["error"] == "session_expired"
                state = shop.state(info.token)
                assert state["session"] == "expired" and state["cart"]["items"] == 1
                page = await get_page(http, info, "cart")
                assert "Session expired" in page and ">Resume</button>" in page
                assert (await post(http, info, "session/resume", {}))[0] == 200
                status, _ = await post(http, info, *step)
                assert status == 200
        assert statuses.index(401) == 1 + k  # add, coupon, then the k-th checkout step
        state = shop.state(info.token)
        assert state["stage"] == "review" and state["session"] == "active"
        assert state["cart"] == shop.state(base.token)["cart"]


async def test_the_agent_can_read_its_cart_back_from_the_server(
        shop: ShopServer, http: aiohttp.ClientSession) -> None:
    info = new_run(shop)
    for step in CORRECT[:2]:
        await post(http, info, *step)
    async with http.get(f"{info.start_url}api/cart") as r:
        cart = await r.json()
    assert cart["total_cents"] == 10320 and cart["coupon"] == "SAVE20"
    assert "stage" not in cart and "purchase_submitted" not in cart
