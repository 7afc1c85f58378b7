"""Layer 3 · RAP: Monte-Carlo tree search over reasoning steps, rewarded by the model's own value.

Read `search.py` first. Reasoning via Planning (Hao et al., 2023) treats reasoning as planning:
the model proposes actions, and its own judgement of a state is the reward. Monte-Carlo tree
search spends a budget of `iterations`, each one:

    Select     from the root, follow the child with the best UCT score
               mean reward + exploration * sqrt(ln(parent visits + 1) / (child visits + 1)),
               where a child's own value counts as one visit's reward, down to a leaf
    Expand     propose the leaf's next steps; value each (agent.evaluate: the reward)
    Back up    the best new child's reward (normalised by the largest value seen in this run,
               so the framework needs no task's scale) is added along the path

A state the environment verifies as correct ends the search; a finished wrong state is a leaf
with reward 0. If the budget runs out, the answer is the most-visited path. (RAP's rollouts
are replaced by the model's value of the new state, the paper's "fast reward".)

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> from lllm.reasoning import Agent, Game24
    >>> model = ScriptedPredictor(["4 * 6 = 24 (left: 1 1 24)", "sure", "1 * 1 = 1 (left: 1 24)", "sure",
    ...                            "1 * 24 = 24 (left: 24)"])
    >>> rap = RAP(iterations=5, n_evaluate=1)
    >>> rap.initialize(Agent(model), Game24())
    >>> result = rap.run(0)
    >>> result.verification.correct, [n.visits for n in result.tree]
    (True, [3, 3, 2, 1])
"""

from __future__ import annotations

import math

from lllm.reasoning.frameworks import Framework, Result
from lllm.reasoning.search import unique

__all__ = ["RAP"]


# --8<-- [start:rap]
class RAP(Framework):
    name = "rap"

    def __init__(self, iterations: int = 12, n_evaluate: int = 3, exploration: float = 1.0):
        self.iterations, self.n_evaluate, self.exploration = iterations, n_evaluate, exploration

    def run(self, puzzle_idx: int) -> Result:
        root = self._begin(puzzle_idx)
        self.children: dict[int, list[int]] = {}
        self.reward_sum: dict[int, float] = {0: 0.0}
        self.top = 0.0                                                  # the largest value seen
        for _ in range(self.iterations):
            path = self._select()                                       # Select
            leaf = self.tree[path[-1]]
            check = self.environment.verify(leaf.state)
            if check.correct:
                return self._finish(puzzle_idx, leaf.state)
            if check.finished:
                reward = 0.0                                            # a dead end
            else:
                best = self._expand(path[-1])                           # Expand
                if best is not None and self.environment.verify(self.tree[best].state).correct:
                    path.append(best)
                    self._backup(path, 1.0)
                    return self._finish(puzzle_idx, self.tree[best].state)
                reward = self._reward(best)
                if best is not None:
                    path.append(best)
            self._backup(path, reward)                                  # Back up
        return self._finish(puzzle_idx, self.tree[self._most_visited()].state)
# --8<-- [end:rap]

    # ---- the four moves ----------------------------------------------------------------------------

    def _uct(self, parent: int, child: int) -> float:
        """The child's value counts as one visit's reward, so unvisited children are ranked too."""
        n = self.tree[child].visits + 1
        mean = (self.reward_sum[child] + self._reward(child)) / n
        return mean + self.exploration * math.sqrt(math.log(self.tree[parent].visits + 1) / n)

    def _select(self) -> list[int]:
        path = [0]
        while self.children.get(path[-1]):
            parent = path[-1]
            path.append(max(self.children[parent], key=lambda c: self._uct(parent, c)))   # first on ties
        return path

    def _expand(self, node: int) -> int | None:
        """Propose and value the leaf's children; the best-valued one (None if there are none)."""
        state = self.tree[node].state
        ids = []
        for child in unique(self.agent.propose(state, self.environment)):
            value = self.agent.evaluate(child, self.environment, self.n_evaluate)
            self.top = max(self.top, value)
            ids.append(self._node(child, node, value, "expanded"))
            self.reward_sum[ids[-1]] = 0.0
        self.children[node] = ids
        return max(ids, key=lambda i: self.tree[i].value) if ids else None

    def _reward(self, node: int | None) -> float:
        if node is None or self.top <= 0:
            return 0.0
        return self.tree[node].value / self.top

    def _backup(self, path: list[int], reward: float) -> None:
        for node in path:
            self.tree[node].visits += 1
            self.reward_sum[node] = self.reward_sum.get(node, 0.0) + reward

    def _most_visited(self) -> int:
        node = 0
        while self.children.get(node):
            node = max(self.children[node], key=lambda c: self.tree[c].visits)
        return node
