"""Layer 3 · a function as a tactic: `as_tactic(fn)` makes a plain Python function a protocol Tactic, typed by its annotations.

Read `lllm/protocol/tactic.py` first.

Contract: `as_tactic(fn, name=..., description=..., ...)` returns a `CallableTactic` whose input
type is the annotation of `fn`'s first parameter and whose output type is its return annotation;
`run(value)` validates both. `fn` receives `context=` only when it declares that parameter.

Usage:

    >>> def shout(text: str) -> str:
    ...     return text.upper()
    >>> tactic = as_tactic(shout, description="Uppercase text.")
    >>> tactic.run("hi"), tactic.info().input_schema
    ('HI', {'type': 'string'})
"""

from __future__ import annotations

import inspect
import typing

from lllm.protocol.tactic import Tactic

__all__ = ["CallableTactic", "as_tactic"]


class CallableTactic(Tactic):
    """A protocol Tactic around one function (see `as_tactic`)."""

    def __init__(self, fn, *, input_type=None, output_type=None, **protocol):
        if not callable(fn):
            raise TypeError(f"as_tactic needs a callable, got {type(fn).__name__}")
        protocol.setdefault("name", getattr(fn, "__name__", "") or type(fn).__name__)
        protocol.setdefault("description", inspect.getdoc(fn) or "")
        super().__init__(**protocol)
        self.fn = fn
        parameters = list(inspect.signature(fn).parameters.values())
        hints = typing.get_type_hints(fn)
        first = next((p.name for p in parameters if p.name != "context"), None)
        self.input_type = input_type if input_type is not None else hints.get(first)
        self.output_type = output_type if output_type is not None else hints.get("return")
        self.takes_context = any(p.name == "context" or p.kind is p.VAR_KEYWORD for p in parameters)

    def _run(self, input_value, *, context=None):
        return self.fn(input_value, context=context) if self.takes_context else self.fn(input_value)


def as_tactic(fn, *, name=None, description=None, input_type=None, output_type=None, **protocol) -> CallableTactic:
    """`fn` as a protocol Tactic; `protocol` takes package_ref, service_ref, examples and metadata."""
    if name is not None:
        protocol["name"] = name
    if description is not None:
        protocol["description"] = description
    return CallableTactic(fn, input_type=input_type, output_type=output_type, **protocol)
