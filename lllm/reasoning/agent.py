"""Layer 3 · the reasoning Agent: every operation is prompt -> model -> parse -> result.

Read `records.py` and `game24.py` first. The Agent knows no task: it asks the environment's
Prompter for a prompt, asks the model (any Predictor) for replies, hands them to the
environment's Parser, and lets the environment turn the Inference into a next state:

    prompt    = environment.prompter.act(state)
    replies   = agent.request(prompt, n)               # the model, through the cache
    inference = environment.parser.act(reply, state)
    next      = environment.get_next_state(inference, state)

The cache maps (namespace, prompt) to the replies drawn so far. Asking again is free; asking for
more samples draws only the missing ones. The namespace is the agent's name plus the state's
`randomness`, so a duplicated state (new randomness) gets fresh samples, and re-running a
framework in the same namespace reproduces it without calling the model at all. Values are
shared by every duplicate of a state (their namespace leaves the randomness out).

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> from lllm.reasoning.game24 import Game24
    >>> env = Game24()
    >>> agent = Agent(ScriptedPredictor(["12 + 12 = 24 (left: 12 12 24)"]))
    >>> agent.act(env.reset(0), env)[0].current_state
    '12 12 24'
    >>> agent.act(env.reset(0), env)[0].current_state     # same state again: from the cache
    '12 12 24'
    >>> agent.usage
    Usage(calls=1, hits=1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lllm.predictors.contract import Predictor
from lllm.reasoning.records import State, Verification

__all__ = ["Agent", "Usage"]


@dataclass
class Usage:
    calls: int = 0      # replies the model actually generated
    hits: int = 0       # replies served from the cache


@dataclass
class Agent:
    model: Predictor
    namespace: str = "agent"
    max_new_tokens: int | None = None
    cache: dict = field(default_factory=dict)        # (namespace, prompt) -> [reply, ...]
    usage: Usage = field(default_factory=Usage)

    # ---- the one door to the model --------------------------------------------------------------

    # --8<-- [start:request]
    def request(self, prompt: str, n: int = 1, namespace: str | None = None) -> list[str]:
        """n replies to `prompt`; replies already drawn in this namespace are reused."""
        key = (self.namespace if namespace is None else namespace, prompt)
        replies = self.cache.setdefault(key, [])
        self.usage.hits += min(n, len(replies))
        while len(replies) < n:
            replies.append(self.model(prompt, self.max_new_tokens))
            self.usage.calls += 1
        return replies[:n]
    # --8<-- [end:request]

    def _ask(self, prompt: str, state: State, n: int, shared: bool = False) -> list[str]:
        """Samples for this state; `shared` ones (values) are the same whatever the randomness."""
        return self.request(prompt, n, namespace=self.namespace if shared else f"{self.namespace}:{state.randomness}")

    # ---- operations: prompt -> model -> parse -> result ------------------------------------------

    # --8<-- [start:operations]
    def act(self, state: State, environment, n: int = 1) -> list[State]:
        """n sampled next steps (one model reply each)."""
        replies = self._ask(environment.prompter.act(state), state, n)
        return [environment.get_next_state(environment.parser.act(r, state), state) for r in replies]

    def propose(self, state: State, environment) -> list[State]:
        """Several next steps from one reply (Tree of Thoughts' proposal prompt)."""
        reply = self._ask(environment.prompter.propose(state), state, 1)[0]
        return [environment.get_next_state(i, state) for i in environment.parser.propose(reply, state)]

    def react(self, state: State, environment, n: int = 1) -> list[tuple[str | None, State]]:
        """n (thought, next state) pairs: the model thinks, then acts."""
        replies = self._ask(environment.prompter.react(state), state, n)
        inferences = [environment.parser.react(r, state) for r in replies]
        return [(i.thought, environment.get_next_state(i, state)) for i in inferences]

    def reflect(self, state: State, environment, verification: Verification) -> str | None:
        """A lesson from a failed attempt, to carry into the next one."""
        reply = self._ask(environment.prompter.reflect(state, verification), state, 1)[0]
        return environment.parser.reflect(reply, state).reflexion

    def evaluate(self, state: State, environment, n: int = 1) -> float:
        """How promising a state is: the environment's free heuristic, else n model votes summed."""
        known = environment.get_value(state)
        if known is not None:
            return known
        replies = self._ask(environment.prompter.evaluate(state), state, n, shared=True)
        # fsum: correctly rounded on every Python (3.12's sum() rounds differently, and a tie
        # broken differently would change which states a search keeps in the page).
        return math.fsum(environment.parser.evaluate(r, state).value or 0.0 for r in replies)

    def answer(self, state: State, environment, n: int = 1, style: str = "io") -> list[tuple[str | None, State]]:
        """n whole answers at once: style "io" (just the answer) or "cot" (steps, then answer)."""
        if style not in ("io", "cot"):
            raise ValueError(f"style must be 'io' or 'cot', got {style!r}")
        prompt = environment.prompter.cot(state) if style == "cot" else environment.prompter.io(state)
        parse = environment.parser.cot if style == "cot" else environment.parser.io
        inferences = [parse(r, state) for r in self._ask(prompt, state, n)]
        return [(i.thought, environment.get_next_state(i, state)) for i in inferences]
    # --8<-- [end:operations]
