"""Reading a guard config file (JSON or YAML) into the core's GuardConfig."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from ajantik_cdp.core.config import ConfigError, GuardConfig, parse_config
from ajantik_cdp.core.yaml_problems import yaml_problem


def load_config_file(path: Path) -> GuardConfig:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(source, ["file not found"]) from None
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
