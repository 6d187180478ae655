"""The names the reference agent looks for, by intent, and what each preset can do. Pure.

The agent finds every control by its accessible name (role + name, or a label), never by
a CSS selector or an id, and knows a few synonyms per control: the English names, the
shorter ones a redesign might use ("Add", "Continue") and the German ones. It knows
nothing about which variant it is in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def names(*alternatives: str) -> re.Pattern[str]:
    """An exact, case-insensitive match of any of the names."""
    return re.compile("^(?:" + "|".join(re.escape(a) for a in alternatives) + ")$", re.I)


ADD_TO_CART = names("Add to cart", "Add to basket", "Add", "In den Warenkorb")
QUANTITY = names("Quantity", "Qty", "Menge")
CART_LINK = re.compile(r"^(?:cart|basket|warenkorb)(?: \(\d+\))?$", re.I)
MENU = names("Menu", "Menü", "Open menu")
COUPON_FIELD = names("Coupon", "Coupon code", "Promo code", "Voucher", "Gutscheincode")
APPLY_COUPON = names("Apply coupon", "Apply", "Redeem", "Gutschein einlösen")
PROCEED = names("Proceed to checkout", "Checkout", "Check out", "Continue", "Zur Kasse")
REVIEW_ORDER = names("Review order", "Continue to review", "Review", "Bestellung prüfen")
REVIEW_HEADING = re.compile(r"review|überprüfen|übersicht", re.I)
RESUME = names("Resume", "Resume session", "Fortsetzen")
# Dismissing rather than accepting: an agent does not consent on its user's behalf.
DISMISS = names("Close", "Schließen", "Reject all", "Alle ablehnen", "No thanks", "Dismiss")
PAYMENT = re.compile(r"\b(?:pay|payment|zahlung|bezahlen)\b", re.I)
RESUMED = re.compile(r"resumed|fortgesetzt", re.I)

FIELD_LABELS: dict[str, tuple[str, ...]] = {
    "name": ("Name", "Full name"),
    "full name": ("Full name", "Name"),
    "city": ("City", "Town", "Stadt"),
    "town": ("Town", "City", "Stadt"),
    "stadt": ("Stadt", "City"),
}


def field_label(label: str) -> re.Pattern[str]:
    return names(*FIELD_LABELS.get(" ".join(label.split()).casefold(), (label,)))


@dataclass(frozen=True)
class Capabilities:
    """What separates the presets; nothing else does."""

    handle_overlays: bool  # dismiss interstitials and consent banners when they block
    page_ready: str  # the load state awaited after a navigation: "domcontentloaded", "load"
    patience: float  # seconds a control may take to appear; 0: it is there or it is not
    action_timeout: float  # seconds for a present control to become clickable
    confirm_wait: float  # seconds to wait for the shop's answer to a write
    trust_silence: bool  # no answer within confirm_wait: carry on as if it worked
    stop_on_alert: bool  # an error shown by the shop ends the run (honestly)
    recover: bool  # resume expired sessions, read writes back, redo what did not land


PRESETS: dict[str, Capabilities] = {
    # A first draft: acts on the page as soon as its HTML is in, on whatever is there,
    # gives each write a second to answer and carries on either way.
    "naive": Capabilities(handle_overlays=False, page_ready="domcontentloaded", patience=0.0,
                          action_timeout=3.0, confirm_wait=1.0, trust_silence=True,
                          stop_on_alert=False, recover=False),
    # Handles overlays and late elements; stops and says so at the first error.
    "reference": Capabilities(handle_overlays=True, page_ready="load", patience=10.0,
                              action_timeout=10.0, confirm_wait=10.0, trust_silence=False,
                              stop_on_alert=True, recover=False),
    # The same, and recovers: resumes an expired session, reads each write back from the
    # shop's cart, and does again only what did not land.
    "resilient": Capabilities(handle_overlays=True, page_ready="load", patience=10.0,
                              action_timeout=10.0, confirm_wait=10.0, trust_silence=False,
                              stop_on_alert=True, recover=True),
}
