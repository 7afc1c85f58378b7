"""Layer 3 · SandboxedTactic: guardrails at a tactic's boundary — a deadline, payload sizes, allowed metadata keys.

Read `tactic.py` and `proxy.py` first. Like a proxy, a sandboxed tactic is a `Tactic` with the
inner tactic's types, whatever runtime the inner one uses.

Contract: `SandboxedTactic(inner, policy=SandboxPolicy(...) or a dict, name=None)`. Before the call,
every key of the context's metadata must be in `allowed_metadata_keys` (when set) and the input,
as JSON, at most `max_input_bytes`; after it the output at most `max_output_bytes`; a breach is
`SandboxLimitError` naming the key or the sizes. With `timeout_seconds`, a call that runs longer
raises `SandboxTimeoutError` ("timeout after ...") — `arun` cancels an async tactic at the
deadline; a synchronous one runs on a worker thread that Python cannot stop, so it is abandoned,
not killed. This is a service guardrail, not isolation: to confine untrusted *code* (CPU, memory,
imports, processes) use the process sandbox of `lllm/runtimes/native/sandbox/`.

Usage:

    >>> from lllm.runtimes.function_tactic import as_tactic
    >>> def shout(text: str) -> str:
    ...     return text.upper()
    >>> safe = SandboxedTactic(as_tactic(shout), policy={"max_input_bytes": 8})
    >>> safe.run("hi")
    'HI'
    >>> safe.run("a longer text")
    Traceback (most recent call last):
    ...
    lllm.protocol.sandbox.SandboxLimitError: shout_sandbox: the input is 15 bytes of JSON; the policy allows 8 (max_input_bytes)
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, field_validator

from lllm.protocol import validation as v
from lllm.protocol.errors import TacticError
from lllm.protocol.tactic import Tactic

__all__ = ["SandboxPolicy", "SandboxedTactic", "SandboxError", "SandboxLimitError", "SandboxTimeoutError",
           "sandbox_tactic", "json_size"]


class SandboxError(TacticError):
    """A sandbox policy stopped the call."""


class SandboxLimitError(SandboxError):
    """An input, an output or a metadata key outside the policy."""


class SandboxTimeoutError(SandboxError, TimeoutError):
    """The call ran past the policy's timeout_seconds."""


class SandboxPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    timeout_seconds: StrictFloat | StrictInt | None = Field(default=None, gt=0)
    max_input_bytes: StrictInt | None = Field(default=None, ge=0)
    max_output_bytes: StrictInt | None = Field(default=None, ge=0)
    allowed_metadata_keys: tuple[str, ...] | None = None

    @field_validator("allowed_metadata_keys", mode="before")
    @classmethod
    def _keys(cls, value):
        if value is None:
            return None
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
            raise ValueError(f"must be a list of key names, got {value!r}")
        if not all(isinstance(key, str) for key in value):
            raise ValueError(f"every key must be a string, got {value!r}")
        return tuple(v.check_token(key, "each allowed metadata key") for key in value)


def json_size(value) -> int:
    """How many bytes `value` takes as JSON (Pydantic models as their JSON form)."""
    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    return len(json.dumps(data, default=str).encode("utf-8"))


class SandboxedTactic(Tactic):
    runtime_kind = "sandbox"

    def __init__(self, tactic: Tactic, *, policy=None, name=None):
        if not isinstance(tactic, Tactic):
            raise TypeError(f"SandboxedTactic wraps a Tactic, got {type(tactic).__name__}")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise ValueError(f"a sandbox's name must be a non-blank string, got {name!r}")
        policy = SandboxPolicy() if policy is None else policy
        self.policy = (policy.model_copy(deep=True) if isinstance(policy, SandboxPolicy)
                       else SandboxPolicy.model_validate(policy))
        self.inner = tactic
        self.input_type, self.output_type = tactic.input_type, tactic.output_type
        super().__init__(name=name or f"{tactic.tactic_name}_sandbox", description=tactic.description)
        self.metadata = {"sandboxed_tactic": tactic.tactic_name, "sandbox_policy": self.policy.model_dump(mode="json")}

    # ---- the checks -----------------------------------------------------------------------------------------

    def _limit(self, value, limit, which: str) -> None:
        if limit is not None and (size := json_size(value)) > limit:
            raise SandboxLimitError(f"{self.tactic_name}: the {which} is {size} bytes of JSON; "
                                    f"the policy allows {limit} (max_{which}_bytes)")

    def _check_before(self, value, context) -> None:
        allowed = self.policy.allowed_metadata_keys
        if allowed is not None and context is not None:
            extra = sorted(set(context.metadata) - set(allowed))
            if extra:
                raise SandboxLimitError(f"{self.tactic_name}: metadata key(s) {extra} not allowed "
                                        f"(allowed_metadata_keys: {list(allowed)})")
        self._limit(value, self.policy.max_input_bytes, "input")

    # ---- calling ------------------------------------------------------------------------------------------------

    def _run(self, input_value, *, context=None):
        if self.policy.timeout_seconds is not None:
            return asyncio.run(self._arun(input_value, context=context))
        self._check_before(input_value, context)
        output = self.inner.run(input_value, context=context)
        self._limit(output, self.policy.max_output_bytes, "output")
        return output

    async def _arun(self, input_value, *, context=None):
        self._check_before(input_value, context)
        if type(self.inner)._arun is Tactic._arun:        # synchronous inside: a thread of its own, left behind
            worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lllm-sandbox")   # at the deadline
            call = asyncio.get_running_loop().run_in_executor(worker, partial(self.inner.run, input_value,
                                                                              context=context))
            worker.shutdown(wait=False)
        else:
            call = self.inner.arun(input_value, context=context)
        try:
            output = await asyncio.wait_for(call, self.policy.timeout_seconds)
        except asyncio.TimeoutError:
            raise SandboxTimeoutError(f"{self.tactic_name}: timeout after {self.policy.timeout_seconds} s "
                                      "(timeout_seconds)") from None
        self._limit(output, self.policy.max_output_bytes, "output")
        return output


def sandbox_tactic(tactic: Tactic, policy=None, **options) -> SandboxedTactic:
    """The same as `SandboxedTactic(tactic, policy=policy, **options)`."""
    return SandboxedTactic(tactic, policy=policy, **options)
