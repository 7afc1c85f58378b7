"""Layer 3 · a finished run's search as a tree you can open: each state, its value, its verification, the answer's path.

Read `frameworks.py` (Node, Result) and `search.py` first. Every framework records the states it
visits as a flat list of Nodes (id, parent, state, value, note). This module only *reads* a
finished Result — it calls no model and changes nothing the framework did — and turns it into
`SearchNode`s that a terminal prints and a page draws:

    label         one line: the step taken, the value, the note, what the environment's verify says
    depth         how deep in the tree (the root is 0)
    on_path       the node lies on the path from the root to the framework's answer
    verification  the environment's verdict on this node's state (verify is a pure check)

The answer node is the first node in the tree whose state equals the Result's final state and
that was not pruned (a Fleet of Agents can have two agents reach the same steps; both nodes'
paths are the same steps). `format_search_tree` is the text `python -m lllm reason --tree`
prints, and `search_tree_record` is the JSON the reasoning lab draws as an accessible tree: the
same labels, so a test can compare the page with the terminal line by line.

Usage:

    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> from lllm.reasoning import Agent, Game24, ToTBFS
    >>> model = ScriptedPredictor(["4 * 6 = 24 (left: 1 1 24)\\n1 + 1 = 2 (left: 2 4 6)", "sure", "likely",
    ...                            "1 * 1 = 1 (left: 1 24)", "sure", "1 * 24 = 24 (left: 24)"])
    >>> bfs, env = ToTBFS(breadth=1, n_evaluate=1), Game24()
    >>> bfs.initialize(Agent(model), env)
    >>> tree = search_tree(bfs.run(0), env)
    >>> [n.id for n in tree if n.on_path]
    [0, 1, 3, 4]
    >>> print(format_search_tree(tree))
    * #0 puzzle 1 1 4 6 | root | open: 4 numbers left: 1 1 4 6 | on the answer path
    *   #1 4 * 6 = 24 (left: 1 1 24) | value 20 | kept | open: 3 numbers left: 1 1 24 | on the answer path
    *     #3 1 * 1 = 1 (left: 1 24) | value 20 | kept | open: 2 numbers left: 1 24 | on the answer path
    *       #4 1 * 24 = 24 (left: 24) | value 20 | kept | correct: reached 24 in 3 steps | the answer
        #2 1 + 1 = 2 (left: 2 4 6) | value 1 | pruned | open: 3 numbers left: 2 4 6
"""

from __future__ import annotations

from dataclasses import dataclass

from lllm.reasoning.frameworks import Result
from lllm.reasoning.records import Verification

__all__ = ["SearchNode", "search_tree", "answer_path", "format_search_tree", "search_tree_record"]

PATH_MARK = "on the answer path"      # said in words, so the path is not shown by colour alone
ANSWER_MARK = "the answer"


@dataclass(frozen=True)
class SearchNode:
    id: int
    parent: int | None
    depth: int
    steps: tuple[str, ...]
    left: str                          # the state's current_state ("4 6 12", "invalid: ...")
    value: float | None
    note: str                          # the framework's note: kept, pruned, expanded, a thought ...
    verification: Verification
    on_path: bool
    is_answer: bool
    label: str                         # the one line both the terminal and the page show


# ---- the path the framework answered with ----------------------------------------------------------

# --8<-- [start:path]
def answer_path(result: Result) -> list[int]:
    """Node ids from the root to the answer node (empty if no node holds the final state)."""
    by_id = {node.id: node for node in result.tree}
    answer = next((n for n in result.tree if n.state == result.state and n.note != "pruned"), None)
    path = []
    while answer is not None:
        path.append(answer.id)
        answer = by_id.get(answer.parent) if answer.parent is not None else None
    return path[::-1]
# --8<-- [end:path]


# ---- the tree ----------------------------------------------------------------------------------------

def search_tree(result: Result, environment) -> list[SearchNode]:
    """The run's nodes in tree order (each parent before its children, siblings in the order made)."""
    path = answer_path(result)
    on_path, answer = set(path), (path[-1] if path else None)
    children: dict[int | None, list] = {}
    for node in result.tree:
        children.setdefault(node.parent, []).append(node)
    out: list[SearchNode] = []

    def visit(node, depth: int) -> None:
        verification = environment.verify(node.state)
        label = _label(node, verification, node.id in on_path, node.id == answer)
        out.append(SearchNode(node.id, node.parent, depth, node.state.steps, node.state.current_state, node.value,
                              node.note, verification, node.id in on_path, node.id == answer, label))
        for child in children.get(node.id, []):
            visit(child, depth + 1)

    for root in children.get(None, []):
        visit(root, 0)
    return out


def _label(node, verification: Verification, on_path: bool, is_answer: bool) -> str:
    state = node.state
    parts = [f"#{node.id} " + (state.steps[-1] if state.steps else f"puzzle {state.puzzle}")]
    if node.value is not None:
        parts.append(f"value {node.value:g}")
    if node.note:
        parts.append(node.note)
    if node.visits:
        parts.append(f"visits {node.visits}")
    if node.merged:
        parts.append("also from " + ", ".join(f"#{m}" for m in node.merged))
    verdict = "correct" if verification.correct else "wrong" if verification.finished else "open"
    parts.append(f"{verdict}: {verification.message}")
    if on_path:
        parts.append(ANSWER_MARK if is_answer else PATH_MARK)
    return " | ".join(" ".join(p.split()) for p in parts)       # one line, whatever a thought held


# ---- shown: text for the terminal, records for the page -------------------------------------------

def format_search_tree(tree: list[SearchNode]) -> str:
    """Indented text, two spaces a level; a leading `*` marks the path as well as the words."""
    return "\n".join(f"{'*' if n.on_path else ' '} {'  ' * n.depth}{n.label}" for n in tree)


def search_tree_record(tree: list[SearchNode]) -> list[dict]:
    """JSON-ready nodes for the page, in the same order and with the same labels as the text."""
    return [{"id": n.id, "parent": n.parent, "depth": n.depth, "label": n.label, "on_path": n.on_path,
             "is_answer": n.is_answer, "value": n.value, "note": n.note, "left": n.left,
             "finished": n.verification.finished, "correct": n.verification.correct} for n in tree]
