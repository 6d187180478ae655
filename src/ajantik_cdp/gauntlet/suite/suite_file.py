"""The suite file (``gauntlet.yaml``, version 1): parsed and validated in one pass.

Every problem is collected, with where it is, and reported together: a person fixing a
suite should not have to run the command once per typo. Pure: the caller reads the file
and says where it lives (relative paths in a command agent are resolved against it).

    version: 1
    agent: {type: reference, preset: reference}     # or {type: command, run: "node a.js"}
    task:
      name: Checkout
      description: Add Aurora Headphones to cart, ... and stop before payment.
    variants: [baseline, cookie_popup, phantom_add_to_cart]      # or: all
    repetitions: 3
    workers: 4                                      # runs at a time
    thresholds: {reliability: 0.9, max_silent_failure_rate: 0}
    executor: local                  # or ray, or {type: ray, address: "10.0.0.5:6379"}
    browsers: ["${BROWSER_URL}"]     # remote browsers' DevTools endpoints (local only)
    retries: 1                       # runs lost with their browser or node, run again
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from ajantik_cdp.core.errors import BadInput
from ajantik_cdp.core.policy.config import ConfigError, parse_config
from ajantik_cdp.core.yaml_problems import yaml_problem
from ajantik_cdp.gauntlet.suite.expected_state import (
    Expectation,
    ExpectationError,
    from_data,
    from_intents,
)
from ajantik_cdp.gauntlet.suite.task_intents import GRAMMAR, parse_task
from ajantik_cdp.gauntlet.suite.variant_set import ALL_VARIANTS

SUITE_VERSION = 1
PRESETS = ("naive", "reference", "resilient")
GATES = ("estimate", "lower_bound")
THRESHOLD_KEYS = ("reliability", "max_silent_wrong", "max_silent_failure_rate", "gate")
TOP_KEYS = ("version", "name", "agent", "task", "variants", "repetitions", "workers",
            "deadline", "confidence", "thresholds", "executor", "browsers", "retries",
            "redact")
EXECUTORS = ("local", "ray")
# The name `workers` had before it was the one name of the CLI, the docs and the file;
# still read, with a note, so existing suite files keep working.
OLD_WORKERS_KEY = "concurrency"
DEFAULTS = {"repetitions": 3, "workers": 2, "deadline": 60.0, "confidence": 0.95,
            "retries": 1}
MAX_RETRIES = 5
MAX_REPETITIONS = 100
MAX_WORKERS = 16
MAX_DEADLINE = 3600.0


@dataclass(frozen=True)
class ReferenceAgentSpec:
    preset: str
    type: Literal["reference"] = "reference"

    def describe(self) -> str:
        return f"reference agent, preset {self.preset}"

    def as_data(self) -> dict[str, Any]:
        return {"type": self.type, "preset": self.preset}


@dataclass(frozen=True)
class CommandAgentSpec:
    run: str
    argv: tuple[str, ...]
    cwd: str  # absolute: the suite file's folder unless the suite says otherwise
    env: tuple[tuple[str, str], ...] = ()
    type: Literal["command"] = "command"

    def describe(self) -> str:
        return f"command agent `{self.run}`"

    def as_data(self) -> dict[str, Any]:
        # env values may be credentials: only their names are written anywhere.
        return {"type": self.type, "run": self.run, "cwd": self.cwd,
                "env": sorted(k for k, _ in self.env)}


AgentSpec = ReferenceAgentSpec | CommandAgentSpec


@dataclass(frozen=True)
class TaskSpec:
    name: str
    description: str
    expect: Expectation
    expect_source: Literal["task.expect", "description"]

    def as_data(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "expect": self.expect.as_data(), "expect_from": self.expect_source}


@dataclass(frozen=True)
class Thresholds:
    reliability: float | None = None  # checked overall and for every variant
    max_silent_wrong: int | None = 0  # runs, overall
    max_silent_failure_rate: float | None = None  # checked overall and for every variant
    # "lower_bound": the interval's cautious end must meet each rate (reliability's
    # lower bound, the silent failure rate's upper bound)
    gate: str = "estimate"

    def as_data(self) -> dict[str, Any]:
        return {"reliability": self.reliability, "max_silent_wrong": self.max_silent_wrong,
                "max_silent_failure_rate": self.max_silent_failure_rate,
                "gate": self.gate}


def run_id(variant: str, repetition: int) -> str:
    """A run's name in the suite's files and folders: ``baseline-r0``."""
    return f"{variant}-r{repetition}"


@dataclass(frozen=True)
class Suite:
    name: str
    agent: AgentSpec
    task: TaskSpec
    variants: tuple[str, ...]
    repetitions: int
    workers: int  # runs at a time, each on a headless Chromium of its own
    deadline: float
    confidence: float
    thresholds: Thresholds
    source: str = "<suite>"
    warnings: tuple[str, ...] = field(default=())
    # Where the runs run, not what they measure: never in as_data (an endpoint is a
    # credential, and a suite resumed elsewhere is the same suite).
    executor: str = "local"
    ray_address: str | None = None
    browsers: tuple[str, ...] = field(default=(), repr=False)
    retries: int = 1
    # URLs (the guard's `redact` rules) whose pages are never filmed and whose bodies a
    # fault run's record withholds: a login page of the agent's own site.
    redact: tuple[str, ...] = ()

    @property
    def run_count(self) -> int:
        return len(self.variants) * self.repetitions

    @property
    def planned_runs(self) -> list[tuple[str, int, str]]:
        """(variant, repetition, run id) of every run, in the suite's order."""
        return [(v, rep, run_id(v, rep)) for v in self.variants
                for rep in range(self.repetitions)]

    def as_data(self) -> dict[str, Any]:
        return {"version": SUITE_VERSION, "name": self.name, "source": self.source,
                "agent": self.agent.as_data(), "task": self.task.as_data(),
                "variants": list(self.variants), "repetitions": self.repetitions,
                "workers": self.workers, "deadline": self.deadline,
                "confidence": self.confidence, "thresholds": self.thresholds.as_data(),
                # Only when given: a suite without it stays the suite it was.
                **({"redact": list(self.redact)} if self.redact else {})}


class SuiteError(BadInput, ValueError):
    """Every problem of a suite file, for one message (exit code 2)."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(f"{source}: {count}: " + "; ".join(problems))


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, what: str) -> None:
        self.items.append(f"{where}: {what}" if where else what)


def _number(p: _Problems, data: Mapping[str, Any], key: str, lo: float, hi: float,
            *, whole: bool) -> Any:
    value = data.get(key, DEFAULTS.get(key))
    ok_type = isinstance(value, int) if whole else isinstance(value, int | float)
    if isinstance(value, bool) or not ok_type:
        p.add(key, f"must be a {'whole number' if whole else 'number'}, got {value!r}")
        return DEFAULTS.get(key)
    if not lo <= value <= hi:
        p.add(key, f"must be from {lo:g} to {hi:g}, got {value!r}")
        return DEFAULTS.get(key)
    return value


def _unknown_keys(p: _Problems, where: str, data: Mapping[str, Any],
                  known: tuple[str, ...]) -> None:
    for key in data:
        if key not in known:
            p.add(f"{where}.{key}" if where else str(key),
                  f"unknown key (known: {', '.join(known)})")


# (program, folder) -> where it was found, or None. Given by the caller that may touch
# the file system; without one, a command is not looked up.
FindProgram = Callable[[str, str], str | None]


def _agent(p: _Problems, raw: Any, base_dir: str,
           find_program: FindProgram | None) -> AgentSpec | None:
    if not isinstance(raw, Mapping):
        p.add("agent", "must be {type: reference, preset: ...} or {type: command, run: ...}")
        return None
    kind = raw.get("type")
    if kind == "reference":
        _unknown_keys(p, "agent", raw, ("type", "preset"))
        preset = raw.get("preset", "reference")
        if preset not in PRESETS:
            p.add("agent.preset", f"unknown preset {preset!r} (choose from "
                  f"{', '.join(PRESETS)})")
            return None
        return ReferenceAgentSpec(str(preset))
    if kind == "command":
        _unknown_keys(p, "agent", raw, ("type", "run", "cwd", "env"))
        run = raw.get("run")
        if not isinstance(run, str) or not run.strip():
            p.add("agent.run", "must be the command that starts the agent, e.g. "
                  "\"node my-agent.js\"")
            return None
        try:
            argv = tuple(shlex.split(run))
        except ValueError as exc:
            p.add("agent.run", f"cannot split {run!r} into words: {exc}")
            return None
        cwd = raw.get("cwd", ".")
        if not isinstance(cwd, str):
            p.add("agent.cwd", "must be a folder path")
            cwd = "."
        env = raw.get("env", {})
        pairs: list[tuple[str, str]] = []
        if not isinstance(env, Mapping):
            p.add("agent.env", "must map variable names to text")
        else:
            for k, v in env.items():
                if not isinstance(v, str | int | float) or isinstance(v, bool):
                    p.add(f"agent.env.{k}", "must be text")
                else:
                    pairs.append((str(k), str(v)))
        if not argv:
            p.add("agent.run", "is empty")
            return None
        folder = _join(base_dir, cwd)
        if find_program is not None and find_program(argv[0], folder) is None:
            p.add("agent.run", f"cannot find the program {argv[0]!r} (on PATH or in "
                  f"{folder})")
        return CommandAgentSpec(run, argv, folder, tuple(pairs))
    p.add("agent.type", f"must be reference or command, got {kind!r}")
    return None


def _join(base: str, path: str) -> str:
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return path
    return f"{base.rstrip('/')}/{path}" if path not in (".", "") else base


def _task(p: _Problems, raw: Any, agent: AgentSpec | None) -> TaskSpec | None:
    if not isinstance(raw, Mapping):
        p.add("task", "must have a name and a description")
        return None
    _unknown_keys(p, "task", raw, ("name", "description", "expect"))
    name, text = raw.get("name"), raw.get("description")
    if not isinstance(name, str) or not name.strip():
        p.add("task.name", "is required (a short title)")
        name = "task"
    if not isinstance(text, str) or not text.strip():
        p.add("task.description", "is required: the task in words, as the agent gets it")
        return None
    parsed = parse_task(text)
    if isinstance(agent, ReferenceAgentSpec) and parsed.not_understood:
        quoted = ", ".join(repr(c) for c in parsed.not_understood)
        p.add("task.description", f"the reference agent cannot act on {quoted} (it "
              f"understands: {'; '.join(GRAMMAR)})")
    expect_raw = raw.get("expect")
    try:
        if expect_raw is not None:
            if not isinstance(expect_raw, Mapping):
                raise ExpectationError(["must map cart/coupon/checkout/stage"])
            return TaskSpec(name.strip(), text.strip(), from_data(expect_raw), "task.expect")
        return TaskSpec(name.strip(), text.strip(), from_intents(parsed), "description")
    except ExpectationError as exc:
        where = "task.expect" if expect_raw is not None else "task.description"
        hint = "" if expect_raw is not None else " (or give task.expect)"
        for problem in exc.problems:
            p.add(where, problem + hint)
        return None


def _variants(p: _Problems, raw: Any) -> tuple[str, ...]:
    if raw is None or raw == "all":
        return ALL_VARIANTS
    if not isinstance(raw, list) or not raw:
        p.add("variants", "must be a list of variant names, or all")
        return ()
    out: list[str] = []
    for i, name in enumerate(raw):
        if name not in ALL_VARIANTS:
            p.add(f"variants[{i}]", f"unknown variant {name!r} (known: "
                  f"{', '.join(ALL_VARIANTS)})")
        elif name in out:
            p.add(f"variants[{i}]", f"{name} is listed twice")
        else:
            out.append(str(name))
    return tuple(out)


def _rate(p: _Problems, raw: Mapping[str, Any], key: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        hint = " (a share of runs: 0.05 is 5%)" if isinstance(value, int | float) \
            and not isinstance(value, bool) and value > 1 else ""
        p.add(f"thresholds.{key}", f"must be a number from 0 to 1 or null, got "
              f"{value!r}{hint}")
        return None
    return float(value)


def _thresholds(p: _Problems, raw: Any) -> Thresholds:
    if raw is None:
        return Thresholds()
    if not isinstance(raw, Mapping):
        p.add("thresholds", "must be a mapping, e.g. {reliability: 0.9}")
        return Thresholds()
    _unknown_keys(p, "thresholds", raw, THRESHOLD_KEYS)
    rel = _rate(p, raw, "reliability")
    silent_rate = _rate(p, raw, "max_silent_failure_rate")
    sw = raw.get("max_silent_wrong", 0)
    if sw is not None and (isinstance(sw, bool) or not isinstance(sw, int) or sw < 0):
        p.add("thresholds.max_silent_wrong", f"must be a whole number, 0 or more, or null; "
              f"got {sw!r}")
        sw = 0
    gate = raw.get("gate", "estimate")
    if gate not in GATES:
        p.add("thresholds.gate", f"must be {' or '.join(GATES)}, got {gate!r}")
        gate = "estimate"
    return Thresholds(rel, sw, silent_rate, str(gate))


def _executor(p: _Problems, raw: Any) -> tuple[str, str | None]:
    if raw is None:
        return "local", None
    if isinstance(raw, str) and raw in EXECUTORS:
        return raw, None
    if isinstance(raw, Mapping) and raw.get("type") in EXECUTORS:
        _unknown_keys(p, "executor", raw, ("type", "address"))
        address = raw.get("address")
        if address is not None and (not isinstance(address, str) or not address.strip()):
            p.add("executor.address", "must be the Ray cluster's address, e.g. "
                  "\"10.0.0.5:6379\"")
            address = None
        if address is not None and raw["type"] != "ray":
            p.add("executor.address", "is for executor ray")
        return str(raw["type"]), address
    p.add("executor", f"must be {' or '.join(EXECUTORS)}, or {{type: ray, address: ...}}; "
          f"got {raw!r}")
    return "local", None


def _browsers(p: _Problems, raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw or not all(isinstance(b, str) and b.strip()
                                                       for b in raw):
        # The value itself is never quoted: it may carry a token.
        p.add("browsers", "must be a list of DevTools endpoints (http://host:port or "
              "ws://...), or ${VARIABLE}s that hold them")
        return ()
    return tuple(b.strip() for b in raw)


def _redact(p: _Problems, raw: Any) -> tuple[str, ...]:
    """The guard's own reading of `redact` rules, so a suite accepts what `ajantik cdp`
    accepts and refuses what it refuses."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(r, str) for r in raw):
        p.add("redact", "must be a list of URL patterns (regular expressions)")
        return ()
    try:
        parse_config({"redact": raw})
    except ConfigError as exc:
        p.add("", str(exc).removeprefix("config: "))
        return ()
    return tuple(raw)


def parse_suite(text: str, source: str = "<suite>", base_dir: str = ".", *,
                find_program: FindProgram | None = None) -> Suite:
    """Parse and validate a suite; raises SuiteError with every problem found."""
    p = _Problems()
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SuiteError(source, [yaml_problem(exc)]) from None
    if not isinstance(data, Mapping):
        raise SuiteError(source, ["must be a YAML mapping with version, agent, task, "
                                  "variants..."])
    warnings = []
    if OLD_WORKERS_KEY in data:
        old = data[OLD_WORKERS_KEY]
        data = {k: v for k, v in data.items() if k != OLD_WORKERS_KEY}
        if "workers" in data:
            p.add(OLD_WORKERS_KEY, "is the old name of workers: give only workers")
        else:
            data["workers"] = old
            warnings.append(f"{OLD_WORKERS_KEY} is now called workers (the old name is "
                            "still read)")
    _unknown_keys(p, "", data, TOP_KEYS)
    version = data.get("version")
    if version != SUITE_VERSION:
        p.add("version", f"must be {SUITE_VERSION} (this ajantik reads suite version "
              f"{SUITE_VERSION}), got {version!r}")
    agent = _agent(p, data.get("agent"), base_dir, find_program)
    task = _task(p, data.get("task"), agent)
    variants = _variants(p, data.get("variants"))
    repetitions = _number(p, data, "repetitions", 1, MAX_REPETITIONS, whole=True)
    workers = _number(p, data, "workers", 1, MAX_WORKERS, whole=True)
    deadline = _number(p, data, "deadline", 1, MAX_DEADLINE, whole=False)
    confidence = _number(p, data, "confidence", 0.5, 0.999, whole=False)
    thresholds = _thresholds(p, data.get("thresholds"))
    executor, ray_address = _executor(p, data.get("executor"))
    browsers = _browsers(p, data.get("browsers"))
    if browsers and executor == "ray":
        p.add("browsers", "are for executor local: with executor ray every node runs "
              "its own Chromium")
    retries = _number(p, data, "retries", 0, MAX_RETRIES, whole=True)
    redact = _redact(p, data.get("redact"))
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        p.add("name", "must be text")
    if p.items or agent is None or task is None:
        raise SuiteError(source, p.items or ["incomplete suite"])
    if "baseline" not in variants:
        warnings.append("no baseline variant: perturbed runs have nothing to be compared "
                        "with, and steps cannot be compared")
    return Suite(
        name=str(name) if isinstance(name, str) and name.strip() else task.name,
        agent=agent, task=task, variants=variants, repetitions=int(repetitions),
        workers=int(workers), deadline=float(deadline),
        confidence=float(confidence), thresholds=thresholds, source=source,
        warnings=tuple(warnings), executor=executor, ray_address=ray_address,
        browsers=browsers, retries=int(retries), redact=redact)
