"""Where a suite's runs run: the executor, its cluster, remote browsers, the shop's
address, how often a run lost to infrastructure is run again. The command line wins
over the suite file; nothing here changes what a run is or how it is judged.

The checks that would otherwise fail after the shop and the browsers are up are made
here, before anything runs or is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ajantik_cdp.browser.endpoints import EndpointError, RemoteBrowser, remote_browsers
from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.gauntlet.suite.suite_file import DEFAULTS, Suite
from ajantik_cdp.gauntlet.suite.variant_set import FAULT_VARIANTS

DEFAULT_RETRIES = int(DEFAULTS["retries"])  # a run lost with its browser, once more


class PlacementError(BadInput):
    """Options that do not fit together or with the suite (exit code 2)."""


@dataclass(frozen=True)
class Placement:
    executor: str = "local"  # or "ray"
    ray_address: str | None = None  # None: a Ray instance of this machine's own
    browsers: tuple[RemoteBrowser, ...] = ()  # remote browsers instead of local Chromium
    shop_host: str | None = None  # where the in-process shop listens (browsers reach it)
    retries: int = DEFAULT_RETRIES


def resolve_placement(suite: Suite, *, executor: str | None = None,
                      ray_address: str | None = None, browsers: Sequence[str] = (),
                      shop_host: str | None = None, retries: int | None = None) -> Placement:
    if ray_address is not None and executor == "local":
        raise PlacementError("--ray-address is for --executor ray")
    kind = executor or ("ray" if ray_address else suite.executor)
    address = ray_address or (suite.ray_address if kind == "ray" else None)
    urls = list(browsers) or list(suite.browsers)
    if urls and kind == "ray":
        raise PlacementError("remote browsers (--browser, browsers:) are for the local "
                             "executor: with --executor ray every node runs its own Chromium")
    try:
        remote = remote_browsers(urls)
    except EndpointError as exc:
        raise PlacementError(str(exc)) from None
    faults = [v for v in suite.variants if v in FAULT_VARIANTS]
    unguardable = [b.label for b in remote if not b.guardable]
    if faults and unguardable:
        raise PlacementError(
            f"fault variants ({', '.join(faults)}) put a guard in front of the browser, and "
            f"a guard reaches a browser by its DevTools HTTP address alone (http://host:port, "
            f"no path, query or password); {', '.join(unguardable)} "
            f"{'is' if len(unguardable) == 1 else 'are'} not such an address. Leave the "
            "fault variants out, or give such endpoints")
    return Placement(kind, address, tuple(remote), shop_host,
                     suite.retries if retries is None else retries)
