"""Layer 3 · invokers: how an agent reaches a model — messages and tools in, one assistant Message out.

Read `chat_format.py` first (the plain-text template used for Predictors); `agent.py` next.

Contract: `invoker(messages, functions, format_schema=None, model_name="", model_args=None)
-> InvokeResult(message, usage, shown, error)`. `message` is the assistant's reply (content and
function calls); `usage` counts tokens; `shown` is exactly what the model was given (for the
session); `error` is set when the raw reply could not even be read (a malformed tool-call line) —
the agent turns it into a repair turn. Invokers are chosen by name in the config through a
plain dict of builders, `BUILTIN_INVOKERS` in builtin.py (a Runtime copies it;
`register_invoker` adds to the copy):

    scripted   invoker_config {"replies": [...]}: each reply a string or
               {"content": ..., "function_calls": [{"name": ..., "arguments": {...}}]}
    predictor  invoker_config {"predictor": <a Predictor>} or {"spec": "rule" | "tinyllm" | ...}
    tinyllm    invoker_config {"path": "build/model/tinyllm.onnx", "temperature": 0.8, ...} (onnxruntime)
    http       invoker_config {"base_url": "http://127.0.0.1:8080/v1", "api_key_env": "..."}

Costs: a Predictor's tokens are characters (prompt and completion lengths); HTTP reports usage.

Usage:

    >>> from lllm.runtimes.native.core.dialog import Message, Role
    >>> invoker = ScriptedInvoker(["Hello!", {"content": "", "function_calls": [{"name": "calc", "arguments": {"expr": "1+1"}}]}])
    >>> invoker([Message(Role.USER, "Hi")], []).message.content
    'Hello!'
    >>> invoker([Message(Role.USER, "Add")], []).message.function_calls[0].arguments
    {'expr': '1+1'}
"""

from __future__ import annotations

import dataclasses

from lllm.predictors.contract import ScriptExhausted
from lllm.runtimes.native.core.chat_format import parse_completion, render_prompt
from lllm.runtimes.native.core.dialog import Message, Role
from lllm.runtimes.native.core.parsers import ParseError
from lllm.runtimes.native.core.tools import FunctionCall

__all__ = ["Cost", "InvokeResult", "ScriptedInvoker", "PredictorInvoker"]


# ---- what every invoker returns --------------------------------------------------------------------

@dataclasses.dataclass
class Cost:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                    self.calls + other.calls)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclasses.dataclass
class InvokeResult:
    message: Message
    usage: Cost
    shown: str = ""
    error: str | None = None


# ---- scripted: a list of replies (tests, demos, the page) ------------------------------------------

class ScriptedInvoker:
    """Replays `replies` in order and records what each call was shown (the flat chat template)."""

    def __init__(self, replies):
        if isinstance(replies, (str, dict)) or not list(replies):
            raise ValueError("invoker_config.replies must be a non-empty list of strings or reply objects")
        self.replies = [_check_reply(i, r) for i, r in enumerate(replies)]
        self.seen: list[str] = []

    def __call__(self, messages, functions, format_schema=None, model_name="", model_args=None) -> InvokeResult:
        shown = render_prompt(messages, functions, format_schema)
        if len(self.seen) >= len(self.replies):
            raise ScriptExhausted(f"scripted invoker has only {len(self.replies)} replies; call {len(self.seen) + 1} asked for another")
        content, calls = self.replies[len(self.seen)]
        self.seen.append(shown)
        message = Message(Role.ASSISTANT, content, function_calls=calls)
        return InvokeResult(message, Cost(len(shown), len(content), 1), shown)


def _check_reply(i: int, reply) -> tuple[str, tuple]:
    if isinstance(reply, str):
        return reply, ()
    if not isinstance(reply, dict) or set(reply) - {"content", "function_calls"}:
        raise ValueError(f"invoker_config.replies[{i}] must be a string or {{'content', 'function_calls'}}, got {reply!r}")
    calls = []
    for j, call in enumerate(reply.get("function_calls", ())):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not isinstance(call.get("arguments", {}), dict):
            raise ValueError(f"invoker_config.replies[{i}].function_calls[{j}] needs a 'name' string and an 'arguments' object")
        calls.append(FunctionCall(name=call["name"], arguments=dict(call.get("arguments", {})), id=f"call-{i}-{j}"))
    return str(reply.get("content", "")), tuple(calls)


# ---- any Predictor, through the plain-text chat template -------------------------------------------

# --8<-- [start:predictor]
class PredictorInvoker:
    """Renders the dialog with the chat template, calls `predictor(prompt, max_new_tokens)`, reads tool calls."""

    def __init__(self, predictor, max_new_tokens: int | None = 200):
        if not callable(predictor):
            raise TypeError(f"invoker_config.predictor must be callable, got {type(predictor).__name__}")
        self.predictor, self.max_new_tokens = predictor, max_new_tokens

    def __call__(self, messages, functions, format_schema=None, model_name="", model_args=None) -> InvokeResult:
        prompt = render_prompt(messages, functions, format_schema)
        completion = self.predictor(prompt, (model_args or {}).get("max_new_tokens", self.max_new_tokens))
        usage = Cost(len(prompt), len(completion), 1)          # TinyLLM: one character is one token
        try:
            content, calls = parse_completion(completion, functions)
        except ParseError as exc:
            return InvokeResult(Message(Role.ASSISTANT, completion.strip()), usage, prompt, str(exc))
        return InvokeResult(Message(Role.ASSISTANT, content, function_calls=tuple(calls)), usage, prompt)
# --8<-- [end:predictor]
