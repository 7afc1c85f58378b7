"""Layer 3 · Tactic: the program — takes a task, wires agents together in plain Python, returns a result.

Read `agent.py` first; `runtime.py` next (how a config names prompts, tools and invokers).

Contract: subclass, set `name` and `agent_group`, write `call(self, task)`. `tactic(task)` makes a
fresh copy of the tactic with fresh agents (built from the config's `agent_configs` and `global`
sections) and fresh dialogs, validates the input against `input_type` and the result against
`output_type` (dataclasses always, Pydantic models when installed), and returns the result — or,
with `return_session=True`, a `TacticCallSession` holding every agent call, every sub-tactic call,
the cost and `summary()`. `bcall(tasks)` runs many tasks (threads in CPython, one after another
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

from lllm.runtimes.native.agent_config import build_agent
from lllm.runtimes.native.invokers import Cost
from lllm.runtimes.native.schemas import coerce, is_pydantic_model, json_schema
from lllm.runtimes.native.tools import Function, result_text

__all__ = ["Tactic", "TacticCallSession", "TacticInfo", "tactictool", "tactic_as_function"]


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

    def summary(self) -> str:
        cost = self.cost
        lines = [f"{self.tactic}: {self.state}, {len(self.agent_sessions)} agent call(s), "
                 f"{len(self.sub_sessions)} sub-tactic call(s), {cost.calls} model call(s), {cost.total_tokens} tokens"]
        lines += [f"  {s.summary()}" for s in self.agent_sessions]
        lines += ["  " + line for s in self.sub_sessions for line in s.summary().split("\n")]
        return "\n".join(lines + ([f"  error: {self.error}"] if self.error else []))


@dataclasses.dataclass
class TacticInfo:
    name: str
    description: str
    runtime_kind: str
    agent_group: list
    input_schema: dict
    output_schema: dict


# ---- the tactic ---------------------------------------------------------------------------------------

class Tactic:
    name: str = ""
    agent_group: list = []
    input_type = None
    output_type = None
    sub_tactics: dict = {}          # name -> Tactic subclass; built fresh per call into self.tactics
    runtime_kind = "native"

    def __init__(self, config: dict | None = None, runtime=None, *, parent_session: TacticCallSession | None = None):
        self.config = dict(config or {})
        self.runtime = runtime
        self.name = self.name or type(self).__name__
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
        raise NotImplementedError(f"tactic {self.name!r} must define call(self, task)")

    # --8<-- [start:dunder_call]
    def __call__(self, task, return_session: bool = False):
        run = copy.copy(self)                   # fresh agents and dialogs per call: tactics are stateless
        task = run._validate(task, self.input_type, "input")
        run.session = TacticCallSession(self.name, task)
        run._build(run.session)
        if self._parent_session is not None:
            self._parent_session.sub_sessions.append(run.session)
        try:
            delivery = run._validate(run.call(task), self.output_type, "output")
        except Exception as exc:
            run.session.state, run.session.error = "failed", f"{type(exc).__name__}: {exc}"
            exc.session = run.session
            raise
        run.session.delivery, run.session.state = delivery, "success"
        return run.session if return_session else delivery
    # --8<-- [end:dunder_call]

    run = __call__

    def _build(self, session: TacticCallSession) -> None:
        self.agents = {name: (self.runtime.build_agent(name, self.config, session.agent_sessions) if self.runtime
                              else build_agent(name, self.config, session.agent_sessions))   # inline config only
                       for name in self.agent_group}
        sub_configs = self.config.get("sub_tactic_configs", {})
        self.tactics = {name: cls(sub_configs.get(name, self.config), self.runtime, parent_session=session)
                        for name, cls in self.sub_tactics.items()}

    def validate_input(self, task):
        """`task` as `input_type` (TypeError naming the field when it does not fit)."""
        return self._validate(task, self.input_type, "input")

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
        in_type = self.input_type or _call_annotation(type(self))
        out_type = self.output_type
        return TacticInfo(self.name, inspect.getdoc(type(self)) or "", self.runtime_kind, list(self.agent_group),
                          json_schema(in_type) if in_type else {}, json_schema(out_type) if out_type else {})

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


def tactic_as_function(tactic: Tactic, name: str | None = None, description: str | None = None) -> Function:
    """A bound Function that runs `tactic` on the model's arguments (a fresh call each time)."""
    mark = getattr(type(tactic).call, "__lllm_tactictool__", {})
    model = tactic.input_type or _call_annotation(type(tactic))
    if isinstance(model, type) and (dataclasses.is_dataclass(model) or is_pydantic_model(model)):
        schema = json_schema(model)
        properties, required = schema.get("properties", {}), schema.get("required", [])

        def run(**arguments):
            return result_text(tactic(coerce(arguments, model, f"{tactic.name} input")))
    else:
        properties, required = {"task": {"type": "string", "description": "the task"}}, ["task"]

        def run(task):
            return result_text(tactic(task))
    text = description or mark.get("description") or inspect.getdoc(type(tactic)) or f"Run the {tactic.name} tactic."
    return Function(name or mark.get("name") or tactic.name, text, properties, required, implementation=run)
# --8<-- [end:tactictool]
