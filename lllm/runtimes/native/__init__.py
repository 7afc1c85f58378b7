"""Layer 3 · the LLLM native runtime: Tactic, Agent, Prompt, Dialog, in pure Python.

Read in this order: `core/` (parsers -> tools -> prompt -> handlers -> dialog -> chat_format ->
config), `invokers/` (the model behind an Agent), `proxies/` (outside APIs as tools), then
`agent.py` -> `tactic.py` -> `agent_config.py` -> `runtime.py`, which put them together;
`sandbox/` (where run_python's code runs) and `composition/` (tactics by reference, remote
tactics, streams) last. `adapter.py` and `entrypoints.py` make any object a protocol Tactic.
Time travel over an Agent's or any Tactic's run (each Agent branch a fork of the run's dialog) is
in `lllm/timetravel/` (`native_agent.py`, `tactic.py`), with every other demo's.
Serving is in `lllm/services/`, new projects in `lllm/create/`, commands in `lllm/commands/`.

    Tactic   the program: takes a task, wires agents together, returns a result
    Agent    the caller: a system prompt, an invoker (the model) and the call loop
    Prompt   the function: one turn's template, parser, tools and handler
    Dialog   the mental state: append-only messages in a fork-able tree

Usage:

    >>> from lllm.runtimes.native import DefaultTagParser, Prompt
    >>> Prompt(path="p", prompt="Hi {name}", parser=DefaultTagParser(xml_tags=["a"]))(name="Ada")
    'Hi Ada'
"""

from lllm.runtimes.native.adapter import NativeTacticAdapter
from lllm.runtimes.native.agent import Agent, AgentCallError, AgentCallSession, Step
from lllm.runtimes.native.core.config import ConfigError
from lllm.runtimes.native.core.costs import InvokeCost, TokenLogprob
from lllm.runtimes.native.core.dialog import Dialog, DialogTree, DialogTreeNode, Message, Role
from lllm.runtimes.native.core.handlers import BaseHandler, DefaultSimpleHandler
from lllm.runtimes.native.invokers.builtin import BUILTIN_INVOKERS, build_invoker
from lllm.runtimes.native.invokers.base import Cost, InvokeResult, PredictorInvoker, ScriptedInvoker
from lllm.runtimes.native.core.parsers import BaseParser, DefaultTagParser, ParseError, find_md_blocks, find_xml_blocks
from lllm.runtimes.native.core.prompt import Prompt, PromptError
from lllm.runtimes.native.proxies.base import BaseProxy, ProxyManager, ProxyRegistrator
from lllm.runtimes.native.runtime import Runtime, build_tactic, default_runtime, load_runtime, register_invoker, resolve_config
from lllm.runtimes.native.tactic import Tactic, TacticCallSession, TacticInfo, tactic_as_function, tactictool
from lllm.runtimes.native.core.tools import Function, FunctionCall, ToolError, tool

__all__ = [
    "NativeTacticAdapter", "InvokeCost", "TokenLogprob",
    "Agent", "AgentCallError", "AgentCallSession", "Step", "ConfigError",
    "Dialog", "DialogTree", "DialogTreeNode", "Message", "Role",
    "BaseHandler", "DefaultSimpleHandler",
    "BUILTIN_INVOKERS", "Cost", "InvokeResult", "PredictorInvoker", "ScriptedInvoker",
    "BaseParser", "DefaultTagParser", "ParseError", "find_md_blocks", "find_xml_blocks",
    "Prompt", "PromptError", "BaseProxy", "ProxyManager", "ProxyRegistrator",
    "Runtime", "build_tactic", "default_runtime", "load_runtime", "register_invoker", "resolve_config",
    "Tactic", "TacticCallSession", "TacticInfo", "tactic_as_function", "tactictool",
    "Function", "FunctionCall", "ToolError", "tool",
]
