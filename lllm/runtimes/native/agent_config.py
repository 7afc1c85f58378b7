"""Layer 3 · an Agent from a config: `build_agent(name, config, runtime=None) -> Agent`.

Read `agent.py` and `config.py` first. A tactic's config lists its agents under `agent_configs`,
each merged over the `global` section. Built with a `Runtime` (runtime.py), an agent may name its
system prompt, its tools and its invoker by reference (`system_prompt_path = "pkg:briefs/writer"`,
`tools = ["research_kit.tools:search"]`); built without one, the config must say everything
inline, and a reference is a clear ConfigError that says to pass a runtime. Nothing here reaches
for a default runtime.

Usage:

    >>> config = {"global": {"invoker": "scripted", "invoker_config": {"replies": ["hello"]}},
    ...           "agent_configs": [{"name": "writer", "system_prompt": "You write."}]}
    >>> agent = build_agent("writer", config)
    >>> agent.name, agent.system_prompt.prompt
    ('writer', 'You write.')
"""

from __future__ import annotations

from lllm.runtimes.native.agent import Agent
from lllm.runtimes.native.invokers.builtin import BUILTIN_INVOKERS, build_invoker
from lllm.runtimes.native.core.config import ConfigError
from lllm.runtimes.native.core.prompt import Prompt
from lllm.runtimes.native.core.tools import Function

__all__ = ["AGENT_KEYS", "build_agent"]

AGENT_KEYS = {"name", "system_prompt", "system_prompt_path", "model_name", "invoker", "invoker_config", "model_args",
              "tools", "max_exception_retry", "max_interrupt_steps"}


# --8<-- [start:build_agent]
def build_agent(name: str, config: dict, session_log: list | None = None, runtime=None) -> Agent:
    """Agent `name` from `config`: its agent_configs entry merged over the `global` section."""
    entries = [a for a in config.get("agent_configs", []) if a.get("name") == name]
    if not entries:
        raise ConfigError(f"agent_configs has no agent named {name!r}")
    settings = {**config.get("global", {}), **entries[0]}
    unknown = sorted(set(entries[0]) - AGENT_KEYS)
    if unknown:
        raise ConfigError(f"agent_configs[{name}]: unknown key(s) {unknown} (known: {sorted(AGENT_KEYS)})")
    if "system_prompt" in settings:
        system = Prompt(path=f"{name}/system", prompt=settings["system_prompt"])
    elif "system_prompt_path" in settings:
        system = _needs(runtime, name, "system_prompt_path").lookup("prompts", settings["system_prompt_path"])[1]
    else:
        raise ConfigError(f"agent_configs[{name}]: set system_prompt (text) or system_prompt_path (a name)")
    system = system.extend(path=system.path, function_list=system.function_list + tuple(settings.get("tools", ())))
    if runtime is not None:
        system = runtime.resolve_prompt(system)
    elif any(not (isinstance(f, Function) and f.is_bound) for f in system.function_list):
        _needs(None, name, "a tool named by reference (or a declaration without code)")
    invoker = build_invoker(settings.get("invoker"), settings.get("invoker_config"),
                            runtime.invokers if runtime is not None else BUILTIN_INVOKERS)
    return Agent(name, system, invoker, model_name=settings.get("model_name", ""),
                 model_args=settings.get("model_args"), session_log=session_log,
                 max_exception_retry=settings.get("max_exception_retry", 3),
                 max_interrupt_steps=settings.get("max_interrupt_steps", 5))
# --8<-- [end:build_agent]


def _needs(runtime, name: str, what: str):
    if runtime is None:
        raise ConfigError(f"agent_configs[{name}]: {what} needs a runtime to resolve it: build the tactic "
                          "with build_tactic(config, runtime) or pass runtime= (load_runtime() returns one)")
    return runtime
