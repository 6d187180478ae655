"""Reading a guard config file (JSON or YAML) into the core's GuardConfig, and the
example configs shipped inside the package (`--config example:portal`)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from ajantik_cdp.core.policy.config import ConfigError, GuardConfig, parse_config
from ajantik_cdp.core.yaml_problems import yaml_problem

EXAMPLES = Path(__file__).resolve().parent / "example_guards"
EXAMPLE_PREFIX = "example:"
_SUFFIXES = (".yaml", ".yml", ".json")


def example_names() -> list[str]:
    return sorted(p.stem for p in EXAMPLES.iterdir() if p.suffix in _SUFFIXES)


def config_path(text: str) -> Path:
    """A --config value as a file: a path, or ``example:NAME`` for a shipped example."""
    if not text.startswith(EXAMPLE_PREFIX):
        return Path(text)
    name = text[len(EXAMPLE_PREFIX):]
    for suffix in ("", *_SUFFIXES):
        found = EXAMPLES / f"{name}{suffix}"
        if "/" not in name and found.suffix in _SUFFIXES and found.is_file():
            return found
    raise ConfigError(text, [f"no such example; the examples are "
                             f"{', '.join(EXAMPLE_PREFIX + n for n in example_names())}"])


def load_config_file(path: Path) -> GuardConfig:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(source, ["file not found"]) from None
    except IsADirectoryError:
        raise ConfigError(source, ["is a folder, not a config file"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(source, [f"cannot read: {exc}"]) from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(source, [f"not valid JSON: {exc}"]) from None
    else:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ConfigError(source, [yaml_problem(exc)]) from None
    return parse_config(data, source)
