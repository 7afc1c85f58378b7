"""Layer 3 · Runtime: what exists (prompts, tools, tactics, proxies, configs, invokers), by namespaced name.

Read `config.py` and `tactic.py` first. An `lllm.toml` package declares folders; `load_runtime()`
reads them and Python code then refers to resources by name instead of import path:

    pkg.section:key   e.g. research_kit.tools:search, research_kit.prompts:briefs/writer
    pkg:key           the section is implied by where the name is used
    key               any package, if exactly one has it

Discovery: `prompts/` (*.md and *.txt files are templates keyed by their path without suffix;
Prompt objects in *.py are keyed `<module path>/<prompt.path>`), `tools/` (Function objects,
keyed by name), `tactics/` (Tactic subclasses, by `name`), `proxies/` (BaseProxy subclasses, by
`path`), `configs/` (*.toml, *.json, *.yaml by path without suffix). `[dependencies] paths = [...]`
loads other packages. Python files are imported when the runtime loads, never at lllm import time.

The one deliberate global: `load_runtime()` also makes its Runtime the default used by the
functions `resolve_config` and `build_tactic`, as in upstream LLLM (pass `runtime=` to avoid it;
`default_runtime()` is an empty Runtime until then). A Tactic never reaches for it: it is given
its runtime, or builds its agents from inline config alone (agent_config.py).

Usage:

    >>> runtime = Runtime()
    >>> runtime.register_invoker("echo", lambda config: None)
    >>> sorted(runtime.invokers)
    ['echo', 'http', 'predictor', 'scripted', 'tinyllm']
    >>> split_ref("research_kit.tools:search"), split_ref("kit:briefs/writer"), split_ref("writer")
    (('research_kit', 'tools', 'search'), ('kit', None, 'briefs/writer'), (None, None, 'writer'))
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tomllib

from lllm.runtimes.native.agent import Agent
from lllm.runtimes.native.agent_config import build_agent
from lllm.runtimes.native.core.config import CONFIG_SUFFIXES, ConfigError, load_config_file, resolve_chain
from lllm.runtimes.native.invokers.builtin import BUILTIN_INVOKERS
from lllm.runtimes.native.core.prompt import Prompt
from lllm.runtimes.native.proxies.base import BaseProxy, ProxyManager
from lllm.runtimes.native.tactic import Tactic, tactic_as_function
from lllm.runtimes.native.core.tools import Function, ToolError

__all__ = ["Runtime", "load_runtime", "default_runtime", "resolve_config", "build_tactic", "register_invoker", "split_ref"]

SECTIONS = ("prompts", "tools", "tactics", "proxies", "configs")


def split_ref(ref: str) -> tuple[str | None, str | None, str]:
    if not isinstance(ref, str) or not ref:
        raise ConfigError(f"a reference must be a non-empty string, got {ref!r}")
    if ":" not in ref:
        return None, None, ref
    left, _, key = ref.partition(":")
    pkg, _, section = left.partition(".")
    return pkg or None, section or None, key


# ---- the runtime --------------------------------------------------------------------------------------

class Runtime:
    def __init__(self):
        self.packages: dict[str, str] = {}                               # name -> folder
        self.resources = {section: {} for section in SECTIONS}          # section -> {(pkg, key): object}
        self.invokers = dict(BUILTIN_INVOKERS)

    def register_invoker(self, name: str, builder) -> None:
        """Make `builder(invoker_config) -> invoker` available as `global.invoker = name`."""
        if not callable(builder):
            raise TypeError(f"register_invoker({name!r}, ...): the builder must be callable")
        self.invokers[name] = builder

    def lookup(self, section: str, ref: str, allowed=None):
        """(section, object) for `ref`; a missing or ambiguous name is a ConfigError listing what exists."""
        pkg, explicit, key = split_ref(ref)
        sections = [explicit] if explicit else list(allowed or [section])
        if explicit and explicit not in SECTIONS:
            raise ConfigError(f"reference {ref!r}: unknown section {explicit!r} (sections: {list(SECTIONS)})")
        found = [(s, obj) for s in sections for (p, k), obj in self.resources[s].items()
                 if k == key and (pkg is None or p == pkg)]
        if not found:
            known = sorted(f"{p}.{s}:{k}" for s in sections for (p, k) in self.resources[s])
            raise ConfigError(f"no {section[:-1]} named {ref!r} (known: {known})")
        if len(found) > 1:
            raise ConfigError(f"{ref!r} is ambiguous: several packages have it; write pkg.{section}:{key}")
        return found[0]

    # ---- resources the agents need ----------------------------------------------------------------------

    def prompt(self, ref: str) -> Prompt:
        return self.resolve_prompt(self.lookup("prompts", ref)[1])

    get_prompt = prompt                                                  # lllm-core's name

    def register_prompt(self, prompt: Prompt, package: str = "") -> None:
        """Add a Prompt built in code (not read from a package folder), found by its path."""
        if not isinstance(prompt, Prompt):
            raise TypeError(f"register_prompt expects a Prompt, got {type(prompt).__name__}")
        self.resources["prompts"][(package, prompt.path)] = prompt

    def tools(self, ref) -> list[Function]:
        """The Functions one tools entry stands for: a tool, a tactic (as a tool) or a proxy (two tools)."""
        if isinstance(ref, Function):
            return [ref]
        section, obj = self.lookup("tools", ref, allowed=("tools", "tactics", "proxies"))
        if section == "tactics":
            mark = getattr(obj.call, "__lllm_tactictool__", {})
            config = mark.get("config")
            config = resolve_config(config, self) if isinstance(config, str) else config
            return [tactic_as_function(obj(config, self))]
        if section == "proxies":
            return ProxyManager([obj]).tools()
        return [obj]

    def resolve_prompt(self, prompt: Prompt) -> Prompt:
        """`prompt` with references resolved and bare declarations bound to the tool of the same name."""
        functions = []
        for item in prompt.function_list:
            if isinstance(item, Function) and not item.is_bound:
                try:
                    item = item.bind(self.lookup("tools", item.name)[1])
                except ConfigError:
                    raise ToolError(f"prompt {prompt.path!r} declares tool {item.name!r} but no tools/ folder "
                                    f"defines a tool with exactly that name") from None
                functions.append(item)
            else:
                functions.extend(self.tools(item))
        return prompt.extend(path=prompt.path, function_list=tuple(functions))

    def build_agent(self, name: str, config: dict, session_log: list | None = None) -> Agent:
        """Agent `name` from `config`, with this runtime's prompts, tools and invokers (agent_config.py)."""
        return build_agent(name, config, session_log, runtime=self)

    # ---- discovery ---------------------------------------------------------------------------------------

    def load_package(self, folder: str) -> str:
        manifest = os.path.join(folder, "lllm.toml")
        try:
            with open(manifest, "rb") as f:
                data = tomllib.load(f)
        except FileNotFoundError:
            raise ConfigError(f"no lllm.toml in {os.path.abspath(folder)}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{manifest}: invalid TOML: {exc}") from None
        name = data.get("package", {}).get("name")
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(f"{manifest}: [package] name must be an identifier, got {name!r}")
        if name in self.packages:
            return name
        self.packages[name] = os.path.abspath(folder)
        for dep in data.get("dependencies", {}).get("paths", []):
            self.load_package(os.path.join(folder, dep))
        for section in SECTIONS:
            declared = data.get(section, {}).get("paths")
            paths = declared if declared is not None else ([section] if os.path.isdir(os.path.join(folder, section)) else [])
            for path in paths:
                root = os.path.join(folder, path)
                if not os.path.isdir(root):
                    raise ConfigError(f"{manifest}: [{section}] path {path!r} is not a folder")
                self._discover(name, section, root)
        return name

    def _discover(self, pkg: str, section: str, root: str) -> None:
        store = self.resources[section]
        for folder, _dirs, files in sorted(os.walk(root)):
            for file in sorted(files):
                path = os.path.join(folder, file)
                stem, suffix = os.path.splitext(os.path.relpath(path, root).replace(os.sep, "/"))
                if section == "configs" and suffix in CONFIG_SUFFIXES:
                    store[(pkg, stem)] = path
                elif section == "prompts" and suffix in (".md", ".txt"):
                    with open(path, encoding="utf-8") as f:
                        store[(pkg, stem)] = Prompt(path=stem, prompt=f.read().strip())
                elif suffix == ".py" and not file.startswith("_"):
                    for obj in _module_objects(f"lllm_packages.{pkg}.{section}.{stem.replace('/', '.')}", path):
                        if section == "prompts" and isinstance(obj, Prompt):
                            store[(pkg, f"{stem}/{obj.path}")] = obj
                        elif section == "tools" and isinstance(obj, Function):
                            store[(pkg, obj.name)] = obj
                        elif section == "tactics" and isinstance(obj, type) and issubclass(obj, Tactic) and obj is not Tactic:
                            store[(pkg, obj.name or obj.__name__)] = obj
                        elif section == "proxies" and isinstance(obj, type) and issubclass(obj, BaseProxy) and obj.path:
                            store[(pkg, obj.path)] = obj


def _module_objects(module_name: str, path: str) -> list:
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module       # dataclasses and pickling look modules up by name
    spec.loader.exec_module(module)
    return list(vars(module).values())


# ---- the default runtime and the seed's functions ---------------------------------------------------

_default: list[Runtime] = []


def default_runtime() -> Runtime:
    if not _default:
        _default.append(Runtime())
    return _default[0]


def load_runtime(path: str = ".") -> Runtime:
    """Read the lllm.toml package at `path` (and its dependencies); it becomes the default runtime."""
    runtime = Runtime()
    runtime.load_package(path)
    _default[:] = [runtime]
    return runtime


def register_invoker(name: str, builder, runtime: Runtime | None = None) -> None:
    (runtime or default_runtime()).register_invoker(name, builder)


def resolve_config(config, runtime: Runtime | None = None) -> dict:
    """A config (a name like "default" or "pkg:default", a file path, or a dict) with its base chain merged."""
    runtime = runtime or default_runtime()

    def find(name, where):
        if os.path.isfile(name):
            return load_config_file(name), os.path.abspath(name)
        here = os.path.dirname(where) if os.path.isfile(where) else ""
        for suffix in ("", *CONFIG_SUFFIXES):
            if here and os.path.isfile(os.path.join(here, name + suffix)):
                path = os.path.abspath(os.path.join(here, name + suffix))
                return load_config_file(path), path
        path = runtime.lookup("configs", name)[1]
        return load_config_file(path), os.path.abspath(path)
    if isinstance(config, dict):
        return resolve_chain(config, "<dict>", find)
    return resolve_chain(*find(config, ""), find)


def build_tactic(config: dict, runtime: Runtime | None = None) -> Tactic:
    """The tactic named by `config["tactic_type"]`, configured with `config`."""
    runtime = runtime or default_runtime()
    if "tactic_type" not in config:
        raise ConfigError("config has no 'tactic_type' (the name of a tactic in a tactics/ folder)")
    return runtime.lookup("tactics", config["tactic_type"])[1](config, runtime)
