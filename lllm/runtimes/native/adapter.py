"""Layer 3 · NativeTacticAdapter: any native-style object (a `call` or a `run` method) as a protocol Tactic.

Read `tactic.py` and `lllm/protocol/tactic.py` first. A native `Tactic` already is a protocol
Tactic; the adapter is for objects that only look like one (a class with `name`, `input_model` or
`input_type`, `output_type` and `call(task)`), and for passing fixed keyword arguments
(`run_kwargs`) on every call.

Contract: `NativeTacticAdapter(obj, run_kwargs=..., name=..., ...)`; `run(value, context=...)`
validates `value`, then calls `obj.call(task, **run_kwargs)` — with `context=` when `call`
declares it — or else `obj.run(task, **run_kwargs)`, with `metadata=` (the context's metadata
plus `lllm_trace_id` and `lllm_tags`) when `run` declares it. `stream` is bridged the same way.

Usage:

    >>> class Add:
    ...     name = "add"
    ...     input_type = dict
    ...     output_type = int
    ...     def call(self, task):
    ...         return task["left"] + task["right"]
    >>> NativeTacticAdapter(Add()).run({"left": 2, "right": 3})
    5
"""

from __future__ import annotations

import inspect

from lllm.protocol.tactic import Tactic as ProtocolTactic
from lllm.runtimes.native.tactic import Tactic as NativeTactic

__all__ = ["NativeTacticAdapter"]


def _accepts(method, name: str) -> bool:
    parameters = inspect.signature(method).parameters.values()
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in parameters)


class NativeTacticAdapter(ProtocolTactic):
    runtime_kind = "native"

    def __init__(self, native, *, run_kwargs: dict | None = None, **protocol):
        protocol.setdefault("name", getattr(native, "name", "") or type(native).__name__)
        protocol.setdefault("description", getattr(native, "description", "") or inspect.getdoc(type(native)) or "")
        super().__init__(**protocol)
        if run_kwargs is not None and not isinstance(run_kwargs, dict):
            raise TypeError(f"run_kwargs must be a dict, got {type(run_kwargs).__name__}")
        self.native = native
        self.run_kwargs = dict(run_kwargs or {})
        self.input_type = getattr(native, "input_model", None) or getattr(native, "input_type", None)
        self.output_type = getattr(native, "output_type", None)

    def _kwargs(self, method, context) -> dict:
        kwargs = dict(self.run_kwargs)
        if context is not None and _accepts(method, "context"):
            kwargs["context"] = context
        elif context is not None and _accepts(method, "metadata"):
            kwargs["metadata"] = {**context.metadata, "lllm_trace_id": context.trace_id, "lllm_tags": dict(context.tags)}
        return kwargs

    def _run(self, input_value, *, context=None):
        native = self.native
        if isinstance(native, NativeTactic):
            return native(input_value, **self._kwargs(type(native).call, context))   # fresh agents per call
        method = getattr(native, "call", None) or native.run
        return method(input_value, **self._kwargs(method, context))

    def stream(self, input_value, *, context=None):
        method = self.native.stream
        yield from method(self.validate_input(input_value), **self._kwargs(method, context))

    def capabilities(self) -> set[str]:
        return {"run", "arun"} | ({"stream"} if callable(getattr(self.native, "stream", None)) else set())
