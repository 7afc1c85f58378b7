"""Layer 3 · what a model call cost and how sure it was: InvokeCost and TokenLogprob, as in lllm-core.

Read `invokers.py` first (an invoker reports usage; `Cost` adds calls up inside our agent loop).

    InvokeCost    token counts and prices of one call (strict numbers: a boolean is refused)
    TokenLogprob  one generated token, its log-probability and the alternatives the model saw

Usage:

    >>> InvokeCost(prompt_tokens=2, completion_tokens=3).total_tokens
    5
    >>> TokenLogprob(token="h", logprob=-0.1, bytes=[104]).bytes
    [104]
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, model_validator

__all__ = ["InvokeCost", "TokenLogprob", "usage_cost"]

Count = StrictInt
Price = StrictFloat | StrictInt


class InvokeCost(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt_tokens: Count = 0
    completion_tokens: Count = 0
    total_tokens: Count | None = None         # prompt + completion unless the provider says otherwise
    cached_prompt_tokens: Count = 0
    reasoning_tokens: Count = 0
    audio_prompt_tokens: Count = 0
    audio_completion_tokens: Count = 0
    input_cost_per_token: Price = 0.0
    output_cost_per_token: Price = 0.0
    cache_read_input_token_cost: Price = 0.0
    prompt_cost: Price = 0.0
    completion_cost: Price = 0.0
    cost: Price = 0.0

    @model_validator(mode="after")
    def _total(self):
        if self.total_tokens is None:
            self.total_tokens = self.prompt_tokens + self.completion_tokens
        return self


class TokenLogprob(BaseModel):
    model_config = ConfigDict(extra="forbid", revalidate_instances="always")   # a copy, never shared

    token: StrictStr
    logprob: StrictFloat | StrictInt = 0.0
    bytes: list[StrictInt] = Field(default_factory=list)
    top_logprobs: list["TokenLogprob"] = Field(default_factory=list)


# ---- reading a provider's usage dict -------------------------------------------------------------

TOP_LEVEL = {"prompt_tokens": "prompt_tokens", "completion_tokens": "completion_tokens",
             "total_tokens": "total_tokens", "input_cost_per_token": "input_cost_per_token",
             "output_cost_per_token": "output_cost_per_token",
             "cache_read_input_token_cost": "cache_read_input_token_cost", "prompt_cost": "prompt_cost",
             "completion_cost": "completion_cost", "response_cost": "cost"}
DETAILS = {("prompt_tokens_details", "cached_tokens"): "cached_prompt_tokens",
           ("prompt_tokens_details", "audio_tokens"): "audio_prompt_tokens",
           ("completion_tokens_details", "reasoning_tokens"): "reasoning_tokens",
           ("completion_tokens_details", "audio_tokens"): "audio_completion_tokens"}


def _number(value, where: str):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where} must be a number, got {value!r}")
    return value


def usage_cost(usage: dict) -> InvokeCost:
    """An OpenAI-style usage dict as an InvokeCost; a malformed entry is a ValueError naming `usage.<key>`."""
    fields = {}
    for key, field in TOP_LEVEL.items():
        if usage.get(key) is not None:
            fields[field] = _number(usage[key], f"usage.{key}")
    for section in ("prompt_tokens_details", "completion_tokens_details"):
        details = usage.get(section)
        if details is not None and not isinstance(details, dict):
            raise ValueError(f"usage.{section} must be a mapping, got {type(details).__name__}")
    for (section, key), field in DETAILS.items():
        value = (usage.get(section) or {}).get(key)
        if value is not None:
            fields[field] = _number(value, f"usage.{section}.{key}")
    return InvokeCost(**fields)
