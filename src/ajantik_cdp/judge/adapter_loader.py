"""Loading an adapter file and holding it to its contract.

Every way an adapter can be wrong (missing, does not import, lacks a function, takes the
wrong arguments, raises, returns the wrong shape) ends as one ``AdapterError`` that names
the function and the problem, so its author can fix it without reading the judge.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.judge.adapter_api import Claim, Damage, Held, Record, Report, Unreadable

# name -> the parameters it is called with, for messages and arity checks.
REQUIRED = {
    "units": ("record", "report"),
    "held": ("unit", "record"),
    "done_right": ("unit", "holds"),
    "claim": ("unit", "report"),
}
OPTIONAL = {"damage": ("record",),
            # Used by `ajantik test run` (testrun/adapter_hooks.py), not by the judge.
            "report": ("output",), "write_points": (), "operator": ("event",)}


class AdapterError(Exception):
    def __init__(self, path: Path, function: str | None, problem: str) -> None:
        where = f"{function}: " if function else ""
        super().__init__(f"adapter {path}: {where}{problem}")
        self.path = path
        self.function = function
        self.problem = problem


def signature_text(name: str) -> str:
    params = REQUIRED.get(name) or OPTIONAL[name]
    return f"{name}({', '.join(params)})"


@dataclass(frozen=True)
class Adapter:
    path: Path
    sha256: str
    module: ModuleType

    def _fn(self, name: str) -> Callable[..., Any]:
        fn: Callable[..., Any] = getattr(self.module, name)
        return fn

    def has(self, name: str) -> bool:
        return callable(getattr(self.module, name, None))

    @property
    def has_damage(self) -> bool:
        return self.has("damage")

    def call(self, name: str, shown: str, *args: Any) -> Any:
        """Call the adapter's ``name``; anything it raises but Unreadable becomes an
        AdapterError naming ``shown`` (the call as a person reads it) and the line."""
        try:
            return self._fn(name)(*args)
        except Unreadable:
            raise
        except Exception as exc:
            raise AdapterError(self.path, shown,
                               f"raised {type(exc).__name__}: {exc}{self.where(exc)}") from exc

    def where(self, exc: BaseException) -> str:
        """' (at line N)' of the adapter's own frame an exception came from, or ''."""
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if Path(f.filename).resolve() == self.path]
        return f" (at line {frames[-1].lineno})" if frames else ""

    def units(self, record: Record, report: Report) -> list[str]:
        shown = "units(record, report)"
        got = self.call("units", shown, record, report)
        if isinstance(got, str | bytes) or not isinstance(got, Iterable):
            raise AdapterError(self.path, shown, f"returned {_kind(got)}; return a list of "
                               "unit names, e.g. ['R-101', 'R-102']")
        units = list(got)
        bad = [u for u in units if not isinstance(u, str) or not u.strip()]
        if bad:
            raise AdapterError(self.path, shown, f"returned {_kind(bad[0])} "
                               f"{bad[0]!r} among the units; every unit must be a non-empty str")
        dupes = sorted({u for u in units if units.count(u) > 1})
        if dupes:
            raise AdapterError(self.path, shown, f"returned {dupes[0]!r} more than once")
        if not units:
            raise AdapterError(self.path, shown, "returned no units: there is nothing to "
                               "judge, and an empty judgement must not pass")
        return units

    def held(self, unit: str, record: Record) -> Held:
        shown = f"held({unit!r}, record)"
        try:
            got = self.call("held", shown, unit, record)
        except Unreadable as exc:
            # The adapter hit something the record cannot show: unscorable, with why.
            return Held.unknown(str(exc))
        if not isinstance(got, Held):
            raise AdapterError(self.path, shown, f"returned {_kind(got)}; return "
                               "Held.known(value, evidence) or Held.unknown(reason, evidence)")
        self._check_evidence(shown, got.evidence, record)
        return got

    def done_right(self, unit: str, holds: Any) -> list[str]:
        shown = f"done_right({unit!r}, holds)"
        try:
            got = self.call("done_right", shown, unit, holds)
        except Unreadable as exc:
            raise AdapterError(self.path, shown, f"raised Unreadable ({exc}); read the record "
                               "in held(), not in done_right()") from None
        if not isinstance(got, list | tuple) or not all(isinstance(p, str) for p in got):
            hint = " (True/False carry no reason)" if isinstance(got, bool) else ""
            raise AdapterError(self.path, shown, f"returned {_kind(got)}{hint}; return a list "
                               "of problems as strings, [] when the unit is done right")
        return [p for p in got if p.strip()] if got else []

    def claim(self, unit: str, report: Report) -> Claim:
        shown = f"claim({unit!r}, report)"
        got = self.call("claim", shown, unit, report)
        if not isinstance(got, Claim):
            raise AdapterError(self.path, shown, f"returned {_kind(got)}; return "
                               "read_claim(report.text, unit, units) (the shared reader), or "
                               "Claim.done/not_done/unsure(quote), Claim.unreadable(quote, "
                               "reason) or Claim.silent()")
        if got.quote and got.quote not in report.text:
            raise AdapterError(self.path, shown, f"quotes {got.quote[:60]!r}, which is not in "
                               "the report; quote the report's own words")
        return got

    def damage(self, record: Record, units: list[str]) -> list[Damage]:
        if not self.has_damage:
            return []
        shown = "damage(record)"
        got = self.call("damage", shown, record)
        if isinstance(got, str | bytes) or not isinstance(got, Iterable):
            raise AdapterError(self.path, shown, f"returned {_kind(got)}; return a list of "
                               "Damage (empty when there is none)")
        found = list(got)
        for item in found:
            if not isinstance(item, Damage):
                raise AdapterError(self.path, shown, f"returned {_kind(item)} in its list; "
                                   "every item must be Damage(kind, detail, unit, evidence)")
            if item.unit is not None and item.unit not in units:
                raise AdapterError(self.path, shown, f"names unit {item.unit!r}, which units() "
                                   "did not return")
            self._check_evidence(shown, item.evidence, record)
        return found

    def _check_evidence(self, shown: str, evidence: tuple[int, ...], record: Record) -> None:
        known = record.line_numbers()
        stray = [n for n in evidence if n not in known]
        if stray:
            raise AdapterError(self.path, shown, f"cites line {stray[0]}, which is not a "
                               f"record line (the record has {counted(record.line_count, 'line')})")


def _kind(value: Any) -> str:
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


def load_adapter(path: Path) -> Adapter:
    path = path.expanduser().resolve()
    if not path.exists():
        raise AdapterError(path, None, "file not found")
    if not path.is_file() or path.suffix != ".py":
        raise AdapterError(path, None, "an adapter is a Python file (adapter.py)")
    raw = path.read_bytes()
    name = "ajantik_adapter_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AdapterError(path, None, "cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, so dataclasses and pickling inside it work; its folder
    # is importable while it loads, so it may keep helpers next to itself.
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise AdapterError(path, None, f"does not compile: line {exc.lineno}: {exc.msg}") from None
    except Exception as exc:
        sys.modules.pop(name, None)
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if Path(f.filename).resolve() == path]
        where = f" (at line {frames[-1].lineno})" if frames else ""
        raise AdapterError(path, None, f"failed to import: {type(exc).__name__}: {exc}{where}"
                           ) from None
    finally:
        if sys.path and sys.path[0] == str(path.parent):
            sys.path.pop(0)
    for fname, params in {**REQUIRED, **OPTIONAL}.items():
        fn = getattr(module, fname, None)
        if fn is None:
            if fname in OPTIONAL:
                continue
            raise AdapterError(path, signature_text(fname), "is missing; every adapter defines "
                               + ", ".join(signature_text(n) for n in REQUIRED))
        if not callable(fn):
            raise AdapterError(path, signature_text(fname),
                               f"is {_kind(fn)}, not a function")
        try:
            inspect.signature(fn).bind(*params)
        except TypeError:
            raise AdapterError(path, signature_text(fname),
                               f"must take {counted(len(params), 'argument')} "
                               f"({', '.join(params)}); "
                               f"it is defined as {fname}{inspect.signature(fn)}") from None
        except ValueError:
            pass  # no signature to inspect (a builtin); the call will tell
    return Adapter(path, hashlib.sha256(raw).hexdigest(), module)
