"""Layer 2 · the narrow waist: a Predictor maps a prompt to the text that comes next.

Read this first. Every higher layer (ReAct, memory, the labs, the native runtime) talks to a
model only through this contract, so swapping the model never touches agent code:

    predictor(prompt: str, max_new_tokens: int | None = None) -> str

The returned string is the *completion only* — never the prompt echoed back. (The original
prototype collection echoed the prompt and its labs then scored the echoed instructions as
answers; the Design page, "Lessons from the original collection", tells the story.)

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> predictor = ScriptedPredictor(["Thought: add them", "Final Answer: 5"])
    >>> predictor("What is 2 + 3?")
    'Thought: add them'
    >>> predictor("...", max_new_tokens=5)
    'Final'
    >>> predictor.prompts
    ['What is 2 + 3?', '...']
"""

from __future__ import annotations

from typing import Iterable, Protocol, runtime_checkable

__all__ = ["Predictor", "ScriptedPredictor", "ScriptExhausted"]


# ---- the contract ------------------------------------------------------------------------------

# --8<-- [start:contract]
@runtime_checkable
class Predictor(Protocol):
    """Anything callable as `predictor(prompt, max_new_tokens=None) -> completion`."""

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str: ...
# --8<-- [end:contract]


# ---- a predictor that replays a list of replies (tests and demos) ------------------------------

class ScriptExhausted(RuntimeError):
    """A ScriptedPredictor was asked for more replies than it was given."""


# --8<-- [start:scripted]
class ScriptedPredictor:
    """Replays `replies` in order, one per call; records every prompt it was shown.

    `max_new_tokens`, when given, truncates the reply to that many characters, exactly as a
    character-level model would stop. With `cycle=True` the script starts over when it runs out;
    otherwise running out raises ScriptExhausted (a bug in the test, not in the model).
    """

    def __init__(self, replies: Iterable[str], cycle: bool = False):
        self.replies = list(replies)
        if not self.replies:
            raise ValueError("ScriptedPredictor needs at least one reply")
        for i, reply in enumerate(self.replies):
            if not isinstance(reply, str):
                raise TypeError(f"ScriptedPredictor reply {i} is {type(reply).__name__}, not str")
        self.cycle = cycle
        self.prompts: list[str] = []

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        if max_new_tokens is not None and max_new_tokens < 0:
            raise ValueError(f"max_new_tokens must be >= 0, got {max_new_tokens}")
        n = len(self.prompts)
        if n >= len(self.replies) and not self.cycle:
            raise ScriptExhausted(f"ScriptedPredictor has only {len(self.replies)} replies; call {n + 1} asked for another")
        self.prompts.append(prompt)
        reply = self.replies[n % len(self.replies)]
        return reply if max_new_tokens is None else reply[:max_new_tokens]
# --8<-- [end:scripted]

    def __repr__(self) -> str:
        return f"ScriptedPredictor({len(self.replies)} replies, {len(self.prompts)} used)"
