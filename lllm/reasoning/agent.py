"""Layer 3 · the reasoning Agent: every operation is prompt -> model -> parse -> result.

Read `records.py` and `tasks/game24.py` first. The Agent knows no task: it asks the environment's
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

`usage` counts what the model cost: replies generated (`calls`) and served by the cache
(`hits`), text in and out, and the wall time spent waiting. A model that can say how many
tokens it used (`HttpPredictor.complete` returns the server's `usage`) is counted in tokens;
any other Predictor (TinyLLM, the stand-in) is counted in characters, and `usage.unit` says
which. When a framework asks for several samples of one prompt and `workers > 1`, CPython
draws them in parallel threads (for a server); in the page (Pyodide) always one at a time.

The proposal's shape is `Agent(); agent.initialize(model)`; `Agent(model)` does both.

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> from lllm.reasoning.tasks.game24 import Game24
    >>> env = Game24()
    >>> agent = Agent(ScriptedPredictor(["4 * 6 = 24 (left: 1 1 24)"]))
    >>> agent.act(env.reset(0), env)[0].current_state
    '1 1 24'
    >>> agent.act(env.reset(0), env)[0].current_state     # same state again: from the cache
    '1 1 24'
    >>> agent.usage.calls, agent.usage.hits, agent.usage.tokens_out, agent.usage.unit
    (1, 1, 25, 'chars')
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field, fields

from lllm.predictors.contract import Predictor
from lllm.reasoning.records import State, Verification

__all__ = ["Agent", "Usage"]


@dataclass
class Usage:
    calls: int = 0          # replies the model actually generated
    hits: int = 0           # replies served from the cache
    tokens_in: int = 0      # prompt size sent, in `unit`s
    tokens_out: int = 0     # completion size received, in `unit`s
    cached_in: int = 0      # prompt tokens the server reports it had cached (0 if it does not say)
    seconds: float = field(default=0.0, compare=False)   # wall time waiting for the model (varies run to run)
    unit: str = "chars"     # "tokens" when the model reported its own token counts

    def since(self, start: "Usage") -> "Usage":
        """What was spent after `start` (a copy taken earlier)."""
        counts = {f.name: getattr(self, f.name) - getattr(start, f.name) for f in fields(self) if f.name != "unit"}
        return Usage(**counts, unit=self.unit)


@dataclass
class Agent:
    model: Predictor | None = None
    namespace: str = "agent"
    max_new_tokens: int | None = None
    cache: dict = field(default_factory=dict)        # (namespace, prompt) -> [reply, ...]
    usage: Usage = field(default_factory=Usage)
    workers: int = 1                                 # parallel samples of one prompt (CPython only)

    def initialize(self, api: Predictor) -> "Agent":
        """The proposal's set-up: the model (any Predictor) this agent talks to; returns self."""
        self.model = api
        return self

    # ---- the one door to the model --------------------------------------------------------------

    # --8<-- [start:request]
    def request(self, prompt: str, n: int = 1, namespace: str | None = None) -> list[str]:
        """n replies to `prompt`; replies already drawn in this namespace are reused."""
        key = (self.namespace if namespace is None else namespace, prompt)
        replies = self.cache.setdefault(key, [])
        self.usage.hits += min(n, len(replies))
        missing = n - len(replies)
        if missing > 0:
            start = time.perf_counter()
            for text, counted in self._generate([prompt] * missing):
                replies.append(text)
                self._count(prompt, text, counted)
            self.usage.seconds += time.perf_counter() - start
        return replies[:n]
    # --8<-- [end:request]

    def _generate(self, prompts: list[str]) -> list[tuple[str, dict | None]]:
        """(reply, the model's own token counts or None) per prompt; in threads if allowed."""
        if self.model is None:
            raise ValueError("Agent has no model: call agent.initialize(predictor) first")
        complete = getattr(self.model, "complete", None)     # HttpPredictor: text and server usage

        def one(prompt: str) -> tuple[str, dict | None]:
            if complete is not None:
                return complete(prompt, self.max_new_tokens)
            return self.model(prompt, self.max_new_tokens), None

        if self.workers > 1 and len(prompts) > 1 and sys.platform != "emscripten":
            from concurrent.futures import ThreadPoolExecutor    # CPython only: Pyodide has no threads
            with ThreadPoolExecutor(min(self.workers, len(prompts))) as pool:
                return list(pool.map(one, prompts))           # map keeps the order: reproducible
        return [one(p) for p in prompts]

    def _count(self, prompt: str, reply: str, counted: dict | None) -> None:
        self.usage.calls += 1
        if counted is None:                                  # no token counts: count characters
            self.usage.tokens_in += len(prompt)
            self.usage.tokens_out += len(reply)
            return
        self.usage.unit = "tokens"
        self.usage.tokens_in += counted.get("prompt_tokens", 0)
        self.usage.tokens_out += counted.get("completion_tokens", 0)
        self.usage.cached_in += counted.get("cached_tokens", 0)

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

    def reflect(self, state: State, environment, verification: Verification | None = None) -> str | None:
        """A lesson from a failed attempt (verified here unless given), to carry into the next one."""
        verification = verification if verification is not None else environment.verify(state)
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
