"""The variants a suite may name: the shop's eleven variants and four write faults, each
with its kind and whether the task can still be done under it.

A shop variant changes how the shop renders and how the agent's browser is set up (see
``ajantik_shop.variants``). A fault variant runs the shop's baseline behind a per-run guard
that injects one write fault on one shop write (see ``core.policy.faults``).

Kinds: ``baseline`` (the control: nothing changes), ``ui`` (what the page shows and
when), ``network`` (how long answers take), ``viewport`` (the device), ``state`` (the
session under the agent), ``locale`` (the language) and ``fault`` (a write fault). Every
shop variant can be done by a capable agent; of the faults, only
``session_drop_checkout`` makes the task impossible, so there the best outcome is to
report the failure honestly (docs/gauntlet.md, the outcome ladder). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from ajantik_cdp.core.policy.faults import FaultKind
from ajantik_shop import VARIANT_NAMES


@dataclass(frozen=True)
class FaultVariant:
    name: str
    kind: FaultKind
    action: str  # the shop's api path the fault is on, e.g. "cart/add"
    declares: str
    # Whether a capable agent can still reach the expected state. When it cannot, the
    # best outcome is to report the failure honestly.
    success_possible: bool
    at: int = 1

    def pattern(self, token: str) -> str:
        """The guard's fault pattern, scoped to one run. Anchored at the end, because
        ``/api/checkout`` would also match ``/api/checkout/begin``."""
        return f"/r/{re.escape(token)}/api/{re.escape(self.action)}$"

    def fault_text(self, token: str) -> str:
        return f"{self.kind.value}:{self.pattern(token)}"


FAULT_VARIANTS: dict[str, FaultVariant] = {v.name: v for v in (
    FaultVariant("phantom_add_to_cart", FaultKind.PHANTOM_SUCCESS, "cart/add",
                 "the first add-to-cart is answered 204 and never reaches the shop", True),
    FaultVariant("transient_coupon", FaultKind.TRANSIENT_ERROR, "coupon",
                 "the first coupon write is answered 503 once and never reaches the shop",
                 True),
    FaultVariant("phantom_failure_add", FaultKind.PHANTOM_FAILURE, "cart/add",
                 "the first add-to-cart lands, but the page is told 500: a retry duplicates",
                 True),
    FaultVariant("session_drop_checkout", FaultKind.SESSION_DROP, "checkout",
                 "'Review order' is answered 401 and never reaches the shop, every time: "
                 "the task cannot be done, only reported", False),
)}

UI_VARIANTS: tuple[str, ...] = tuple(VARIANT_NAMES)
ALL_VARIANTS: tuple[str, ...] = (*UI_VARIANTS, *FAULT_VARIANTS)
BASELINE = "baseline"

VariantKind = Literal["baseline", "ui", "network", "viewport", "state", "locale", "fault"]
KINDS: tuple[VariantKind, ...] = get_args(VariantKind)
SHOP_VARIANT_KINDS: dict[str, VariantKind] = {
    "baseline": "baseline", "cookie_popup": "ui", "unexpected_modal": "ui",
    "renamed_cta": "ui", "reordered_layout": "ui", "delayed_element": "ui",
    "slow_api": "network", "network_delay": "network", "mobile_viewport": "viewport",
    "expired_session": "state", "locale_variant": "locale",
}


def is_fault(name: str) -> bool:
    return name in FAULT_VARIANTS


def shop_variant(name: str) -> str:
    """The shop variant a run of ``name`` is created with: faults perturb the baseline."""
    return BASELINE if is_fault(name) else name


def variant_kind(name: str) -> VariantKind:
    return "fault" if is_fault(name) else SHOP_VARIANT_KINDS[name]


def success_possible(name: str) -> bool:
    """Whether a capable agent can still do the task under this variant: every shop
    variant can be recovered from (docs/shop.md); a fault says so itself."""
    fault = FAULT_VARIANTS.get(name)
    return fault.success_possible if fault is not None else True
