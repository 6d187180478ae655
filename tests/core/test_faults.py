"""The fault state machine: one fault per run, on the write the operator chose."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.faults import FaultKind, FaultSpecError, FaultState, parse_fault


@pytest.mark.parametrize(("text", "at", "why"), [
    ("phantom_success", 1, "must be KIND:PATTERN"),
    ("explode:/api", 1, "unknown fault kind 'explode'"),
    ("phantom_success:", 1, "needs a URL pattern"),
    ("phantom_success:(", 1, "does not compile"),
    ("phantom_success:/api", 0, "--fault-at must be 1 or more"),
])
def test_bad_specs_are_refused_with_the_reason(text: str, at: int, why: str) -> None:
    with pytest.raises(FaultSpecError, match=why):
        parse_fault(text, at)


def test_pattern_may_contain_colons() -> None:
    spec = parse_fault("session_drop:^https://app:8443/api", 2)
    assert spec.kind is FaultKind.SESSION_DROP and spec.pattern == "^https://app:8443/api"
    assert spec.as_data() == {"kind": "session_drop", "pattern": "^https://app:8443/api",
                              "at": 2}


def test_no_spec_never_fires() -> None:
    state = FaultState(None)
    assert [state.on_write("https://x/api") for _ in range(5)] == [None] * 5


URLS = st.lists(st.sampled_from(["https://app/api/save", "https://app/other",
                                 "https://app/api/upload"]), max_size=30)
KINDS = st.sampled_from(list(FaultKind))


@given(KINDS, st.integers(min_value=1, max_value=5), URLS)
def test_fires_on_the_nth_matching_write_only(kind: FaultKind, at: int,
                                               urls: list[str]) -> None:
    state = FaultState(parse_fault(f"{kind.value}:/api/", at))
    fired = [state.on_write(url) for url in urls]
    matching = [i for i, url in enumerate(urls) if "/api/" in url]
    for i, result in enumerate(fired):
        if i not in matching or len(matching) < at or matching.index(i) < at - 1:
            assert result is None
        elif matching.index(i) == at - 1:
            assert result is kind
        else:  # later matching writes: only a dropped session stays dropped
            assert result is (kind if kind is FaultKind.SESSION_DROP else None)
    assert sum(r is not None for r in fired) == (
        0 if len(matching) < at
        else (len(matching) - at + 1 if kind is FaultKind.SESSION_DROP else 1))
