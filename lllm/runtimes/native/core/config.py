"""Layer 3 · configuration files: TOML, JSON or YAML, with a `base:` chain and a deep merge.

Read `tactic.py` first (what a config configures); `runtime.py` next (where names are looked up).

Contract: `load_config_file(path) -> dict` (a malformed file is a ConfigError naming the file and,
where the parser says, the line); `merge(base, override) -> dict` merges dicts key by key, and
anything else in `override` replaces what `base` had; `resolve_chain(data, where, find)` follows
`base:` (one name or a list, applied in order) through `find(name, where) -> (dict, where)` and
raises ConfigError naming the chain on a cycle. TOML and JSON always; YAML when PyYAML is installed.

Usage:

    >>> merge({"global": {"model_name": "a", "invoker": "scripted"}}, {"global": {"model_name": "b"}})
    {'global': {'model_name': 'b', 'invoker': 'scripted'}}
    >>> configs = {"base": {"global": {"invoker": "scripted"}}, "child": {"base": "base", "tactic_type": "t"}}
    >>> resolve_chain(configs["child"], "child", lambda name, where: (configs[name], name))
    {'global': {'invoker': 'scripted'}, 'tactic_type': 't'}
"""

from __future__ import annotations

import json
import os
import tomllib

__all__ = ["ConfigError", "load_config_file", "merge", "resolve_chain", "CONFIG_SUFFIXES"]

CONFIG_SUFFIXES = (".toml", ".json", ".yaml", ".yml")


class ConfigError(ValueError):
    """A configuration file or reference is wrong; the message names the file, key or name."""


# ---- reading one file --------------------------------------------------------------------------

def load_config_file(path: str) -> dict:
    if not os.path.isfile(path):
        raise ConfigError(f"config file not found: {path}")
    with open(path, "rb") as f:
        raw = f.read()
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix == ".toml":
            data = tomllib.loads(raw.decode("utf-8"))
        elif suffix == ".json":
            data = json.loads(raw.decode("utf-8"))
        elif suffix in (".yaml", ".yml"):
            try:
                import yaml   # optional: YAML configs need PyYAML
            except ImportError:
                raise ConfigError(f"{path}: reading YAML needs PyYAML (pip install pyyaml), or use .toml/.json") from None
            data = yaml.safe_load(raw.decode("utf-8"))
        else:
            raise ConfigError(f"{path}: unknown config type {suffix!r} (use one of {CONFIG_SUFFIXES})")
    except ConfigError:
        raise
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except Exception as exc:   # tomllib.TOMLDecodeError and yaml.YAMLError both say where
        raise ConfigError(f"{path}: invalid {suffix[1:].upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config must be a table/object at the top level, got {type(data).__name__}")
    return data


# ---- merging ------------------------------------------------------------------------------------

# --8<-- [start:merge]
def merge(base: dict, override: dict) -> dict:
    """A new dict: `override` on top of `base`, dicts merged recursively, everything else replaced."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def resolve_chain(data: dict, where: str, find, seen: tuple = ()) -> dict:
    """`data` merged on top of its `base:` configs (found with `find(name, where)`), recursively."""
    chain = (*seen, where)
    bases = data.get("base") or []
    bases = [bases] if isinstance(bases, str) else bases
    if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
        raise ConfigError(f"{where}: 'base' must be a config name or a list of names, got {data.get('base')!r}")
    merged: dict = {}
    for name in bases:
        parent, parent_where = find(name, where)
        if parent_where in chain:
            raise ConfigError(f"cycle in base: {' -> '.join([*chain, parent_where])}")
        merged = merge(merged, resolve_chain(parent, parent_where, find, chain))
    return merge(merged, {k: v for k, v in data.items() if k != "base"})
# --8<-- [end:merge]
