"""Layer 3 · the records every reasoning framework passes around: State, Inference, Verification.

Read this first in `lllm.reasoning`. The API has four parts — Framework, Agent,
Task, Model — and these three records are all they share:

    State         where a puzzle stands: the puzzle, what is left, the steps so far, randomness
    Inference     what the environment's parser read in one model reply
    Verification  what the environment says about a state: finished? correct? and why

A State's hash and equality ignore `randomness`: two agents at the same position are the same
state (so values and proposals are shared through the cache), while `duplicate(randomness)`
gives a copy whose *next* samples differ. States never change; every step makes a new one.

Usage:

    >>> s = State(puzzle="4 4 6 8", current_state="4 4 6 8")
    >>> t = s.step("4 + 8 = 12 (left: 4 6 12)", "4 6 12")
    >>> t.steps, s.steps
    (('4 + 8 = 12 (left: 4 6 12)',), ())
    >>> t.duplicate(randomness=7) == t, hash(t.duplicate(7)) == hash(t)
    (True, True)
    >>> print(t.log())
    puzzle 4 4 6 8 | left 4 6 12 | randomness 0
      1. 4 + 8 = 12 (left: 4 6 12)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple, Optional

__all__ = ["State", "Inference", "Verification"]


# --8<-- [start:records]
class Verification(NamedTuple):
    """Is the state terminal, is it right, and a message for logs or for a reflexion."""
    finished: bool
    correct: bool
    message: str


class Inference(NamedTuple):
    """One parsed model reply. Each operation fills the field it asked for."""
    action: Optional[str] = None       # a step, or an answer
    thought: Optional[str] = None      # reasoning written before the action
    reflexion: Optional[str] = None    # a lesson drawn from a failed attempt
    value: Optional[float] = None      # how promising a state looks


@dataclass(frozen=True)
class State:
    """A position in a puzzle. Equality and hash ignore `randomness` (compare=False)."""
    puzzle: str                            # the task's input, e.g. "4 4 6 8"
    current_state: str                     # what is left, e.g. "4 6 12", or "invalid: ..."
    steps: tuple[str, ...] = ()            # every step taken so far, in order
    reflexions: tuple[str, ...] = ()       # lessons carried into the prompts (Reflexion)
    randomness: int = field(default=0, compare=False)   # which samples the model gives here

    def step(self, action: str, current_state: str) -> "State":
        """A new state one step further; this one is untouched."""
        return replace(self, current_state=current_state, steps=self.steps + (action,))

    def duplicate(self, randomness: int) -> "State":
        """The same position, drawing different samples from the model."""
        return replace(self, randomness=randomness)

    def log(self) -> str:
        lines = [f"puzzle {self.puzzle} | left {self.current_state} | randomness {self.randomness}"]
        lines += [f"  {i}. {s}" for i, s in enumerate(self.steps, 1)]
        lines += [f"  lesson: {r}" for r in self.reflexions]
        return "\n".join(lines)
# --8<-- [end:records]
