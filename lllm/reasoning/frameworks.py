"""Layer 3 · reasoning frameworks without search: Dummy, IO, CoT, CoT-SC, ReAct, Reflexion.

Read `agent.py` first; the search frameworks (ToT, Fleet of Agents) are in `search.py`. A
Framework knows neither the task nor the model. It is given an Agent and an Environment and
composes the agent's operations (act, answer, react, reflect, evaluate) with the environment's
reset and verify:

    framework = CoT()
    framework.initialize(agent, environment)
    result = framework.run(puzzle_idx)       # Result: final state, verification, tree, usage

Every framework records the states it visits as a tree of Nodes, so a page can draw the search.

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> from lllm.reasoning import Agent, Game24
    >>> io = IO()
    >>> io.initialize(Agent(ScriptedPredictor(["Answer: 4 * 6 * 1 * 1 = 24"])), Game24())
    >>> io.run(0).verification
    Verification(finished=True, correct=True, message='4 * 6 * 1 * 1 = 24')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from lllm.reasoning.agent import Agent, Usage
from lllm.reasoning.records import State, Verification

__all__ = ["Framework", "Node", "Result", "Dummy", "IO", "CoT", "CoTSC", "ReAct", "Reflexion", "react_episode"]


# ---- what a run returns -------------------------------------------------------------------------

@dataclass
class Node:
    """One visited state in a run: its parent, the value it was given, and what became of it."""
    id: int
    parent: int | None
    state: State
    value: float | None = None
    note: str = ""                  # "root", "kept", "pruned", "solved", "failed", a thought ...
    merged: list[int] = field(default_factory=list)   # other parents that reached this state (GoT)
    visits: int = 0                 # times a tree search passed through it (RAP)


@dataclass
class Result:
    framework: str
    puzzle_idx: int
    state: State                    # the framework's final answer state
    verification: Verification
    tree: list[Node] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)    # model calls and cache hits for this run


class Framework:
    """initialize(agent, environment), then run(puzzle_idx) -> Result."""
    name = "framework"

    def initialize(self, agent: Agent, environment) -> None:
        self.agent = agent
        self.environment = environment

    def run(self, puzzle_idx: int) -> Result:
        raise NotImplementedError

    # ---- bookkeeping shared by every framework ----------------------------------------------------

    def _begin(self, puzzle_idx: int) -> State:
        self.tree: list[Node] = []
        self._usage_at_start = replace(self.agent.usage)
        root = self.environment.reset(puzzle_idx)
        self._node(root, None, note="root")
        return root

    def _node(self, state: State, parent: int | None, value: float | None = None, note: str = "") -> int:
        self.tree.append(Node(len(self.tree), parent, state, value, note))
        return len(self.tree) - 1

    def _finish(self, puzzle_idx: int, state: State) -> Result:
        usage = self.agent.usage.since(self._usage_at_start)
        return Result(self.name, puzzle_idx, state, self.environment.verify(state), self.tree, usage)


# ---- one step, one value (the seed's example) ---------------------------------------------------

class Dummy(Framework):
    name = "dummy"

    def run(self, puzzle_idx: int) -> Result:
        state = self._begin(puzzle_idx)
        next_state = self.agent.act(state, self.environment)[0]
        value = self.agent.evaluate(next_state, self.environment)
        self._node(next_state, 0, value)
        return self._finish(puzzle_idx, next_state)


# ---- one answer ------------------------------------------------------------------------------------

# --8<-- [start:io]
class IO(Framework):
    """Input -> output: ask for the answer directly, once."""
    name = "io"
    style = "io"

    def run(self, puzzle_idx: int) -> Result:
        root = self._begin(puzzle_idx)
        thought, answer = self.agent.answer(root, self.environment, 1, self.style)[0]
        self._node(answer, 0, note=thought or "")
        return self._finish(puzzle_idx, answer)
# --8<-- [end:io]


class CoT(IO):
    """Chain of thought: the same, but the prompt shows worked steps before the answer."""
    name = "cot"
    style = "cot"


# --8<-- [start:cot-sc]
class CoTSC(Framework):
    """Self-consistency: k chains of thought, then the most frequent answer wins."""
    name = "cot-sc"

    def __init__(self, k: int = 5):
        self.k = k

    def run(self, puzzle_idx: int) -> Result:
        root = self._begin(puzzle_idx)
        samples = self.agent.answer(root, self.environment, self.k, "cot")
        answers = [state for _, state in samples]
        votes = Counter(" ".join(s.steps[-1].split()) for s in answers)
        winner = max(answers, key=lambda s: votes[" ".join(s.steps[-1].split())])   # first on ties
        for thought, state in samples:
            self._node(state, 0, note="chosen" if state is winner else "outvoted")
        return self._finish(puzzle_idx, winner)
# --8<-- [end:cot-sc]


# ---- a loop with feedback ---------------------------------------------------------------------------

# --8<-- [start:react]
class ReAct(Framework):
    """Think, act one step, observe what the environment made of it; repeat.

    A step the environment rejects is an observation, not the end: the agent samples again
    from the same state (at most `max_steps` model turns in all). It never goes back.
    """
    name = "react"

    def __init__(self, max_steps: int = 6):
        self.max_steps = max_steps

    def run(self, puzzle_idx: int) -> Result:
        root = self._begin(puzzle_idx)
        return self._finish(puzzle_idx, react_episode(self, root, 0, self.max_steps))


def react_episode(framework: Framework, state: State, parent: int, max_steps: int) -> State:
    """ReAct's loop from `state` (tree node `parent`), recorded in `framework`'s tree; the last state."""
    agent, environment, last = framework.agent, framework.environment, state
    for turn in range(max_steps):
        thought, last = agent.react(state, environment)[0]                        # think + act
        verification = environment.verify(last)                                   # observe
        node = framework._node(last, parent, note=thought or "")
        if verification.correct or (verification.finished and not last.current_state.startswith("invalid")):
            break                                                                 # solved, or a dead end
        if last.current_state.startswith("invalid"):
            state = state.duplicate(state.randomness + 1)                         # rejected: try again
        else:
            state, parent = last, node
    return last
# --8<-- [end:react]


# --8<-- [start:reflexion]
class Reflexion(Framework):
    """Attempt; if the verifier says no, write a lesson and try again with it.

    An attempt is one chain of thought (`actor="cot"`, for Game of 24) or a whole ReAct episode
    (`actor="react"`, for tasks that need a tool, as the Reflexion paper ran HotpotQA).
    """
    name = "reflexion"

    def __init__(self, max_trials: int = 3, actor: str = "cot", max_steps: int = 6):
        if actor not in ("cot", "react"):
            raise ValueError(f"actor must be 'cot' or 'react', got {actor!r}")
        self.max_trials, self.actor, self.max_steps = max_trials, actor, max_steps

    def _attempt(self, state: State) -> State:
        if self.actor == "react":
            return react_episode(self, state, 0, self.max_steps)     # its steps join this tree
        thought, attempt = self.agent.answer(state, self.environment, 1, "cot")[0]
        self._node(attempt, 0)
        return attempt

    def run(self, puzzle_idx: int) -> Result:
        state = self._begin(puzzle_idx)
        for trial in range(self.max_trials):
            attempt = self._attempt(state)
            verification = self.environment.verify(attempt)
            self.tree[-1].note = verification.message                 # the attempt's last node
            if verification.correct or trial == self.max_trials - 1:
                break
            lesson = self.agent.reflect(attempt, self.environment, verification)
            if lesson:
                state = replace(state, reflexions=state.reflexions + (lesson,), randomness=trial + 1)
            else:
                state = state.duplicate(trial + 1)
        return self._finish(puzzle_idx, attempt)
# --8<-- [end:reflexion]
