"""Layer 3 · the protocol Tactic: a typed function `In -> Out` that validates, describes and traces itself.

Read `context.py` first. The native runtime's Tactic (`lllm.runtimes.native`) is a subclass, so
every native tactic is also one of these: the thing you serve, wrap as a tool or compose.

Contract: subclass `Tactic[In, Out]`, set `name`, `input_type`, `output_type`, implement
`_run(input_value, *, context=None)`. `run(value)` validates `value` as `input_type` (a
Pydantic model, dataclass, TypedDict or plain type), calls `_run`, validates the result as
`output_type` and returns it — or a `CallResult` with its `CallTrace` when `return_trace=True`.
A value that does not fit raises `SchemaError`. `arun` is the same, awaitable. `info()` is a
`TacticInfo` with both JSON schemas. A tactic that overrides `stream` yields chunks as it works;
`events` gives them as TacticEvents and `astream` / `aevents` are the same for async callers.

Usage:

    >>> from pydantic import BaseModel
    >>> class Text(BaseModel):
    ...     text: str
    >>> class Shout(Tactic[Text, Text]):
    ...     name = "shout"
    ...     input_type = Text
    ...     output_type = Text
    ...     def _run(self, input_value, *, context=None):
    ...         return {"text": input_value.text.upper()}
    >>> Shout().run({"text": "hi"})
    Text(text='HI')
    >>> Shout().info().input_schema["properties"]["text"]
    {'title': 'Text', 'type': 'string'}
"""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictStr, TypeAdapter, ValidationError

from lllm.protocol import validation as v
from lllm.protocol.context import CallContext, CallResult, CallTrace
from lllm.protocol.errors import SchemaError, TacticUnsupportedError
from lllm.protocol.events import TacticEvent
from lllm.protocol.fields import Examples, JsonSchema, Metadata, Name, ServiceRefText, TacticRefText, Token

__all__ = ["Tactic", "TacticInfo", "type_schema"]

InputT = TypeVar("InputT")
OutputT = TypeVar("OutputT")


# ---- what a tactic says about itself --------------------------------------------------------------

class TacticInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name
    description: StrictStr = ""
    runtime_kind: Token = "python"
    input_schema: JsonSchema | None = None
    output_schema: JsonSchema | None = None
    examples: Examples = Field(default_factory=list)
    metadata: Metadata = Field(default_factory=dict)
    package_ref: TacticRefText | None = None
    service_ref: ServiceRefText | None = None
    capabilities: tuple[Token, ...] = ("arun", "run")


def type_schema(tp) -> dict | None:
    """The JSON schema of a type (None for `None`/`Any`, which accept anything)."""
    if tp is None or tp is Any:
        return None
    return TypeAdapter(tp).json_schema()


# ---- the tactic -----------------------------------------------------------------------------------------

class Tactic(Generic[InputT, OutputT]):
    name: str = ""
    description: str = ""
    input_type: Any = None
    output_type: Any = None
    runtime_kind: str = "python"

    def __init__(self, *, name=None, description=None, package_ref=None, service_ref=None,
                 examples=None, metadata=None):
        for field, value in [("name", name), ("description", description), ("package_ref", package_ref),
                             ("service_ref", service_ref)]:
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{field} must be a string, got {type(value).__name__}")
        self.tactic_name = v.check_name(name if name is not None else (type(self).name or type(self).__name__))
        self.description = description if description is not None else (type(self).description or
                                                                        inspect.getdoc(type(self)) or "")
        self.package_ref = package_ref and v.check_tactic_ref(package_ref, "package_ref")
        self.service_ref = service_ref and v.check_service_ref(service_ref, "service_ref")
        self.examples = v.examples_list(examples)
        if metadata is not None and not isinstance(metadata, dict) and not hasattr(metadata, "keys"):
            raise TypeError(f"metadata must be a mapping, got {type(metadata).__name__}")
        try:
            self.metadata = v.plain_mapping(metadata, "metadata")
        except ValueError as exc:
            raise TypeError(str(exc)) from None

    def _run(self, input_value, *, context: CallContext | None = None):
        raise NotImplementedError(f"tactic {self.tactic_name!r} must implement _run(input_value, *, context=None)")

    async def _arun(self, input_value, *, context: CallContext | None = None):
        result = self._run(input_value, context=context)
        return await result if inspect.isawaitable(result) else result

    # ---- validating around a call ---------------------------------------------------------------------

    def validate_input(self, value):
        return self._fit(value, self.input_type, "input")

    def validate_output(self, value):
        return self._fit(value, self.output_type, "output")

    def _fit(self, value, tp, which: str):
        if tp is None or tp is Any:
            return value
        try:
            return TypeAdapter(tp).validate_python(value)
        except ValidationError as exc:
            raise SchemaError(f"tactic {self.tactic_name!r}: {which} does not match its type: {exc}") from None

    def _check_call(self, context, return_trace) -> CallContext | None:
        if context is not None and not isinstance(context, CallContext):
            raise TypeError(f"context must be a CallContext, got {type(context).__name__}")
        if not isinstance(return_trace, bool):
            raise TypeError(f"return_trace must be True or False, got {return_trace!r}")
        return context

    def _finish(self, output, context, started: float, return_trace: bool):
        output = self.validate_output(output)
        if not return_trace:
            return output
        ended = time.time()
        trace = CallTrace(request_id=(context or CallContext()).request_id, tactic=self.tactic_name,
                          state="success", started_at=started, ended_at=ended,
                          latency_ms=(ended - started) * 1000.0, metadata=context.metadata if context else {})
        return CallResult(output=output, trace=trace)

    # ---- calling ------------------------------------------------------------------------------------------

    def run(self, input_value, *, context: CallContext | None = None, return_trace: bool = False):
        context = self._check_call(context, return_trace)
        started = time.time()
        output = self._run(self.validate_input(input_value), context=context)
        if inspect.isawaitable(output):
            output = asyncio.run(_awaited(output))
        return self._finish(output, context, started, return_trace)

    async def arun(self, input_value, *, context: CallContext | None = None, return_trace: bool = False):
        context = self._check_call(context, return_trace)
        started = time.time()
        output = await self._arun(self.validate_input(input_value), context=context)
        return self._finish(output, context, started, return_trace)

    # --8<-- [start:streaming]
    def stream(self, input_value, *, context: CallContext | None = None):
        """Yield partial results; a tactic that streams overrides this (and gains the 'stream' capability)."""
        raise TacticUnsupportedError(f"tactic {self.tactic_name!r} does not stream")

    def events(self, input_value, *, context: CallContext | None = None):
        """`stream` on the validated input, as TacticEvents: a chunk that is an event passes through
        (progress, a sub-tactic's events), any other chunk becomes a 'message' event."""
        context = self._check_call(context, False)
        for chunk in self.stream(self.validate_input(input_value), context=context):
            yield chunk if isinstance(chunk, TacticEvent) else TacticEvent(kind="message", data=chunk)
    # --8<-- [end:streaming]

    async def astream(self, input_value, *, context: CallContext | None = None):
        """`stream` for async callers (the chunks are produced by the same synchronous generator)."""
        self._check_call(context, False)
        for chunk in self.stream(input_value, context=context):
            yield chunk

    async def aevents(self, input_value, *, context: CallContext | None = None):
        for event in self.events(input_value, context=context):
            yield event

    # ---- describing itself ------------------------------------------------------------------------------

    def capabilities(self) -> set[str]:
        return {"run", "arun"} | ({"stream"} if type(self).stream is not Tactic.stream else set())

    def info(self) -> TacticInfo:
        return TacticInfo(name=self.tactic_name, description=self.description, runtime_kind=self.runtime_kind,
                          input_schema=type_schema(self.input_type), output_schema=type_schema(self.output_type),
                          examples=self.examples, metadata=self.metadata, package_ref=self.package_ref,
                          service_ref=self.service_ref, capabilities=tuple(sorted(self.capabilities())))


async def _awaited(awaitable):
    return await awaitable
