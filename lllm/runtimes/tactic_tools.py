"""Layer 3 · tactic_as_tool: any protocol Tactic as a plain, typed Python callable (what Pydantic AI's tools take).

Read `lllm/protocol/tactic.py` first. The native runtime has its own bridge (`tactic_as_function`,
a native `Function`); this one gives a bare function, which is what Pydantic AI, and most other
agent libraries, register as a tool.

Contract: `tactic_as_tool(tactic, name=None, parameter_mode="input")` returns a function named
`name` (spaces become `_`; None means the tactic's name) whose docstring is the tactic's
description. With `parameter_mode="input"` it takes the input as one argument; with "kwargs" (for
a Pydantic-model input) it takes the model's fields as keyword arguments, and its `__signature__`
lists them, so a tool schema can be read from it. Calling it calls `tactic.run`.

Usage:

    >>> from lllm.runtimes.function_tactic import as_tactic
    >>> def shout(text: str) -> str:
    ...     "Shout the text."
    ...     return text.upper()
    >>> tool = tactic_as_tool(as_tactic(shout), name="shout it")
    >>> tool.__name__, tool("hi"), tool.__doc__
    ('shout_it', 'HI', 'Shout the text.')
"""

from __future__ import annotations

import inspect
import re

from pydantic import BaseModel

__all__ = ["tactic_as_tool", "tool_name"]


def tool_name(name) -> str:
    """`"answer tool"` -> `"answer_tool"`; a blank, padded or non-string name is a ValueError."""
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        raise ValueError(f"tool name must be non-empty text without surrounding spaces, got {name!r}")
    return re.sub(r"\W+", "_", name)


def tactic_as_tool(tactic, *, name=None, parameter_mode: str = "input"):
    if parameter_mode not in ("input", "kwargs"):
        raise ValueError(f"parameter_mode must be 'input' or 'kwargs', got {parameter_mode!r}")
    model = tactic.input_type
    if parameter_mode == "kwargs":
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise TypeError(f"parameter_mode='kwargs' needs a Pydantic model input, {tactic.tactic_name!r} "
                            f"takes {model!r}")

        def tool(**fields):
            return tactic.run(fields)
        tool.__signature__ = inspect.Signature([
            inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, annotation=info.annotation,
                              default=inspect.Parameter.empty if info.is_required() else info.default)
            for field, info in model.model_fields.items()])
    else:
        def tool(input_value):
            return tactic.run(input_value)
        tool.__signature__ = inspect.Signature([inspect.Parameter(
            "input_value", inspect.Parameter.POSITIONAL_OR_KEYWORD,
            annotation=model if model is not None else inspect.Parameter.empty)])
    # typing.get_type_hints reads __annotations__ (Pydantic AI builds the tool's schema from them)
    tool.__annotations__ = {p.name: p.annotation for p in tool.__signature__.parameters.values()
                            if p.annotation is not inspect.Parameter.empty}
    if tactic.output_type is not None:
        tool.__annotations__["return"] = tactic.output_type
    tool.__name__ = tool.__qualname__ = tool_name(tactic.tactic_name if name is None else name)
    tool.__doc__ = tactic.description or None
    return tool
