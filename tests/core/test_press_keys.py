"""Enter and Space by every field a client's key command can name them with."""

from __future__ import annotations

import pytest

from ajantik_cdp.core.guard.client_actions import summarise_input
from ajantik_cdp.core.policy.press_keys import press_key_of


@pytest.mark.parametrize(("params", "press"), [
    ({"type": "keyDown", "key": "Enter"}, "Enter"),
    ({"type": "keyDown", "windowsVirtualKeyCode": 13}, "Enter"),
    ({"type": "rawKeyDown", "code": "NumpadEnter"}, "Enter"),
    ({"type": "char", "text": "\r"}, "Enter"),
    ({"type": "keyDown", "unmodifiedText": "\n"}, "Enter"),
    ({"type": "keyDown", "key": "Unidentified", "windowsVirtualKeyCode": 13}, "Enter"),
    ({"type": "keyDown", "key": " "}, "Space"),
    ({"type": "keyDown", "windowsVirtualKeyCode": 32}, "Space"),
    ({"type": "rawKeyDown", "code": "Space"}, "Space"),
    ({"type": "keyDown", "key": "a", "windowsVirtualKeyCode": 65}, None),
    ({"type": "keyDown", "windowsVirtualKeyCode": True}, None),  # a bool is no key code
    ({"type": "keyDown", "nativeVirtualKeyCode": 13}, None),  # Chrome makes no Enter of it
])
def test_a_key_is_judged_by_every_field(params: dict[str, object], press: str | None) -> None:
    assert press_key_of(params) == press


@pytest.mark.parametrize("params", [
    {"type": "keyDown", "windowsVirtualKeyCode": 13},
    {"type": "rawKeyDown", "code": "Enter"},
    {"type": "keyDown", "text": "\r"},
])
def test_the_timeline_calls_an_unnamed_enter_the_enter_key(params: dict[str, object]) -> None:
    assert summarise_input("Input.dispatchKeyEvent", params, str) == "key Enter"
