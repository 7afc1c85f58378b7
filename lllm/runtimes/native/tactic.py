"""Layer 3 · Tactic: the program — takes a task, wires agents together in plain Python, returns a result.

Read `agent.py` and `lllm/protocol/tactic.py` first; `runtime.py` next (how a config names
prompts, tools and invokers). A native Tactic *is* a protocol Tactic (`lllm.Tactic`): it can be
run with `run(value, context=..., return_trace=...)`, described with `info()` and served.

Contract: subclass, set `name` and `agent_group`, write `call(self, task)`. `tactic(task)` makes a
fresh copy of the tactic with fresh agents (built from the config's `agent_configs` and `global`
sections) and fresh dialogs, validates the input against `input_type` and the result against
`output_type` (dataclasses always, Pydantic models when installed), and returns the result — or,
with `return_session=True`, a `TacticCallSession` holding every agent call, every sub-tactic call,
the cost, `summary()` (a dict, as in lllm-core) and `report()` (the same as text). `bcall(tasks)` runs many tasks (threads in CPython, one after another
in Pyodide), results in task order. `@tactictool` and `tactic_as_function` make a tactic a tool.

Usage:

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class BriefIn:
    ...     topic: str
    ...     audience: str = "engineers"
    >>> @dataclass
    ... class BriefOut:
    ...     title: str
    >>> class Brief(Tactic):
    ...     name = "brief"
    ...     input_type = BriefIn
    ...     output_type = BriefOut
    ...     def call(self, task: BriefIn) -> BriefOut:
    ...         return BriefOut(title=f"{task.topic} for {task.audience}")
    >>> Brief()({"topic": "Dialogs"})
    BriefOut(title='Dialogs for engineers')
    >>> Brief().info().input_schema["required"]
    ['topic']
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import sys
import typing
from typing import TypeVar

from lllm.protocol.tactic import Tactic as ProtocolTactic
from lllm.protocol.tactic import TacticInfo, type_schema
from lllm.runtimes.native.agent_config import build_agent
from lllm.runtimes.native.invokers.base import Cost
from lllm.runtimes.native.core.schemas import coerce, is_pydantic_model, json_schema
from lllm.runtimes.native.core.tools import Function, result_text

__all__ = ["Tactic", "TacticCallSession", "TacticInfo", "tactictool", "tactic_as_function"]

InputT = TypeVar("InputT")
OutputT = TypeVar("OutputT")


# ---- the session: everything one tactic call did -----------------------------------------------

@dataclasses.dataclass
class TacticCallSession:
    tactic: str
    task: object
    delivery: object = None
    state: str = "running"          # "running" | "success" | "failed"
    error: str = ""
    agent_sessions: list = dataclasses.field(default_factory=list)   # AgentCallSession, in call order
    sub_sessions: list = dataclasses.field(default_factory=list)     # TacticCallSession of sub-tactics

    @property
    def cost(self):
        total = sum((s.cost for s in self.agent_sessions), start=Cost())
        return sum((s.cost for s in self.sub_sessions), start=total)

    def summary(self) -> dict:
        """What the call did, as lllm-core reports it: tactic, state, call counts and the total cost."""
        cost = self.cost
        return {"tactic": self.tactic, "state": self.state, "agent_calls": len(self.agent_sessions),
                "sub_tactic_calls": len(self.sub_sessions), "model_calls": cost.calls,
                "total_cost": {"prompt_tokens": cost.prompt_tokens, "completion_tokens": cost.completion_tokens,
                               "total_tokens": cost.total_tokens},
                **({"error": self.error} if self.error else {})}

    def report(self) -> str:
        """The same as text, one line per agent call and sub-tactic, for a terminal or a page."""
        cost = self.cost
        lines = [f"{self.tactic}: {self.state}, {len(self.agent_sessions)} agent call(s), "
                 f"{len(self.sub_sessions)} sub-tactic call(s), {cost.calls} model call(s), {cost.total_tokens} tokens"]
        lines += [f"  {s.summary()}" for s in self.agent_sessions]
        lines += ["  " + line for s in self.sub_sessions for line in s.report().split("\n")]
        return "\n".join(lines + ([f"  error: {self.error}"] if self.error else []))


# ---- the tactic ---------------------------------------------------------------------------------------

class Tactic(ProtocolTactic[InputT, OutputT]):
    name: str = ""
    agent_group: list = []
    sub_tactics: dict = {}          # name -> Tactic subclass; built fresh per call into self.tactics

    def __init__(self, config: dict | None = None, runtime=None, *, parent_session: TacticCallSession | None = None,
                 **protocol):
        super().__init__(**protocol)                    # name, description, refs, examples, metadata
        self.config = dict(config or {})
        self.runtime = runtime
        self.name = self.tactic_name
        named = [a.get("name") for a in self.config.get("agent_configs", [])]
        missing = [a for a in self.agent_group if a not in named]
        if missing:
            raise ValueError(f"tactic {self.name!r}: agent_configs has no entry for agent(s) {missing} "
                             f"(agent_group: {list(self.agent_group)}, configured: {named})")
        self._parent_session = parent_session
        self.agents: dict = {}
        self.tactics: dict = {}
        self.session: TacticCallSession | None = None

    def call(self, task):
        raise NotImplementedError(f"tactic {self.name!r} must define call(self, task) or _run(input_value, *, context)")

    @property
    def runtime_kind(self) -> str:
        """'native' for a tactic written with `call` (agents, dialogs); 'python' for one written with `_run`."""
        return "native" if type(self).call is not Tactic.call else "python"

    def _run(self, input_value, *, context=None):
        """The protocol entry (`run`, `arun`, a server): one native call, fresh agents and dialogs."""
        return self(input_value)

    # --8<-- [start:dunder_call]
    def __call__(self, task, return_session: bool = False, **call_kwargs):
        run = copy.copy(self)                   # fresh agents and dialogs per call: tactics are stateless
        task = run._validate(task, self.input_type, "input")
        run.session = TacticCallSession(self.name, task)
        run._build(run.session)
        if self._parent_session is not None:
            self._parent_session.sub_sessions.append(run.session)
        try:
            delivery = run._validate(run.call(task, **call_kwargs), self.output_type, "output")
        except Exception as exc:
            run.session.state, run.session.error = "failed", f"{type(exc).__name__}: {exc}"
            exc.session = run.session
            raise
        run.session.delivery, run.session.state = delivery, "success"
        return run.session if return_session else delivery
    # --8<-- [end:dunder_call]

    def _build(self, session: TacticCallSession) -> None:
        self.agents = {name: (self.runtime.build_agent(name, self.config, session.agent_sessions) if self.runtime
                              else build_agent(name, self.config, session.agent_sessions))   # inline config only
                       for name in self.agent_group}
        sub_configs = self.config.get("sub_tactic_configs", {})
        self.tactics = {name: cls(sub_configs.get(name, self.config), self.runtime, parent_session=session)
                        for name, cls in self.sub_tactics.items()}

    def _validate(self, value, tp, which: str):
        if tp is None:
            return value
        try:
            return coerce(value, tp, f"{self.name} {which}")
        except TypeError as exc:
            raise TypeError(f"tactic {self.name!r}: bad {which}: {exc}") from None

    # ---- many tasks --------------------------------------------------------------------------------------

    def bcall(self, tasks, max_workers: int = 4, return_session: bool = False) -> list:
        """Run every task; results in task order. Threads in CPython, sequential in Pyodide (no threads)."""
        tasks = list(tasks)
        if sys.platform == "emscripten" or max_workers <= 1 or len(tasks) <= 1:
            return [self(task, return_session) for task in tasks]
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=max_workers) as pool:
            return list(pool.map(lambda task: self(task, return_session), tasks))

    # ---- describing itself ---------------------------------------------------------------------------

    def info(self) -> TacticInfo:
        """The protocol's TacticInfo; a tactic without `input_type` is described by `call`'s annotation."""
        info = super().info()
        if self.input_type is None and type(self).call is not Tactic.call:
            info.input_schema = type_schema(_call_annotation(type(self)))
        if self.agent_group:
            info.metadata["agent_group"] = list(self.agent_group)
        return info

    def as_function(self, name: str | None = None, description: str | None = None) -> Function:
        return tactic_as_function(self, name=name, description=description)

    def as_tool(self):
        """A plain Python callable `tool(task) -> result` for other agent frameworks."""
        def run(task):
            return self(task)
        run.__name__, run.__doc__ = self.name, inspect.getdoc(type(self))
        return run


def _call_annotation(cls):
    params = [p for p in inspect.signature(cls.call).parameters.values() if p.name != "self"]
    if not params:
        return None
    return typing.get_type_hints(cls.call).get(params[0].name)


# ---- tactics as tools -------------------------------------------------------------------------------

# --8<-- [start:tactictool]
def tactictool(name: str | None = None, config: str | dict | None = None, description: str | None = None):
    """Mark a tactic's `call` as usable as a tool. Marking only: nothing is registered anywhere."""
    def mark(call):
        call.__lllm_tactictool__ = {"name": name, "config": config, "description": description}
        return call
    return mark


def tactic_as_function(tactic, name: str | None = None, description: str | None = None,
                       parameter_mode: str = "auto") -> Function:
    """A bound Function that runs `tactic` (native or any protocol Tactic) on the model's arguments.

    parameter_mode "kwargs": the input model's fields are the arguments; "task": one `task`
    argument; "auto": kwargs when the input is a dataclass or Pydantic model, else task.
    """
    if parameter_mode not in ("auto", "kwargs", "task"):
        raise ValueError(f"parameter_mode must be 'auto', 'kwargs' or 'task', got {parameter_mode!r}")
    native = isinstance(tactic, Tactic)
    mark = getattr(type(tactic).call, "__lllm_tactictool__", {}) if native else {}
    model = tactic.input_type or (_call_annotation(type(tactic)) if native else None)
    structured = isinstance(model, type) and (dataclasses.is_dataclass(model) or is_pydantic_model(model))
    mode = ("kwargs" if structured else "task") if parameter_mode == "auto" else parameter_mode
    deliver = tactic if native else tactic.run          # a fresh native call, or the protocol's run()
    if mode == "kwargs":
        if not structured:
            raise ValueError(f"parameter_mode='kwargs' needs an input model; {tactic.tactic_name!r} takes {model!r}")
        schema = json_schema(model)
        properties, required = schema.get("properties", {}), schema.get("required", [])

        def run(**arguments):
            return deliver(coerce(arguments, model, f"{tactic.tactic_name} input"))
    else:
        properties, required = {"task": {"type": "string", "description": "the task"}}, ["task"]

        def run(task):
            return deliver(task)
    text = (description or mark.get("description") or tactic.description or f"Run the {tactic.tactic_name} tactic.")
    return Function(name or mark.get("name") or tactic.tactic_name, text, properties, required, function=run)
# --8<-- [end:tactictool]
