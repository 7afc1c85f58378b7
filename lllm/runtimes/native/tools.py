"""Layer 3 · tools: a Function is a JSON-schema declaration the model sees, optionally bound to Python.

Read `schemas.py` first; `prompt.py` next (a Prompt's `function_list` holds Functions).

Contract: `Function(name, description, properties, required)` is what the model is offered;
`function.bind(implementation)` returns a *new* Function that can run; `function(**arguments)`
checks the arguments against the schema and runs it. `@tool(...)` builds a bound Function from a
type-hinted Python function. A `FunctionCall` records one call the model asked for, and its result.

Declaring and implementing are separate on purpose: a prompt may carry a bare declaration, and the
runtime binds it to the `@tool` with exactly the same name (a different name fails loudly).

Usage:

    >>> @tool(description="Evaluate an arithmetic expression", prop_desc={"expr": "e.g. 2*(3+4)"})
    ... def calc(expr: str) -> str:
    ...     return str(eval(expr, {"__builtins__": {}}))
    >>> calc.schema()["function"]["parameters"]["properties"]
    {'expr': {'type': 'string', 'description': 'e.g. 2*(3+4)'}}
    >>> calc(expr="17*23")
    '391'
    >>> calc.check_arguments({"expr": 17})
    "argument 'expr' of calc: expected string, got int 17"
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import typing
from typing import Callable

from lllm.runtimes.native.schemas import coerce, json_schema, to_jsonable

__all__ = ["Function", "FunctionCall", "tool", "ToolError"]

_JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict,
               "array": list, "null": type(None)}


class ToolError(ValueError):
    """A tool was declared or bound wrongly (our code's error, not the model's)."""


# ---- a declaration -------------------------------------------------------------------------------------

# --8<-- [start:function]
@dataclasses.dataclass(frozen=True)
class Function:
    """One tool as the model sees it; `implementation` is None for a bare declaration."""

    name: str
    description: str = ""
    properties: dict = dataclasses.field(default_factory=dict)   # argument name -> JSON schema
    required: list = dataclasses.field(default_factory=list)
    implementation: Callable | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ToolError(f"Function name must be an identifier, got {self.name!r}")
        missing = [r for r in self.required if r not in self.properties]
        if missing:
            raise ToolError(f"Function {self.name!r}: required {missing} not in properties {list(self.properties)}")

    def schema(self) -> dict:
        """The OpenAI-style tool schema sent to chat models."""
        parameters = {"type": "object", "properties": self.properties, "required": list(self.required)}
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": parameters}}
    # --8<-- [end:function]

    @property
    def is_bound(self) -> bool:
        return self.implementation is not None

    def bind(self, implementation: "Function | Callable") -> "Function":
        """A copy of this declaration that runs `implementation` (a @tool Function or a plain callable)."""
        if isinstance(implementation, Function):
            if implementation.name != self.name:
                raise ToolError(f"cannot bind declaration {self.name!r} to tool {implementation.name!r}: "
                                f"names must match exactly")
            implementation = implementation.implementation
        if not callable(implementation):
            raise ToolError(f"cannot bind {self.name!r}: {implementation!r} is not callable")
        params = inspect.signature(implementation).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        unknown = [name for name in self.properties if name not in params and not takes_any]
        if unknown:
            raise ToolError(f"cannot bind {self.name!r}: the implementation does not accept {unknown}")
        return dataclasses.replace(self, implementation=implementation)

    # ---- calling ----------------------------------------------------------------------------------------

    def check_arguments(self, arguments: dict) -> str | None:
        """What is wrong with `arguments` (written for the model to read), or None when they fit."""
        if not isinstance(arguments, dict):
            return f"arguments of {self.name} must be a JSON object, got {type(arguments).__name__}"
        for name in self.required:
            if name not in arguments:
                return f"missing required argument {name!r} of {self.name}"
        for name, value in arguments.items():
            if name not in self.properties:
                return f"unknown argument {name!r} of {self.name} (arguments: {list(self.properties)})"
            expected = self.properties[name].get("type")
            python_type = _JSON_TYPES.get(expected)
            if python_type and (not isinstance(value, python_type) or (expected != "boolean" and isinstance(value, bool))):
                return f"argument {name!r} of {self.name}: expected {expected}, got {type(value).__name__} {value!r}"
        return None

    def __call__(self, **arguments):
        if self.implementation is None:
            raise ToolError(f"tool {self.name!r} is declared but not bound to an implementation")
        return self.implementation(**arguments)


# ---- a call the model asked for --------------------------------------------------------------------

@dataclasses.dataclass
class FunctionCall:
    """One requested call: name, JSON arguments, an id (to pair it with its result), then the outcome."""

    name: str
    arguments: dict = dataclasses.field(default_factory=dict)
    id: str = ""
    result: str | None = None
    error: str | None = None
    cached: bool = False

    def key(self) -> str:
        """Two calls with the same key are the same request (used by the repeated-call guard)."""
        return f"{self.name}:{json.dumps(self.arguments, sort_keys=True)}"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def result_text(value) -> str:
    """A tool's return value as the text the model reads (dataclasses and models as JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable(value), ensure_ascii=False)


# ---- @tool: a Function from a type-hinted Python function ------------------------------------------

# --8<-- [start:tool]
def tool(func: Callable | None = None, *, description: str | None = None, prop_desc: dict | None = None,
         name: str | None = None):
    """Decorator: `@tool` or `@tool(description=..., prop_desc={arg: text}, name=...)` -> a bound Function.

    The schema comes from the type hints; a parameter without a default is required. A single
    parameter typed as a dataclass or Pydantic model makes that model's fields the arguments.
    """
    def build(f: Callable) -> Function:
        hints = typing.get_type_hints(f)
        params = [p for p in inspect.signature(f).parameters.values() if p.name != "self"]
        notes = dict(prop_desc or {})
        unknown = sorted(set(notes) - {p.name for p in params})
        if unknown:
            raise ToolError(f"@tool on {f.__name__}: prop_desc names unknown parameters {unknown}")
        if len(params) == 1 and _is_model(hints.get(params[0].name)):
            return _model_tool(f, hints[params[0].name], name, description)
        properties, required = {}, []
        for p in params:
            schema = json_schema(hints.get(p.name, str))
            if p.name in notes:
                schema = {**schema, "description": notes[p.name]}
            properties[p.name] = schema
            if p.default is inspect.Parameter.empty:
                required.append(p.name)
        text = description if description is not None else inspect.getdoc(f) or ""
        return Function(name or f.__name__, text, properties, required, implementation=f)
    return build(func) if func is not None else build
# --8<-- [end:tool]


def _is_model(tp) -> bool:
    return isinstance(tp, type) and (dataclasses.is_dataclass(tp) or hasattr(tp, "model_json_schema"))


def _model_tool(f, model, name, description) -> Function:
    schema = json_schema(model)
    param = next(iter(p for p in inspect.signature(f).parameters if p != "self"))

    def run(**arguments):
        return f(**{param: coerce(arguments, model, param)})
    text = description if description is not None else inspect.getdoc(f) or ""
    return Function(name or f.__name__, text, schema.get("properties", {}), schema.get("required", []),
                    implementation=run)
