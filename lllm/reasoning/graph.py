"""Layer 3 · Graph of Thoughts: thoughts that meet are merged, rejected ones refined, the best kept.

Read `search.py` first (Tree of Thoughts). Graph of Thoughts (Besta et al., 2024) writes a
reasoning strategy as a graph of operations over thoughts. For Game of 24 it is this loop:

    Generate   propose next steps from every kept thought
    Refine     a step the environment rejects gets one more try (agent.act, new randomness)
    Aggregate  thoughts that reach the same position become one node with several parents
    Score      value each new thought (the model's votes)
    KeepBest   keep the best `breadth`; repeat `depth` times

Merging is what makes it a graph: "2 + 2, then 9 + 12" and "9 + 12, then 2 + 2" reach the same
numbers (4 21), so they become one node, valued once and kept once, that records both parents
(`merged`) and keeps the first path's steps.

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> from lllm.reasoning import Agent, Game24
    >>> model = ScriptedPredictor(["4 * 6 = 24 (left: 1 1 24)\\n1 * 1 = 1 (left: 1 4 6)", "sure", "sure",
    ...                            "1 * 1 = 1 (left: 1 24)", "sure",
    ...                            "1 * 24 = 24 (left: 24)"])
    >>> got = GraphOfThoughts(breadth=1, n_evaluate=1)
    >>> got.initialize(Agent(model), Game24())
    >>> got.run(0).verification
    Verification(finished=True, correct=True, message='reached 24 in 3 steps')
"""

from __future__ import annotations

from lllm.reasoning.frameworks import Framework, Result
from lllm.reasoning.records import State

__all__ = ["GraphOfThoughts", "position"]


def position(state: State) -> tuple:
    """What a thought has reached, whatever the path: two thoughts at one position are merged."""
    return state.puzzle, state.current_state, state.reflexions


# --8<-- [start:got]
class GraphOfThoughts(Framework):
    name = "got"

    def __init__(self, breadth: int = 5, n_evaluate: int = 3, depth: int = 3):
        self.breadth, self.n_evaluate, self.depth = breadth, n_evaluate, depth

    def run(self, puzzle_idx: int) -> Result:
        root = self._begin(puzzle_idx)
        frontier = [(root, 0)]                                          # (thought, node id)
        for _ in range(self.depth):
            level: dict[tuple, int] = {}                                # position -> its node
            for state, parent in frontier:
                for child in self.agent.propose(state, self.environment):          # Generate
                    child = self._refine(state, child)                              # Refine
                    node = level.get(position(child))
                    if node is not None:                                            # Aggregate
                        if parent != self.tree[node].parent and parent not in self.tree[node].merged:
                            self.tree[node].merged.append(parent)
                        continue
                    level[position(child)] = self._node(child, parent)
            nodes = list(level.values())
            for node in nodes:                                                      # Score
                self.tree[node].value = self.agent.evaluate(self.tree[node].state, self.environment, self.n_evaluate)
            ranked = sorted(nodes, key=lambda n: -self.tree[n].value)              # stable on ties
            for rank, node in enumerate(ranked):                                    # KeepBest
                self.tree[node].note = "kept" if rank < self.breadth else "pruned"
            if not ranked:
                break
            frontier = [(self.tree[n].state, n) for n in ranked[:self.breadth]]
        return self._finish(puzzle_idx, frontier[0][0])
# --8<-- [end:got]

    def _refine(self, parent: State, child: State) -> State:
        """One more try from the parent for a step the environment rejected."""
        if not child.current_state.startswith("invalid"):
            return child
        retry = self.agent.act(parent.duplicate(parent.randomness + 1), self.environment)[0]
        return child if retry.current_state.startswith("invalid") else retry
