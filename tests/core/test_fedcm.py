"""The gate's FedCM decision (core/guard/fedcm.py): a client's account choice is the
write Chrome then posts to the identity provider."""

from __future__ import annotations

import orjson

from ajantik_cdp.core.guard.client_gate import ClientGate, RouteKind
from ajantik_cdp.core.guard.fedcm import UNSEEN, dialog_providers, selection_refusal
from ajantik_cdp.core.guard.targets import TargetState
from ajantik_cdp.core.policy.config import parse_config

IDP = "https://idp.example/fedcm/config.json"
OTHER = "https://other.example/config.json"
SHOWN = {"dialogId": "d1", "dialogType": "AccountChooser", "accounts": [
    {"accountId": "a", "idpConfigUrl": OTHER}, {"accountId": "b", "idpConfigUrl": IDP}]}


def test_the_dialog_names_each_accounts_provider() -> None:
    assert dialog_providers(SHOWN) == (OTHER, IDP)
    assert dialog_providers({"accounts": "nonsense"}) == ()


def test_an_account_of_a_denied_provider_is_refused_and_others_pass() -> None:
    config = parse_config({"deny": ["idp\\.example"]})
    providers = dialog_providers(SHOWN)
    assert selection_refusal(config, providers, {"dialogId": "d1", "accountIndex": 1})
    assert selection_refusal(config, providers, {"dialogId": "d1", "accountIndex": 0}) is None


def test_allow_writes_decides_it_too() -> None:
    config = parse_config({"allow_writes": ["other\\.example"]})
    providers = dialog_providers(SHOWN)
    assert selection_refusal(config, providers, {"accountIndex": 1})
    assert selection_refusal(config, providers, {"accountIndex": 0}) is None


def test_a_dialog_the_gate_never_saw_is_refused() -> None:
    assert selection_refusal(parse_config({}), None, {"accountIndex": 0}) == UNSEEN


def test_an_index_chrome_has_no_account_for_goes_to_chrome() -> None:
    config = parse_config({"deny": ["idp\\.example"]})
    for index in (5, -1, True, "1"):
        assert selection_refusal(config, (IDP,), {"accountIndex": index}) is None


def test_the_gate_remembers_the_dialog_from_chromes_event() -> None:
    gate = ClientGate(parse_config({"deny": ["idp\\.example"]}))
    event = orjson.dumps({"method": "FedCm.dialogShown", "params": SHOWN,
                          "sessionId": "S"}).decode()
    assert gate.wants(event)
    gate.incoming(event)

    def choose(index: int) -> RouteKind:
        text = orjson.dumps({"id": index + 1, "method": "FedCm.selectAccount",
                             "sessionId": "S",
                             "params": {"dialogId": "d1", "accountIndex": index}}).decode()
        return gate.route_text(text, lambda _: TargetState.GUARDED).kind

    assert choose(1) is RouteKind.REPLY
    assert choose(0) is RouteKind.FORWARD
