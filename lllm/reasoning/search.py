"""Layer 3 · search over reasoning steps: Tree of Thoughts (BFS, DFS) and Fleet of Agents.

Read `frameworks.py` first. One model call rarely solves Game of 24 because one wrong step
spoils the answer. These frameworks ask the model for *several* next steps and for a *value* of
each state, and keep going only from the promising ones:

    ToT-BFS    propose steps from every kept state, value them all, keep the best `breadth`
    ToT-DFS    go deep on the best-valued step first; prune below a value; back up on failure
    FoA        N agents each take one sampled step; every few steps value them all and resample
               the fleet in proportion to value, from the current states *and* earlier ones
               (backtracking, with a decay so old states count less)

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> from lllm.reasoning import Agent, Game24
    >>> model = ScriptedPredictor(["4 * 6 = 24 (left: 1 1 24)", "sure",
    ...                            "1 * 1 = 1 (left: 1 24)", "sure",
    ...                            "1 * 24 = 24 (left: 24)"])
    >>> bfs = ToTBFS(breadth=1, n_evaluate=1)
    >>> bfs.initialize(Agent(model), Game24())
    >>> bfs.run(0).verification
    Verification(finished=True, correct=True, message='reached 24 in 3 steps')
"""

from __future__ import annotations

import math

from lllm.model.sampling import Mulberry32
from lllm.reasoning.frameworks import Framework, Result
from lllm.reasoning.records import State

__all__ = ["ToTBFS", "ToTDFS", "FleetOfAgents"]


def unique(states: list[State]) -> list[State]:
    """Drop repeated states (equal positions reached by different proposals), keeping order."""
    seen, out = set(), []
    for s in states:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


# ---- Tree of Thoughts, breadth first -------------------------------------------------------------

# --8<-- [start:tot-bfs]
class ToTBFS(Framework):
    name = "tot-bfs"

    def __init__(self, breadth: int = 5, n_evaluate: int = 3, depth: int = 3):
        self.breadth, self.n_evaluate, self.depth = breadth, n_evaluate, depth

    def run(self, puzzle_idx: int) -> Result:
        root = self._begin(puzzle_idx)
        frontier = [(root, 0)]                                        # (state, node id)
        for _ in range(self.depth):
            children = []
            for state, node in frontier:                              # propose
                children += [(c, node) for c in unique(self.agent.propose(state, self.environment))]
            values = [self.agent.evaluate(c, self.environment, self.n_evaluate) for c, _ in children]
            ranked = sorted(zip(values, children), key=lambda vc: -vc[0])   # value; stable on ties
            kept, seen = [], set()
            for value, (child, parent) in ranked:                     # keep the best `breadth`
                keep = len(kept) < self.breadth and child not in seen
                seen.add(child)
                node = self._node(child, parent, value, "kept" if keep else "pruned")
                if keep:
                    kept.append((child, node))
            if not kept:
                break
            frontier = kept
        return self._finish(puzzle_idx, frontier[0][0])
# --8<-- [end:tot-bfs]


# ---- Tree of Thoughts, depth first --------------------------------------------------------------

# --8<-- [start:tot-dfs]
class ToTDFS(Framework):
    name = "tot-dfs"

    def __init__(self, n_evaluate: int = 3, threshold: float = 1.0, max_states: int = 20):
        self.n_evaluate, self.threshold, self.max_states = n_evaluate, threshold, max_states

    def run(self, puzzle_idx: int) -> Result:
        root = self._begin(puzzle_idx)
        self.visited = 0
        found = self._dfs(root, 0)
        return self._finish(puzzle_idx, found or root)

    def _dfs(self, state: State, node: int) -> State | None:
        verification = self.environment.verify(state)
        if verification.finished:
            return state if verification.correct else None
        children = unique(self.agent.propose(state, self.environment))
        scored = [(self.agent.evaluate(c, self.environment, self.n_evaluate), c) for c in children]
        for value, child in sorted(scored, key=lambda vc: -vc[0]):
            if value < self.threshold or self.visited >= self.max_states:
                self._node(child, node, value, "pruned")
                continue
            self.visited += 1
            found = self._dfs(child, self._node(child, node, value, "kept"))
            if found:
                return found
        return None                                                   # back up to the parent
# --8<-- [end:tot-dfs]


# ---- Fleet of Agents ----------------------------------------------------------------------------

# --8<-- [start:foa]
class FleetOfAgents(Framework):
    name = "foa"

    def __init__(self, n_agents: int = 5, max_steps: int = 8, resample_every: int = 1,
                 n_evaluate: int = 3, backtrack: float = 0.5, seed: int = 0):
        self.n_agents, self.max_steps, self.resample_every = n_agents, max_steps, resample_every
        self.n_evaluate, self.backtrack, self.seed = n_evaluate, backtrack, seed

    def run(self, puzzle_idx: int) -> Result:
        root = self._begin(puzzle_idx)
        rng = Mulberry32(self.seed * 1_000_003 + puzzle_idx)           # resampling draws, per puzzle
        fleet = [(root.duplicate(rng.next_u32()), 0) for _ in range(self.n_agents)]
        past: dict[State, tuple[float, State, int]] = {}                # state -> (value, state, node)
        for step in range(self.max_steps):
            fleet = [self._step(state, node) for state, node in fleet]     # every agent acts once
            solved = [s for s, _ in fleet if self.environment.verify(s).correct]
            if solved:
                return self._finish(puzzle_idx, solved[0])
            if (step + 1) % self.resample_every == 0:
                fleet = self._resample(fleet, past, rng)               # value, then resample
        best, _ = max(fleet, key=lambda sn: past[sn[0]][0] if sn[0] in past else 0.0)
        return self._finish(puzzle_idx, best)                          # unsolved: the best-valued agent
# --8<-- [end:foa]

    def _step(self, state: State, node: int) -> tuple[State, int]:
        if self.environment.verify(state).finished:
            return state, node                                        # stuck until resampled
        next_state = self.agent.act(state, self.environment)[0]
        rejected = next_state.current_state.startswith("invalid")
        return next_state, self._node(next_state, node, note=next_state.current_state if rejected else "step")

    def _resample(self, fleet, past, rng: Mulberry32):
        for state, node in fleet:
            value = self.agent.evaluate(state, self.environment, self.n_evaluate)
            self.tree[node].value = value
            past[state] = (value, state, node)
        pool = list(past.values())
        total = math.fsum(v for v, _, _ in pool)                      # the same on every Python
        chosen = []
        for _ in range(self.n_agents):
            if total <= 0:                                            # nothing looks good: start over
                chosen.append((self.tree[0].state.duplicate(rng.next_u32()), 0))
                continue
            target, acc = rng.uniform() * total, 0.0
            for value, state, node in pool:
                acc += value
                if acc > target:
                    break
            chosen.append((state.duplicate(rng.next_u32()), node))
        for key, (value, state, node) in past.items():                # older states count less
            past[key] = (value * self.backtrack, state, node)
        return chosen
