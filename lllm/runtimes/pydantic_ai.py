"""Layer 3 · PydanticAITactic: a Pydantic AI agent behind the Tactic boundary (pydantic-ai itself stays optional).

Read `lllm/protocol/tactic.py` first. Pydantic AI owns the model call, tools, deps, settings and
streaming; this adapter only turns a tactic call into an agent call and the agent's result back
into the tactic's output. It never imports pydantic_ai: it calls the agent's methods by name
(`run_sync`, `run`, `run_stream_sync`, `run_stream`, `run_stream_events`), so any object with them
works — a real `pydantic_ai.Agent` (install it with `pip install 'lllm-learn[pydantic-ai]'`) or a
test double.

Contract: `PydanticAITactic(agent, input_type=, output_type=, run_kwargs={}, input_mode="auto",
result_mode="output", stream_mode="output", include_context_metadata=True, config=None, name=,
description=, package_ref=, service_ref=, examples=, metadata=)`. A call sends the input shaped by
`input_mode` (auto/json: a Pydantic model as a JSON string; dict: as a dict; python: as is; text:
`str`), the `run_kwargs` merged with the call's own keyword arguments (containers copied, so the
agent cannot change ours), and — when the caller passed no `metadata=` and a context is given —
the context's metadata plus `lllm_request_id`, `lllm_trace_id`, `lllm_service_ref`, `lllm_endpoint`.
It returns `result.output` (or `result.data`; the whole result with `result_mode="result"`).
The agent's methods are looked up without running properties, so describing a tactic never calls
the agent. Bad arguments are TypeErrors naming them; a bad `config` is Pydantic's ValidationError.

Usage:

    >>> class Result:
    ...     def __init__(self, output):
    ...         self.output = output
    >>> class Agent:                       # a stand-in; a pydantic_ai.Agent(TestModel()) works the same
    ...     name = "shouter"
    ...     output_type = str
    ...     def run_sync(self, task, **kwargs):
    ...         return Result(task.upper())
    >>> tactic = PydanticAITactic(Agent(), input_type=str)
    >>> tactic.run("hi"), tactic.info().runtime_kind
    ('HI', 'pydantic-ai')
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictBool, StrictStr

from lllm.protocol import validation as v
from lllm.protocol.fields import Metadata, ServiceRefText, TacticRefText
from lllm.protocol.tactic import Tactic
from lllm.runtimes.tactic_tools import tactic_as_tool

__all__ = ["PydanticAITactic", "PydanticAITacticConfig", "tactic_as_tool", "copy_kwargs"]

INPUT_MODES = ("auto", "json", "dict", "python", "text")


# ---- the configuration ---------------------------------------------------------------------------------------

def copy_kwargs(value, where: str = "run_kwargs") -> dict:
    """Copy the mappings and lists of keyword arguments, keeping the objects inside (a db handle stays itself)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{where} must be a mapping, got {type(value).__name__}")

    def copy(item):
        if isinstance(item, Mapping):
            if not all(isinstance(k, str) for k in item):
                raise TypeError(f"{where} keys must be strings, got {list(item)!r}")
            return {k: copy(x) for k, x in item.items()}
        return [copy(x) for x in item] if isinstance(item, list) else item
    return copy(value)


def as_value_error(check):
    def run(value):
        try:
            return check(value)
        except TypeError as exc:
            raise ValueError(str(exc)) from None
    return run


def strict_examples(value):
    if not isinstance(value, list):
        raise ValueError(f"examples must be a list of mappings, got {type(value).__name__}")
    return v.examples_list(value)


class PydanticAITacticConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    name: StrictStr | None = None
    input_type: Any = None
    output_type: Any = None
    description: StrictStr | None = None
    package_ref: TacticRefText | None = None
    service_ref: ServiceRefText | None = None
    examples: Annotated[list[dict[str, Any]], BeforeValidator(as_value_error(strict_examples))] = []
    metadata: Metadata = {}
    run_kwargs: Annotated[dict[str, Any], BeforeValidator(as_value_error(copy_kwargs))] = {}
    input_mode: Literal["auto", "json", "dict", "python", "text"] = "auto"
    result_mode: Literal["output", "result"] = "output"
    stream_mode: Literal["output", "text", "response", "raw"] = "output"
    include_context_metadata: StrictBool = True


def agent_method(agent, name: str):
    """The agent's method `name`, or None; a property is never run to find out."""
    found = inspect.getattr_static(agent, name, None)
    return getattr(agent, name) if inspect.isfunction(found) or inspect.ismethod(found) else None


# ---- the tactic ----------------------------------------------------------------------------------------------

class PydanticAITactic(Tactic):
    runtime_kind = "pydantic-ai"

    def __init__(self, agent, *, config=None, **options):
        cfg = (config.model_copy(deep=True) if isinstance(config, PydanticAITacticConfig)
               else PydanticAITacticConfig.model_validate({} if config is None else config))
        if "include_context_metadata" in options and not isinstance(options["include_context_metadata"], bool):
            raise TypeError(f"include_context_metadata must be True or False, got {options['include_context_metadata']!r}")
        if "run_kwargs" in options:
            options["run_kwargs"] = copy_kwargs(options["run_kwargs"])
        if options.get("name") is not None and (not isinstance(options["name"], str) or not options["name"].strip()):
            raise ValueError(f"a tactic's name must be a non-blank string, got {options['name']!r}")
        unknown = set(options) - set(PydanticAITacticConfig.model_fields)
        if unknown:
            raise TypeError(f"PydanticAITactic got unknown options {sorted(unknown)}")
        protocol = {k: options.pop(k) for k in ("examples", "metadata") if k in options}
        self.config = cfg.model_copy(update=options)
        self.agent = agent
        self.input_type = self.config.input_type
        agent_output, agent_name = getattr(agent, "output_type", None), getattr(agent, "name", None)
        self.output_type = self.config.output_type or (agent_output if isinstance(agent_output, type) else None)
        c = self.config
        super().__init__(name=c.name or (agent_name if isinstance(agent_name, str) else None) or type(agent).__name__,
                         description=c.description or "", package_ref=c.package_ref, service_ref=c.service_ref,
                         examples=protocol.get("examples", c.examples), metadata=protocol.get("metadata", c.metadata))

    @classmethod
    def from_agent(cls, agent, **options) -> "PydanticAITactic":
        return cls(agent, **options)

    @property
    def run_kwargs(self) -> dict:
        return copy_kwargs(self.config.run_kwargs)

    # ---- describing it ----------------------------------------------------------------------------------------

    def capabilities(self) -> set[str]:
        streams = any(agent_method(self.agent, m) for m in ("run_stream_sync", "run_stream"))
        return {"run", "arun"} | ({"stream"} if streams else set())

    def supports(self, capability: str) -> bool:
        if capability == "events":
            return agent_method(self.agent, "run_stream_events") is not None
        return capability in self.capabilities()

    def info(self):
        info = super().info()
        schema = agent_method(self.agent, "output_json_schema")
        return info.model_copy(update={"output_schema": schema()}) if schema else info

    # ---- shaping a call -------------------------------------------------------------------------------------------

    def task(self, value):
        mode = self.config.input_mode
        if isinstance(value, BaseModel) and mode in ("auto", "json"):
            return value.model_dump_json()
        if isinstance(value, BaseModel) and mode == "dict":
            return value.model_dump(mode="json")
        return str(value) if mode == "text" else value

    def kwargs(self, method, context, call_kwargs: dict) -> dict:
        kwargs = {**copy_kwargs(self.config.run_kwargs), **copy_kwargs(call_kwargs, "call keyword arguments")}
        if self.config.include_context_metadata and context is not None and "metadata" not in kwargs \
                and accepts(method, "metadata"):
            found = {"lllm_request_id": context.request_id, "lllm_trace_id": context.trace_id,
                     "lllm_service_ref": context.service_ref, "lllm_endpoint": context.endpoint,
                     "lllm_tactic_ref": context.tactic_ref}
            kwargs["metadata"] = {**v.plain_data(context.metadata, "metadata"),
                                  **{k: x for k, x in found.items() if x is not None}}
        return kwargs

    def output(self, result):
        if self.config.result_mode == "result":
            return result
        for attr in ("output", "data"):
            if hasattr(result, attr):
                return getattr(result, attr)
        return result

    # ---- calling --------------------------------------------------------------------------------------------------

    def run(self, input_value, *, context=None, return_trace: bool = False, **call_kwargs):
        context, started = self._check_call(context, return_trace), time.time()
        method = agent_method(self.agent, "run_sync")
        if method is None:
            raise TypeError(f"{type(self.agent).__name__} has no run_sync method to call")
        value = self.validate_input(input_value)
        result = method(self.task(value), **self.kwargs(method, context, call_kwargs))
        return self._finish(self.output(result), context, started, return_trace)

    async def arun(self, input_value, *, context=None, return_trace: bool = False, **call_kwargs):
        context, started = self._check_call(context, return_trace), time.time()
        method = agent_method(self.agent, "run")
        if method is None or not inspect.iscoroutinefunction(method):
            return await asyncio.to_thread(self.run, input_value, context=context, return_trace=return_trace,
                                           **call_kwargs)
        value = self.validate_input(input_value)
        result = await method(self.task(value), **self.kwargs(method, context, call_kwargs))
        return self._finish(self.output(result), context, started, return_trace)

    def stream(self, input_value, *, context=None, **call_kwargs):
        context = self._check_call(context, False)
        method = agent_method(self.agent, "run_stream_sync")
        if method is None:                       # only the async stream: drive it to the end here
            yield from asyncio.run(collect(self.astream(input_value, context=context, **call_kwargs)))
            return
        value = self.validate_input(input_value)
        yield from self.view(method(self.task(value), **self.kwargs(method, context, call_kwargs)))

    async def astream(self, input_value, *, context=None, **call_kwargs):
        context = self._check_call(context, False)
        method = agent_method(self.agent, "run_stream")
        if method is None:
            for item in self.stream(input_value, context=context, **call_kwargs):
                yield item
            return
        value = self.validate_input(input_value)
        async with method(self.task(value), **self.kwargs(method, context, call_kwargs)) as result:
            items = self.view(result)
            if hasattr(items, "__aiter__"):
                async for item in items:
                    yield item
            else:
                for item in items:
                    yield item

    def view(self, result):
        """The stream as `stream_mode` asks: outputs, text, responses, or the runtime's own object."""
        mode = self.config.stream_mode
        wanted = {"output": "stream_output", "text": "stream_text", "response": "stream_responses"}.get(mode)
        if mode == "raw":
            return [result]
        if wanted and hasattr(result, wanted):
            return getattr(result, wanted)()
        return result


def accepts(method, name: str) -> bool:
    """Does `method` take the keyword `name` (by name or through **kwargs)?"""
    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in params)


async def collect(iterator) -> list:
    return [item async for item in iterator]
