"""Layer 3 · a call's context, trace and result: who asked, what happened, what came back.

Read `fields.py` first; `tactic.py` builds these around every `run()`.

    CallContext  what the caller passes in: ids, caller, refs, tags and free metadata
    CallTrace    what the call did: state, timing, error type, the context's metadata
    CallResult   the validated output together with its trace (`run(..., return_trace=True)`)

Usage:

    >>> context = CallContext(request_id="req-1", metadata={"user": "ada"})
    >>> trace = CallTrace(request_id=context.request_id, tactic="echo", state="success")
    >>> CallResult(output={"text": "HI"}, trace=trace).trace.state
    'success'
"""

from __future__ import annotations

import uuid
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from lllm.protocol.validation import plain_data
from lllm.protocol.fields import Metadata, Name, Number, ServiceRefText, TacticRefText, Token

__all__ = ["CallContext", "CallTrace", "CallResult", "new_id"]

OutputT = TypeVar("OutputT")


def new_id() -> str:
    return uuid.uuid4().hex


# ---- what the caller passes in ----------------------------------------------------------------------

class CallContext(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_id: Token = Field(default_factory=new_id)
    trace_id: Token | None = None
    span_id: Token | None = None
    caller: StrictStr | None = None
    tactic_ref: TacticRefText | None = None
    service_ref: ServiceRefText | None = None
    endpoint: Token | None = None
    tags: dict[StrictStr, StrictStr] = Field(default_factory=dict)
    metadata: Metadata = Field(default_factory=dict)

    @field_validator("tags", mode="before")
    @classmethod
    def _copy_tags(cls, value):
        return dict(value) if isinstance(value, dict) else value


# ---- what the call did -----------------------------------------------------------------------------------

class CallTrace(BaseModel):
    model_config = ConfigDict(extra="forbid", revalidate_instances="always")

    request_id: Token
    tactic: Name
    state: Token = "success"
    started_at: Number | None = None
    ended_at: Number | None = None
    latency_ms: Number | None = None
    error_type: Token | None = None
    error: StrictStr | None = None
    metadata: Metadata = Field(default_factory=dict)


class CallResult(BaseModel, Generic[OutputT]):
    """The output and its trace; both are copies, so neither side can change the other later."""
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    output: Any = None
    trace: CallTrace

    @field_validator("output", mode="before")
    @classmethod
    def _copy_output(cls, value):
        return value if isinstance(value, BaseModel) else plain_data(value, "output") if isinstance(value, (dict, list)) else value
