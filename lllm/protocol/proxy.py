"""Layer 3 · ProxyTactic: a tactic around a tactic that watches (and may reshape) every call at the boundary.

Read `tactic.py` first. A proxy is a `Tactic` with the inner tactic's types, so it can stand
anywhere the inner one does — served, composed, wrapped again — whatever runtime the inner one uses.

Contract: `ProxyTactic(inner, before=, after=, on_error=, sink=, capture_inputs=False,
capture_outputs=False, metadata=None, name=None)`. A call runs `before(value, context)` (its
return value is what the inner tactic gets), the inner tactic, then `after(output, context)` (for a
stream: on every chunk), and hands one `ProxyRecord` per call to `sink` — request id, names,
state, timing, the error, the context's and the proxy's metadata, and the input and output only
when asked to capture them. A failure calls `on_error(exc, context)`, is recorded, and is raised
again. The proxy streams when the inner tactic does (`stream`, `astream`), and passes events on
(`aevents`) when the inner tactic has them. Bad arguments are TypeErrors or ValueErrors naming them.

Usage:

    >>> from lllm.runtimes.function_tactic import as_tactic
    >>> def shout(text: str) -> str:
    ...     return text.upper()
    >>> log = InMemoryProxyLog()
    >>> proxy = ProxyTactic(as_tactic(shout), sink=log.append, capture_outputs=True)
    >>> proxy.run("hi"), log.records[0].state, log.records[0].output_value, proxy.tactic_name
    ('HI', 'success', 'HI', 'shout_proxy')
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictStr

from lllm.protocol import validation as v
from lllm.protocol.context import CallContext
from lllm.protocol.fields import Metadata, Name, Number, Token
from lllm.protocol.tactic import Tactic

__all__ = ["ProxyRecord", "InMemoryProxyLog", "ProxyTactic", "proxy_tactic", "check_flag", "copied_metadata",
           "has_own"]

AnyData = Annotated[Any, BeforeValidator(lambda value: v.plain_data(value, "value"))]


# ---- what one call leaves behind -------------------------------------------------------------------------

class ProxyRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_id: Token
    proxy: Name
    tactic: Name
    state: Literal["success", "failure"]
    started_at: Number
    ended_at: Number
    latency_ms: Number
    input_value: AnyData = None
    output_value: AnyData = None
    error_type: Token | None = None
    error: StrictStr | None = None
    metadata: Metadata = {}


class InMemoryProxyLog:
    """A sink that keeps a copy of every record (so later changes to a record do not reach it)."""

    def __init__(self):
        self.records: list[ProxyRecord] = []

    def append(self, record: ProxyRecord) -> None:
        self.records.append(record.model_copy(deep=True))


def check_flag(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def copied_metadata(metadata, where: str = "metadata") -> dict:
    """A plain copy of a mapping with string keys; anything else is a TypeError naming `where`."""
    try:
        return v.plain_mapping(metadata, where)
    except ValueError as exc:
        raise TypeError(str(exc)) from None


def has_own(tactic, method: str) -> bool:
    """Does the tactic's class define `method` itself (not just inherit the protocol Tactic's default)?"""
    found = getattr(type(tactic), method, None)
    return callable(found) and found is not getattr(Tactic, method, None)


def jsonable(value):
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


# ---- the proxy -----------------------------------------------------------------------------------------------

class ProxyTactic(Tactic):
    runtime_kind = "proxy"

    def __init__(self, tactic: Tactic, *, before=None, after=None, on_error=None, sink=None,
                 capture_inputs: bool = False, capture_outputs: bool = False, metadata=None, name=None):
        if not isinstance(tactic, Tactic):
            raise TypeError(f"ProxyTactic wraps a Tactic, got {type(tactic).__name__}")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise ValueError(f"a proxy's name must be a non-blank string, got {name!r}")
        self.inner = tactic
        self.input_type, self.output_type = tactic.input_type, tactic.output_type
        self.before, self.after, self.on_error, self.sink = before, after, on_error, sink
        self.capture_inputs = check_flag(capture_inputs, "capture_inputs")
        self.capture_outputs = check_flag(capture_outputs, "capture_outputs")
        self._metadata = copied_metadata(metadata)
        super().__init__(name=name or f"{tactic.tactic_name}_proxy", description=tactic.description)
        self.metadata = {**self._metadata, "proxied_tactic": tactic.tactic_name,
                         "proxied_runtime_kind": tactic.runtime_kind}

    @property
    def proxy_metadata(self) -> dict:
        """The metadata the proxy was given (a copy: changing it changes nothing)."""
        return copied_metadata(self._metadata)

    def info(self):
        info = super().info()
        return info.model_copy(update={"metadata": copied_metadata(self.metadata)})

    def capabilities(self) -> set[str]:
        return {"run", "arun"} | ({"stream"} if "stream" in self.inner.capabilities() else set())

    def supports(self, capability: str) -> bool:
        if capability == "events":
            return has_own(self.inner, "aevents")
        return capability in self.capabilities()

    # ---- the hooks and the record ------------------------------------------------------------------------

    def _before(self, value, context):
        return self.before(value, context) if self.before else value

    def _after(self, value, context):
        return self.after(value, context) if self.after else value

    def _record(self, context, started, value, output=None, exc=None) -> None:
        if self.sink is None:
            return
        ended = time.time()
        self.sink(ProxyRecord(
            request_id=context.request_id, proxy=self.tactic_name, tactic=self.inner.tactic_name,
            state="failure" if exc else "success", started_at=started, ended_at=ended,
            latency_ms=(ended - started) * 1000.0,
            input_value=jsonable(value) if self.capture_inputs else None,
            output_value=jsonable(output) if self.capture_outputs and exc is None else None,
            error_type=type(exc).__name__ if exc else None, error=str(exc) if exc else None,
            metadata={"context": context.metadata, "proxy": self._metadata}))

    def _failed(self, exc, context, started, value):
        if self.on_error:
            self.on_error(exc, context)
        self._record(context, started, value, exc=exc)

    @staticmethod
    def _context(context) -> CallContext:
        if context is None:
            return CallContext()
        if not isinstance(context, CallContext):
            raise TypeError(f"context must be a CallContext, got {type(context).__name__}")
        return context

    # ---- calling -------------------------------------------------------------------------------------------

    def _run(self, input_value, *, context=None):
        context, started, value = self._context(context), time.time(), input_value
        try:
            value = self._before(input_value, context)
            output = self._after(self.inner.run(value, context=context), context)
        except Exception as exc:
            self._failed(exc, context, started, value)
            raise
        self._record(context, started, value, output)
        return output

    async def _arun(self, input_value, *, context=None):
        context, started, value = self._context(context), time.time(), input_value
        try:
            value = self._before(input_value, context)
            output = self._after(await self.inner.arun(value, context=context), context)
        except Exception as exc:
            self._failed(exc, context, started, value)
            raise
        self._record(context, started, value, output)
        return output

    def stream(self, input_value, *, context=None):
        context, started, chunks = self._context(context), time.time(), []
        value = self.validate_input(input_value)
        try:
            value = self._before(value, context)
            for chunk in self.inner.stream(value, context=context):
                chunks.append(self._after(chunk, context))
                yield chunks[-1]
        except Exception as exc:
            self._failed(exc, context, started, value)
            raise
        self._record(context, started, value, chunks)

    async def astream(self, input_value, *, context=None):
        context = self._context(context)
        if not has_own(self.inner, "astream"):
            for chunk in self.stream(input_value, context=context):
                yield chunk
            return
        started, chunks, value = time.time(), [], self.validate_input(input_value)
        try:
            value = self._before(value, context)
            async for chunk in self.inner.astream(value, context=context):
                chunks.append(self._after(chunk, context))
                yield chunks[-1]
        except Exception as exc:
            self._failed(exc, context, started, value)
            raise
        self._record(context, started, value, chunks)

    async def aevents(self, input_value, *, context=None):
        context, started, events = self._context(context), time.time(), []
        value = self.validate_input(input_value)
        try:
            value = self._before(value, context)
            async for event in self.inner.aevents(value, context=context):
                events.append(event)
                yield event
        except Exception as exc:
            self._failed(exc, context, started, value)
            raise
        self._record(context, started, value, [e.model_dump(mode="json") for e in events])


def proxy_tactic(tactic: Tactic, **options) -> ProxyTactic:
    """The same as `ProxyTactic(tactic, **options)`."""
    return ProxyTactic(tactic, **options)
