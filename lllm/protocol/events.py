"""Layer 3 · TacticEvent: one thing a running tactic reports (progress, a tool call, its result).

Read `context.py` first; streamed calls yield these, and `TacticEvent.result(...)` is the last one.

Usage:

    >>> TacticEvent(kind="progress", data={"step": 1}).kind
    'progress'
    >>> TacticEvent.result({"text": "HI"}, tags=["final"]).metadata
    {'tags': ['final']}
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from lllm.protocol.validation import plain_data
from lllm.protocol.context import new_id
from lllm.protocol.fields import Metadata, Number, Token

__all__ = ["TacticEvent"]


class TacticEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Token = Field(default_factory=new_id)
    kind: Token = "progress"
    data: Any = None
    metadata: Metadata = Field(default_factory=dict)
    timestamp: Number = Field(default_factory=time.time)

    @field_validator("data", mode="before")
    @classmethod
    def _copy_data(cls, value):
        return plain_data(value, "data") if isinstance(value, (dict, list, tuple)) else value

    @classmethod
    def result(cls, data: Any, *, tags=()) -> "TacticEvent":
        return cls(kind="result", data=data, metadata={"tags": list(tags)} if tags else {})

    @classmethod
    def progress(cls, data: Any = None, **metadata) -> "TacticEvent":
        return cls(kind="progress", data=data, metadata=metadata)

    @classmethod
    def error(cls, message: str, *, error_type: str = "TacticError") -> "TacticEvent":
        return cls(kind="error", data={"message": message, "error_type": error_type})
