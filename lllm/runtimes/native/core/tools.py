"""Layer 3 · tools: a Function is a JSON-schema declaration the model sees, optionally bound to Python.

Read `schemas.py` first; `prompt.py` next (a Prompt's `function_list` holds Functions).

Contract: `Function(name, description, properties, required)` is what the model is offered (a
frozen Pydantic model, as in lllm-core: a malformed name or schema is a `ValidationError`);
`function.bind(implementation)` returns a *new* Function that can run. Call it as lllm-core does,
`function(FunctionCall(name=..., arguments={...}))`, to get the call back with `result`,
`result_str` and `success`, or as `function(**arguments)` for the plain return value.
`@tool(...)` / `Function.from_callable(f)` build a bound Function from a type-hinted Python
function. A `FunctionCall` records one call the model asked for, and its outcome.

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
    >>> calc(FunctionCall(name="calc", arguments={"expr": "2+3"})).result_str.splitlines()
    ["Return of calling function calc with params {'expr': '2+3'}:", '5']
    >>> calc.check_arguments({"expr": 17})
    "argument 'expr' of calc: expected string, got int 17"
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import typing
from typing import Annotated, Any, Callable

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr

from lllm.protocol.validation import check_token, plain_mapping
from lllm.protocol.fields import Metadata
from lllm.runtimes.native.core.schemas import coerce, json_schema, to_jsonable

__all__ = ["Function", "FunctionCall", "tool", "ToolError"]

_JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict,
               "array": list, "null": type(None)}

ToolName = Annotated[StrictStr, BeforeValidator(lambda n: check_token(n, "tool name") if isinstance(n, str) else n)]
Schemas = Annotated[dict[StrictStr, dict[StrictStr, Any]],
                    BeforeValidator(lambda m: plain_mapping(m, "properties") if hasattr(m, "keys") else m)]


class ToolError(ValueError):
    """A tool was declared or bound wrongly (our code's error, not the model's)."""


# ---- a call the model asked for --------------------------------------------------------------------

class FunctionCall(BaseModel):
    """One requested call: name, JSON arguments, an id (to pair it with its result), then the outcome."""
    model_config = ConfigDict(extra="forbid", validate_assignment=True, revalidate_instances="always")

    name: ToolName
    arguments: Metadata = Field(default_factory=dict)
    id: StrictStr = ""
    result: Annotated[Any, BeforeValidator(copy.deepcopy)] = None   # what the tool returned (a copy)
    result_str: StrictStr | None = None  # the text the model reads
    error_message: StrictStr | None = None
    success: StrictBool | None = None    # None until it has run
    cached: StrictBool = False           # answered from the record by the repeated-call guard

    def key(self) -> str:
        """Two calls with the same key are the same request (used by the repeated-call guard)."""
        return f"{self.name}:{json.dumps(self.arguments, sort_keys=True, default=str)}"

    def to_dict(self) -> dict:
        return self.model_dump(mode="json")


def result_text(value) -> str:
    """A tool's return value as the text the model reads (dataclasses and models as JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable(value), ensure_ascii=False)


# ---- a declaration -------------------------------------------------------------------------------------

# --8<-- [start:function]
class Function(BaseModel):
    """One tool as the model sees it; `function` (the implementation) is None for a bare declaration."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: ToolName
    description: StrictStr = ""
    properties: Schemas = Field(default_factory=dict)   # argument name -> JSON schema
    required: list[StrictStr] = Field(default_factory=list)
    function: Callable | None = Field(default=None, exclude=True, repr=False)
    strict: StrictBool = False
    additional_properties: StrictBool = False

    def __init__(self, name=None, description="", properties=None, required=None, **fields):
        super().__init__(name=name, description=description, properties=properties or {},
                         required=list(required or []), **fields)
        missing = [r for r in self.required if r not in self.properties]
        if missing:
            raise ToolError(f"Function {self.name!r}: required {missing} not in properties {list(self.properties)}")

    def schema(self) -> dict:
        """The OpenAI-style tool schema sent to chat models (a fresh copy each time)."""
        parameters = {"type": "object", "properties": json.loads(json.dumps(self.properties)),
                      "required": list(self.required)}
        if self.strict:
            parameters["additionalProperties"] = self.additional_properties
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": parameters, **({"strict": True} if self.strict else {})}}
    # --8<-- [end:function]

    to_tool = schema

    @classmethod
    def from_callable(cls, f: Callable, *, name=None, description=None, prop_desc=None, strict=False) -> "Function":
        """A bound Function whose schema comes from `f`'s type hints (see `tool`)."""
        return tool(name=name, description=description, prop_desc=prop_desc, strict=strict)(f)

    @property
    def implementation(self) -> Callable | None:
        return self.function

    @property
    def is_bound(self) -> bool:
        return self.function is not None

    def bind(self, implementation: "Function | Callable") -> "Function":
        """A copy of this declaration that runs `implementation` (a @tool Function or a plain callable)."""
        if isinstance(implementation, Function):
            if implementation.name != self.name:
                raise ToolError(f"cannot bind declaration {self.name!r} to tool {implementation.name!r}: "
                                f"names must match exactly")
            implementation = implementation.function
        if not callable(implementation):
            raise ToolError(f"cannot bind {self.name!r}: {implementation!r} is not callable")
        params = inspect.signature(implementation).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        unknown = [name for name in self.properties if name not in params and not takes_any]
        if unknown:
            raise ToolError(f"cannot bind {self.name!r}: the implementation does not accept {unknown}")
        return self.model_copy(update={"function": implementation})

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

    def __call__(self, *call: FunctionCall, **arguments):
        if self.function is None:
            raise ToolError(f"tool {self.name!r} is declared but not bound to an implementation")
        if not call:
            return self.function(**arguments)
        if len(call) > 1 or arguments or not isinstance(call[0], FunctionCall):
            raise TypeError(f"call {self.name} with one FunctionCall or with keyword arguments, not both")
        return self.run_call(call[0])

    def run_call(self, call: FunctionCall) -> FunctionCall:
        """A copy of `call` with its outcome: a tool error becomes `error_message`, never a crash."""
        problem = self.check_arguments(call.arguments)
        if problem:
            return call.model_copy(update={"result_str": f"Error: {problem}", "error_message": problem,
                                           "success": False})
        try:
            value = self.function(**call.arguments)
        except Exception as exc:                       # the tool failed on the model's input: an observation
            text = f"{type(exc).__name__}: {exc}"
            return call.model_copy(update={"result_str": f"Error: {text}", "error_message": str(exc), "success": False})
        shown = f"Return of calling function {self.name} with params {call.arguments}:\n{result_text(value)}"
        return call.model_copy(update={"result": value, "result_str": shown, "success": True})


# ---- @tool: a Function from a type-hinted Python function ------------------------------------------

# --8<-- [start:tool]
def tool(func: Callable | None = None, *, description: str | None = None, prop_desc: dict | None = None,
         name: str | None = None, strict: bool = False):
    """Decorator: `@tool` or `@tool(description=..., prop_desc={arg: text}, name=...)` -> a bound Function.

    The schema comes from the type hints; a parameter without a default is required. A single
    parameter typed as a dataclass or Pydantic model makes that model's fields the arguments.
    """
    if not isinstance(strict, bool):
        raise TypeError(f"@tool(strict=...) must be True or False, got {strict!r}")
    notes = _check_prop_desc(prop_desc)

    def build(f: Callable) -> Function:
        hints = typing.get_type_hints(f)
        params = [p for p in inspect.signature(f).parameters.values() if p.name != "self"]
        unknown = sorted(set(notes) - {p.name for p in params})
        if unknown:
            raise ToolError(f"@tool on {f.__name__}: prop_desc names unknown parameters {unknown}")
        if len(params) == 1 and _is_model(hints.get(params[0].name)):
            return _model_tool(f, hints[params[0].name], name, description, strict)
        properties, required = {}, []
        for p in params:
            schema = json_schema(hints.get(p.name, str))
            if p.name in notes:
                schema = {**schema, "description": notes[p.name]}
            properties[p.name] = schema
            if p.default is inspect.Parameter.empty:
                required.append(p.name)
        text = description if description is not None else inspect.getdoc(f) or ""
        return Function(f.__name__ if name is None else name, text, properties, required, function=f, strict=strict)
    return build(func) if func is not None else build
# --8<-- [end:tool]


def _is_model(tp) -> bool:
    return isinstance(tp, type) and (dataclasses.is_dataclass(tp) or hasattr(tp, "model_json_schema"))


def _check_prop_desc(prop_desc) -> dict:
    if prop_desc is None:
        return {}
    if not hasattr(prop_desc, "items") or isinstance(prop_desc, (str, bytes)):
        raise TypeError(f"prop_desc must be a mapping of parameter name to description, got {type(prop_desc).__name__}")
    bad = [(k, v) for k, v in prop_desc.items() if not isinstance(k, str) or not isinstance(v, str)]
    if bad:
        raise TypeError(f"prop_desc keys and values must be strings, got {bad[0]!r}")
    return dict(prop_desc)


def _model_tool(f, model, name, description, strict=False) -> Function:
    schema = json_schema(model)
    param = next(iter(p for p in inspect.signature(f).parameters if p != "self"))

    def run(**arguments):
        return f(**{param: coerce(arguments, model, param)})
    text = description if description is not None else inspect.getdoc(f) or ""
    return Function(f.__name__ if name is None else name, text, schema.get("properties", {}),
                    schema.get("required", []), function=run, strict=strict)
