"""FedCM account choices a client makes for the person (``FedCm.selectAccount``).

When a page asks for a federated sign-in (``navigator.credentials.get({identity})``),
Chrome fetches the identity provider's config and accounts and, once an account is
chosen, POSTs the choice to the provider's ID assertion endpoint with the person's
cookies, all from the browser process: no Fetch session pauses these requests (measured on
Chromium 156, not even the browser session's with the pattern ``*``). A client that
drives Chrome's account chooser (``FedCm.selectAccount``) is pressing "Continue as ..."
for the person, so the gate decides it as the write it causes: refused when the rules
deny a write to the provider's config URL. Chrome keeps the assertion endpoint on the
config URL's origin, but its path is only in the config, which the guard never sees: a
rule that names only the endpoint's path is not matched (docs/guard.md, Known limits).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.rules import RequestFacts, decide

UNSEEN = ("the guard did not see that account chooser (FedCm.dialogShown), so it cannot "
          "tell which identity provider the choice would post to")


def dialog_providers(params: Mapping[str, Any]) -> tuple[str, ...]:
    """The provider config URL of each account a ``FedCm.dialogShown`` lists, by index."""
    accounts = params.get("accounts")
    if not isinstance(accounts, list):
        return ()
    return tuple(str(a.get("idpConfigUrl", "")) if isinstance(a, Mapping) else ""
                 for a in accounts)


def selection_refusal(config: GuardConfig, providers: tuple[str, ...] | None,
                      params: Mapping[str, Any]) -> str | None:
    """Why ``FedCm.selectAccount`` must not reach Chrome, or None. ``providers`` is what
    the dialog it names listed (None: a dialog the gate never saw)."""
    if providers is None:
        return UNSEEN
    index = params.get("accountIndex")
    if not isinstance(index, int) or isinstance(index, bool) \
            or not 0 <= index < len(providers):
        return None  # Chrome answers an index it has no account for with an error
    url = providers[index]
    decision = decide(config, RequestFacts("POST", url, "Fetch"))
    if decision.blocked:
        return (f"choosing that account would have Chrome post the sign-in to {url}'s "
                f"identity provider, a write the rules refuse ({decision.reason})")
    return None
