"""The guard's configuration: parsed from plain data, validated all at once.

Every problem in a config is collected and reported together, so a person fixing a file
sees the whole list on the first run rather than one error per attempt.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from ajantik_cdp.core.guard.cookie_filter import SHARE_ALL, CookiePolicy
from ajantik_cdp.core.policy.click_patterns import ClickPatternError, check_click_pattern

KEYS = ("deny", "deny_clicks", "allow_writes", "record", "redact", "share_cookies")

# Lists whose patterns ignore case. Each list errs on its safe side: a deny, record or
# redact entry written as "submission" must also catch "/Submission", while an allowlist
# entry must not start admitting hosts its author did not spell.
_IGNORE_CASE = {"deny", "record", "redact"}


class ConfigError(ValueError):
    """A config with one or more problems; ``problems`` lists every one."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        joined = "; ".join(problems)
        super().__init__(f"{source}: {joined}")


@dataclass(frozen=True)
class UrlRule:
    """One regular expression from one list, kept with its name for logs and records."""

    list_name: str
    index: int
    pattern: str
    regex: re.Pattern[str] = field(compare=False, repr=False)

    @property
    def label(self) -> str:
        return f"{self.list_name}[{self.index}] {self.pattern!r}"

    def search(self, url: str) -> bool:
        return self.regex.search(url) is not None


@dataclass(frozen=True)
class GuardConfig:
    deny: tuple[UrlRule, ...] = ()
    deny_clicks: tuple[str, ...] = ()
    # None means the key was absent: writes anywhere are allowed unless denied.
    allow_writes: tuple[UrlRule, ...] | None = None
    record: tuple[UrlRule, ...] = ()
    redact: tuple[UrlRule, ...] = ()
    # Cookie domains whose cookies clients may read ("*": all). Empty: none leave Chrome.
    share_cookies: tuple[str, ...] = ()
    sha256: str = ""

    @property
    def cookie_policy(self) -> CookiePolicy:
        return CookiePolicy.from_patterns(self.share_cookies)

    def as_data(self) -> dict[str, list[str] | None]:
        return {
            "deny": [r.pattern for r in self.deny],
            "deny_clicks": list(self.deny_clicks),
            "allow_writes": None
            if self.allow_writes is None
            else [r.pattern for r in self.allow_writes],
            "record": [r.pattern for r in self.record],
            "redact": [r.pattern for r in self.redact],
            "share_cookies": list(self.share_cookies),
        }


def parse_config(data: object, source: str = "config") -> GuardConfig:
    """Validate plain data (as loaded from JSON or YAML) into a GuardConfig."""
    problems: list[str] = []
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(source, [f"must be a mapping of {', '.join(KEYS)}"])
    unknown = [repr(key) for key in data if key not in KEYS]
    if unknown:
        problems.append(f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                        f"(known keys: {', '.join(KEYS)})")

    lists: dict[str, list[str]] = {}
    for key in KEYS:
        if key not in data:
            continue
        value = data[key]
        if not isinstance(value, list):
            problems.append(f"{key!r} must be a list of strings, not {type(value).__name__}")
            continue
        items: list[str] = []
        for i, item in enumerate(value):
            if not isinstance(item, str):
                problems.append(f"{key}[{i}] must be a string, not {type(item).__name__}")
            elif not item:
                problems.append(f"{key}[{i}] is empty and would match everything")
            else:
                items.append(item)
        lists[key] = items

    compiled: dict[str, tuple[UrlRule, ...]] = {}
    for key in ("deny", "allow_writes", "record", "redact"):
        rules: list[UrlRule] = []
        for i, pattern in enumerate(lists.get(key, [])):
            flags = re.IGNORECASE if key in _IGNORE_CASE else 0
            try:
                rules.append(UrlRule(key, i, pattern, re.compile(pattern, flags)))
            except re.error as exc:
                problems.append(f"{key}[{i}] {pattern!r} does not compile: {exc}")
        compiled[key] = tuple(rules)

    for rule in compiled["allow_writes"]:
        leak = allowlist_leak(rule)
        if leak:
            problems.append(
                f"allow_writes[{rule.index}] {rule.pattern!r} also matches {leak!r}; "
                "end the host with '/' (for example '^https://app\\.example\\.com/')"
            )

    for i, pattern in enumerate(lists.get("share_cookies", [])):
        if pattern == SHARE_ALL:
            continue
        try:
            re.compile(pattern)
        except re.error as exc:
            problems.append(f"share_cookies[{i}] {pattern!r} does not compile: {exc} "
                            f"(use {SHARE_ALL!r} alone to share every cookie)")

    for i, pattern in enumerate(lists.get("deny_clicks", [])):
        try:
            check_click_pattern(pattern)
        except ClickPatternError as exc:
            problems.append(f"deny_clicks[{i}] {pattern!r}: {exc}")

    if problems:
        raise ConfigError(source, problems)

    cfg = GuardConfig(
        deny=compiled["deny"],
        deny_clicks=tuple(lists.get("deny_clicks", [])),
        allow_writes=compiled["allow_writes"] if "allow_writes" in data else None,
        record=compiled["record"],
        redact=compiled["redact"],
        share_cookies=tuple(lists.get("share_cookies", [])),
    )
    digest = hashlib.sha256(
        json.dumps(cfg.as_data(), sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    return GuardConfig(
        deny=cfg.deny,
        deny_clicks=cfg.deny_clicks,
        allow_writes=cfg.allow_writes,
        record=cfg.record,
        redact=cfg.redact,
        share_cookies=cfg.share_cookies,
        sha256=digest,
    )


_HOST_PREFIX = re.compile(r"^\^?(https?|wss?)(?::|\\:)//((?:[A-Za-z0-9\-]|\\\.|\.)+)")


def allowlist_leak(rule: UrlRule) -> str | None:
    """A hostile URL an allowlist entry would admit, or None.

    Allowlists written as a bare host prefix have been bypassed elsewhere with
    ``https://good.example.com.evil.net/``. When an entry starts with a scheme and a host,
    probe it with lookalike hosts; an entry that admits one is refused at load time.
    """
    m = _HOST_PREFIX.match(rule.pattern)
    if not m:
        return None
    scheme = m.group(1)
    host = unquote(m.group(2).replace("\\.", "."))
    probes = (
        f"{scheme}://{host}.ajantik-probe.invalid/",
        f"{scheme}://{host}-ajantik-probe.invalid/",
        f"{scheme}://{host}ajantik-probe.invalid/",
    )
    for probe in probes:
        if rule.search(probe):
            return probe
    return None
