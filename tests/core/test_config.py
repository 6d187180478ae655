"""Config validation: every problem reported at once, nothing silently accepted."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.policy.config import KEYS, ConfigError, parse_config


def problems(data: object) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(data, "guard.json")
    return info.value.problems


def test_valid_config_keeps_every_list() -> None:
    cfg = parse_config({
        "deny": ["submission"],
        "deny_clicks": ["proceed to submission"],
        "allow_writes": ["^https://app\\.example\\.com/"],
        "record": ["/api/"],
        "redact": ["^https://login\\.example\\.com/"],
    })
    assert [r.pattern for r in cfg.deny] == ["submission"]
    assert cfg.deny_clicks == ("proceed to submission",)
    assert cfg.allow_writes is not None and cfg.allow_writes[0].pattern.startswith("^https")
    assert len(cfg.sha256) == 64


def test_absent_allow_writes_differs_from_empty() -> None:
    assert parse_config({}).allow_writes is None
    assert parse_config({"allow_writes": []}).allow_writes == ()


def test_all_problems_reported_together() -> None:
    found = problems({
        "deny": "submission",  # not a list
        "record": ["(unclosed"],  # does not compile
        "allow_writes": [3],  # not a string
        "colour": ["red"],  # unknown key
        "deny_clicks": ["\\w+ now"],  # outside the click dialect
        "redact": [""],  # empty
    })
    text = " | ".join(found)
    assert len(found) == 6, found
    assert "'deny' must be a list" in text
    assert "record[0] '(unclosed' does not compile" in text
    assert "allow_writes[0] must be a string" in text
    assert "unknown key 'colour'" in text
    assert "deny_clicks[0]" in text
    assert "redact[0] is empty" in text


def test_not_a_mapping() -> None:
    assert problems(["deny"]) == [f"must be a mapping of {', '.join(KEYS)}"]


@pytest.mark.parametrize("pattern", [
    "^https://app\\.example\\.com",
    "^https://app.example.com",
    "https://app\\.example\\.com",
])
def test_allowlist_entry_admitting_lookalike_host_is_refused(pattern: str) -> None:
    found = problems({"allow_writes": [pattern]})
    assert len(found) == 1 and "also matches" in found[0]


@pytest.mark.parametrize("pattern", [
    "^https://app\\.example\\.com/",
    "^https://app\\.example\\.com(:443)?/",
    "^https://app\\.example\\.com(/|$)",
    "^http://127\\.0\\.0\\.1:8080/",
    "/api/",
])
def test_well_anchored_allowlist_entries_load(pattern: str) -> None:
    assert parse_config({"allow_writes": [pattern]}).allow_writes


def test_case_rules() -> None:
    cfg = parse_config({"deny": ["submission"], "allow_writes": ["^https://app/"]})
    assert cfg.deny[0].search("https://app/Submission")
    assert cfg.allow_writes is not None
    assert not cfg.allow_writes[0].search("HTTPS://APP/")


def test_hash_is_stable_and_content_sensitive() -> None:
    a = parse_config({"deny": ["x"], "record": ["y"]})
    b = parse_config({"record": ["y"], "deny": ["x"]})
    c = parse_config({"deny": ["x"]})
    assert a.sha256 == b.sha256 != c.sha256


@given(st.dictionaries(st.text(max_size=12), st.lists(st.text(max_size=8), max_size=3),
                       max_size=4))
def test_any_mapping_either_loads_or_lists_problems(data: dict[str, list[str]]) -> None:
    try:
        parse_config(data)
    except ConfigError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
