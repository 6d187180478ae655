"""Where runs run, without a browser: endpoints and their scrubbing, the options and
suite keys that place a suite, the retry of a run lost to infrastructure, and how
workers are handed out."""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ajantik_cdp.browser.endpoints import (
    LONG_SEGMENT,
    EndpointError,
    EndpointScrubber,
    remote_browsers,
)
from ajantik_cdp.gauntlet.evidence.run_data import (
    InfraError,
    RunResult,
    RunSpec,
    result_data,
    result_from_data,
)
from ajantik_cdp.gauntlet.run.endpoint_scrubbing import scrub_result, scrubbed_logging
from ajantik_cdp.gauntlet.run.idle_workers import IdleWorkers, NoWorkerLeft
from ajantik_cdp.gauntlet.run.placement import PlacementError, resolve_placement
from ajantik_cdp.gauntlet.run.ray_executor import spread
from ajantik_cdp.gauntlet.run.suite_loading import expand_browsers, load_suite
from ajantik_cdp.gauntlet.run.suite_session import run_suite
from ajantik_cdp.gauntlet.score.scoring import Scored
from ajantik_cdp.gauntlet.suite.suite_file import SuiteError, parse_suite
from tests.gauntlet.builders import CORRECT_PATH, TASK, result
from tests.gauntlet.suites import write_suite
from tests.support.cli import run

TOKEN = "tok-7f3a9c1e55d2"
FARM = f"wss://farm.example:3000/chromium?token={TOKEN}&stealth=on"


def suite_text(extra: str = "", variants: str = "[baseline]") -> str:
    return ("version: 1\nagent: {type: reference}\n"
            f"task: {{name: Checkout, description: '{TASK}'}}\n"
            f"variants: {variants}\n{extra}")


# -- endpoints -------------------------------------------------------------------------


def test_every_shape_of_an_endpoint_is_scrubbed() -> None:
    browsers = remote_browsers([FARM, f"http://ada:{TOKEN}@10.1.2.3:9222/"])
    scrub = EndpointScrubber(browsers).scrub
    quoted = [
        FARM, FARM.split("?")[0], "farm.example:3000", TOKEN, f"token={TOKEN}&stealth=on",
        f"http://ada:{TOKEN}@10.1.2.3:9222", "10.1.2.3:9222", f"ada:{TOKEN}",
        # Playwright's connect error, as it words it:
        f"connect ECONNREFUSED 10.1.2.3:9222\nCall log:\n  - <ws preparing> retrieving "
        f"websocket url from http://ada:{TOKEN}@10.1.2.3:9222/",
    ]
    for text in quoted:
        clean = scrub(f"failed: {text}.")
        assert TOKEN not in clean and "farm.example" not in clean and "10.1.2.3" not in clean
        assert "<browser " in clean
    # What only looks like an endpoint stays: another port, the shop's address.
    assert scrub("shop at 10.1.2.3:92223 and 10.1.2.3:9") == "shop at 10.1.2.3:92223 and " \
        "10.1.2.3:9"
    assert scrub(f"a {FARM} b") == "a <browser 1> b"


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=8, max_size=40),
       st.text(max_size=40), st.text(max_size=40),
       st.sampled_from(["ws://127.0.0.1:9222/devtools/browser/x?token={}",
                        "http://u:{}@127.0.0.1:9222", "wss://farm.example/{}"]))
def test_a_token_never_survives_scrubbing(token: str, before: str, after: str,
                                          form: str) -> None:
    assume(token not in before and token not in after)
    url = form.format(token)
    scrub = EndpointScrubber(remote_browsers([url])).scrub
    assert token not in scrub(before + url + after)
    # Quoted alone, too; except a short path segment with no digit, which by design is
    # taken for a word a message may hold ("devtools"), not a secret (Hypothesis found
    # "_______a").
    word_like = form.startswith("wss://") and len(token) < LONG_SEGMENT and not any(
        c.isdigit() for c in token)
    if not word_like:
        assert token not in scrub(before + token + after)


def test_endpoint_errors_name_the_browser_not_the_url() -> None:
    for bad in (f"ftp://x?token={TOKEN}", f"not a url {TOKEN}", f"http://h:port{TOKEN}/"):
        with pytest.raises(EndpointError) as caught:
            remote_browsers(["http://127.0.0.1:9222", bad])
        assert "browser 2" in str(caught.value) and TOKEN not in str(caught.value)
    assert repr(remote_browsers([FARM])[0]) == "RemoteBrowser('browser 1')"


def test_only_a_plain_devtools_address_can_carry_a_guard() -> None:
    plain, *others = remote_browsers([
        "http://10.0.0.2:9222", f"http://10.0.0.2:9222/?token={TOKEN}",
        f"http://u:{TOKEN}@10.0.0.2:9222", "ws://10.0.0.2:9222/devtools/browser/abc"])
    assert plain.guardable and not any(b.guardable for b in others)


def test_a_scrubbed_result_loses_nothing_else() -> None:
    r = result("baseline", *CORRECT_PATH)
    assert result_from_data(result_data(r)) == r  # the round trip scrubbing relies on
    scrubber = EndpointScrubber(remote_browsers([FARM]))
    leaked = replace(r, infra=InfraError("browser", f"cannot reach {FARM}"),
                     notes=(f"token {TOKEN}",))
    clean = scrub_result(leaked, scrubber)
    assert TOKEN not in repr(clean) and clean.state == r.state and clean.agent == r.agent
    assert clean.infra == InfraError("browser", "cannot reach <browser 1>")


def test_log_lines_are_scrubbed_on_every_handler(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    logger = logging.getLogger("ajantik.test-scrub")
    handler = logging.StreamHandler(sys.stderr)
    logging.getLogger("ajantik").addHandler(handler)
    try:
        with scrubbed_logging(EndpointScrubber(remote_browsers([FARM]))):
            logger.error("could not open %s", FARM)
            try:
                raise OSError(f"refused {FARM}")
            except OSError:
                logger.exception("failed")
        logger.error("after %s", "the block")
    finally:
        logging.getLogger("ajantik").removeHandler(handler)
    err = capsys.readouterr().err
    assert TOKEN not in err and "could not open <browser 1>" in err and "refused <browser 1>" \
        in err and "after the block" in err


# -- the suite file and the options -------------------------------------------------------


def test_the_suite_says_where_it_runs_and_results_never_show_browsers() -> None:
    s = parse_suite(suite_text("executor: {type: ray, address: '127.0.0.1:6379'}\n"
                               "retries: 2\n"))
    assert (s.executor, s.ray_address, s.retries) == ("ray", "127.0.0.1:6379", 2)
    local = parse_suite(suite_text(f"browsers: ['{FARM}']\n"))
    assert local.browsers == (FARM,) and TOKEN not in repr(local)
    assert TOKEN not in str(local.as_data()) and "executor" not in local.as_data()


@pytest.mark.parametrize(("extra", "problem"), [
    ("executor: dask\n", "executor: must be local or ray"),
    ("executor: {type: local, address: x}\n", "executor.address: is for executor ray"),
    ("retries: 9\n", "retries: must be from 0 to 5"),
    (f"browsers: '{FARM}'\n", "browsers: must be a list"),
    (f"executor: ray\nbrowsers: ['{FARM}']\n", "browsers: are for executor local"),
])
def test_bad_placement_keys_are_problems(extra: str, problem: str) -> None:
    with pytest.raises(SuiteError) as caught:
        parse_suite(suite_text(extra))
    assert problem in str(caught.value) and TOKEN not in str(caught.value)


def test_browser_variables_come_from_the_environment(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert expand_browsers(("${FARM}/x", "http://a:1"), "s", {"FARM": "ws://f:1"}) == \
        ("ws://f:1/x", "http://a:1")
    with pytest.raises(SuiteError, match=r"browsers\[0\]: \$\{NOPE\} is not set"):
        expand_browsers(("${NOPE}",), "s", {})
    path = tmp_path / "s.yaml"
    path.write_text(suite_text("browsers: ['${AJANTIK_TEST_FARM}']\n"), encoding="utf-8")
    monkeypatch.setenv("AJANTIK_TEST_FARM", FARM)
    assert load_suite(path).browsers == (FARM,)


def test_the_command_line_wins_and_refuses_what_does_not_fit() -> None:
    suite = parse_suite(suite_text("executor: ray\nretries: 3\n"))
    p = resolve_placement(suite, executor="local", retries=0)
    assert (p.executor, p.retries) == ("local", 0)
    assert resolve_placement(suite).executor == "ray"
    assert resolve_placement(parse_suite(suite_text()), ray_address="auto").executor == "ray"
    with pytest.raises(PlacementError, match="--ray-address is for --executor ray"):
        resolve_placement(suite, executor="local", ray_address="auto")
    with pytest.raises(PlacementError, match="are for the local executor"):
        resolve_placement(suite, browsers=[FARM])
    faulty = parse_suite(suite_text(variants="[baseline, phantom_add_to_cart]"))
    with pytest.raises(PlacementError) as caught:
        resolve_placement(faulty, browsers=["http://127.0.0.1:9222", FARM])
    text = str(caught.value)
    assert "browser 2 is not such an address" in text and TOKEN not in text
    assert resolve_placement(faulty, browsers=["http://127.0.0.1:9222"]).browsers[0].guardable


def test_ray_without_the_extra_is_one_line_naming_it(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes `import ray` fail as on a machine without the extra,
    # in this process (a real one only paid a Python start-up per case).
    monkeypatch.setitem(sys.modules, "ray", None)
    suite = write_suite(tmp_path, "s", variants=["baseline"], preset="reference")
    out = tmp_path / "out"
    for how in (["--executor", "ray"], ["--ray-address", "auto"]):
        got = run("gauntlet", "run", str(suite), *how, "--out", str(out))
        assert got.code == 2, got.stderr
        assert got.one_line_error() == ("ajantik gauntlet run: error: --executor ray needs "
                                        "Ray, an optional extra: pip install "
                                        "'ajantik-cdp[ray]'")
        assert not out.exists()  # refused before anything was written


def test_options_that_do_not_fit_are_refused_without_quoting_an_endpoint(
        tmp_path: Path) -> None:
    suite = write_suite(tmp_path, "s", variants=["baseline", "transient_coupon"],
                        preset="reference")
    cases = [
        (["--browser", FARM], "transient_coupon"),
        (["--browser", f"ftp://{TOKEN}"], "browser 1 is not a DevTools endpoint"),
        (["--browser", "http://127.0.0.1:9", "--executor", "ray"], "for the local executor"),
        (["--executor", "local", "--ray-address", "auto"], "is for --executor ray"),
    ]
    for args, words in cases:
        got = run("gauntlet", "run", str(suite), *args, "--out", str(tmp_path / "out"))
        line = got.one_line_error()
        assert got.code == 2 and words in line and TOKEN not in got.stdout + got.stderr, line


# -- handing out workers, and the retry of a lost run -------------------------------------


class W:
    def __init__(self, n: int) -> None:
        self.worker = n


async def test_a_retry_avoids_the_worker_it_was_lost_on() -> None:
    idle = IdleWorkers([W(0), W(1)])
    assert (await idle.take(frozenset({0}))).worker == 1
    waiting = asyncio.ensure_future(idle.take(frozenset({0})))  # only 0 is free
    await asyncio.sleep(0.01)
    assert not waiting.done()
    await idle.give(W(1))
    assert (await waiting).worker == 1
    # Every worker to be avoided: any will do, rather than waiting forever.
    assert (await idle.take(frozenset({0, 1}))).worker == 0


async def test_a_retired_worker_is_never_handed_out() -> None:
    w0, w1 = W(0), W(1)
    idle = IdleWorkers([w0, w1])
    taken = await idle.take()
    await idle.retire(taken)
    assert (await idle.take(frozenset({1}))).worker == 1  # the only one left
    await idle.retire(w1)
    with pytest.raises(NoWorkerLeft):
        await idle.take()


def test_workers_are_spread_over_nodes_in_turn() -> None:
    assert spread(5, 2) == [3, 2] and spread(2, 2) == [1, 1] and spread(1, 1) == [1]
    assert sum(spread(7, 3)) == 7


class FlakyExecutor:
    """Loses the first attempt of every run with its browser, on worker 0."""

    name = "fake"
    workers = 2
    notes: tuple[str, ...] = ()

    def __init__(self, lose: int) -> None:
        self.lose = lose
        self.calls: list[tuple[str, frozenset[int]]] = []

    async def submit(self, spec: RunSpec, avoid: frozenset[int] = frozenset()) -> RunResult:
        self.calls.append((spec.run_id, avoid))
        attempt = sum(1 for r, _ in self.calls if r == spec.run_id)
        if attempt <= self.lose:
            return replace(result("baseline"), infra=InfraError("browser", "node lost"),
                           state=None, worker=len(avoid))
        return replace(result("baseline", *CORRECT_PATH), worker=len(avoid))


@pytest.mark.parametrize(("lose", "retries", "outcome"), [
    (1, 1, "done_right"), (2, 1, "infrastructure"), (1, 0, "infrastructure")])
async def test_a_run_lost_to_infrastructure_is_run_again_elsewhere(
        tmp_path: Path, lose: int, retries: int, outcome: str) -> None:
    suite = load_suite(write_suite(tmp_path, "s", variants=["baseline"], preset="reference"))
    spec = RunSpec("baseline-r0", "x", "baseline", 0, suite.agent, "Checkout", TASK, 30,
                   str(tmp_path / "runs" / "baseline-r0"))
    (tmp_path / "runs" / "baseline-r0").mkdir(parents=True)
    (tmp_path / "runs" / "baseline-r0" / "agent.stderr").write_text("first attempt")
    executor = FlakyExecutor(lose)
    done: list[Scored] = []
    notes: list[str] = []
    await run_suite(suite, executor, [spec], done.append,  # type: ignore[arg-type]
                    retries=retries, notes=notes)
    assert [s.outcome.value for s in done] == [outcome]
    assert len(executor.calls) == min(lose, retries) + 1
    assert executor.calls[-1][1] == frozenset(range(min(lose, retries)))  # elsewhere
    assert len(notes) == min(lose, retries) == sum("lost to infrastructure" in n
                                                   for n in done[0].result.notes)
    if retries:
        kept = tmp_path / "runs" / "baseline-r0" / "lost-attempt-1" / "agent.stderr"
        assert kept.read_text() == "first attempt"  # the lost attempt's evidence is kept


@pytest.mark.ray
def test_an_unreachable_cluster_is_one_line(tmp_path: Path) -> None:
    if importlib.util.find_spec("ray") is None:  # not imported here: see test_ray_executor
        pytest.skip("the ray extra is not installed")
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    suite = write_suite(tmp_path, "s", variants=["baseline"], preset="reference")
    imported_before = "ray" in sys.modules
    # In this process: the address is refused before Ray is imported (a process of its
    # own only paid Python's start-up and Ray's import, about a second of CPU).
    got = run("gauntlet", "run", str(suite), "--ray-address", f"127.0.0.1:{port}",
              "--out", str(tmp_path / "out"))
    assert got.code == 2, got.stderr
    assert got.one_line_error() == (
        f"ajantik gauntlet run: error: cannot reach the Ray cluster at 127.0.0.1:{port}: "
        "Connection refused (is `ray start --head` running there, on that port?)")
    assert not (tmp_path / "out").exists()  # refused before anything was written
    # ... and before Ray was imported: imported here, it would miss the environment
    # test_ray_executor's cluster sets before its import.
    assert imported_before or "ray" not in sys.modules
