"""A finished run's search tree (lllm/reasoning/search_tree.py): its shape, values and verdicts come from
the run's own nodes; the marked path is a real root-to-answer path; `reason --tree` prints what the lab draws."""

import json

import pytest

from lllm.commands import main
from lllm.labs.reasoning_bench.benchmark import lab_json, make_environment, make_framework, stand_in
from lllm.reasoning.agent import Agent
from lllm.reasoning.frameworks import Node, Result
from lllm.reasoning.records import State, Verification
from lllm.reasoning.search_tree import answer_path, format_search_tree, search_tree, search_tree_record
from lllm.reasoning.tasks.game24 import Game24

SEARCHERS = ["tot-bfs", "tot-dfs", "got", "rap", "foa"]


def run(framework: str, puzzle: int = 900, seed: int = 1, task: str = "game24"):
    environment = make_environment(task)
    f = make_framework(framework, seed, task)
    f.initialize(Agent(stand_in(task, 0.5, None)(seed)), environment)
    return f.run(puzzle), environment


@pytest.mark.parametrize("framework", SEARCHERS + ["io", "cot-sc", "react", "reflexion"])
def test_every_node_is_drawn_once_below_its_parent_with_its_value_and_verdict(framework):
    result, environment = run(framework)
    tree = search_tree(result, environment)
    assert sorted(n.id for n in tree) == [n.id for n in result.tree]
    depth = {}
    for node in tree:                                              # a parent always comes before its children
        depth[node.id] = 0 if node.parent is None else depth[node.parent] + 1
        assert node.depth == depth[node.id]
        source = result.tree[node.id]
        assert (node.value, node.note, node.steps) == (source.value, source.note, source.state.steps)
        assert node.verification == environment.verify(source.state)
        if node.value is not None:
            assert f"value {node.value:g}" in node.label
    assert tree[0].parent is None and tree[0].label.startswith("#0 puzzle")


@pytest.mark.parametrize("framework", SEARCHERS)
@pytest.mark.parametrize("puzzle", [900, 950, 990])
def test_the_marked_path_runs_from_the_root_to_the_answer_the_framework_gave(framework, puzzle):
    result, environment = run(framework, puzzle)
    tree = search_tree(result, environment)
    path = answer_path(result)
    by_id = {n.id: n for n in tree}
    assert by_id[path[0]].parent is None
    assert all(by_id[child].parent == parent for parent, child in zip(path, path[1:]))
    # An independent oracle: the node at depth d on the path has taken exactly the answer's first d steps.
    assert [by_id[i].steps for i in path] == [result.state.steps[:d] for d in range(len(path))]
    assert {n.id for n in tree if n.on_path} == set(path)
    assert [n.id for n in tree if n.is_answer] == [path[-1]]
    assert by_id[path[-1]].verification == result.verification
    assert not any(n.on_path and n.note == "pruned" for n in tree)
    assert all(("on the answer path" in n.label or "the answer" in n.label) == n.on_path for n in tree)


def test_of_several_solved_leaves_only_the_one_returned_is_marked():
    result, environment = run("tot-bfs", 900)
    tree = search_tree(result, environment)
    solved = [n for n in tree if n.verification.correct]
    assert len(solved) >= 3                                        # BFS keeps several ways to 24 ...
    assert [n.is_answer for n in solved].count(True) == 1         # ... and answers with the first kept one
    assert next(n for n in solved if n.is_answer).steps == result.state.steps
    assert result.verification.correct


def test_a_pruned_copy_of_the_answer_is_not_the_answer():
    """Two nodes hold the same final state; the pruned one comes first in the list and must not be marked."""
    root = State("4 6 1 1", "4 6 1 1")
    end = root.step("4 * 6 = 24 (left: 1 1 24)", "1 1 24")
    nodes = [Node(0, None, root, note="root"), Node(1, 0, end, 1.0, "pruned"), Node(2, 0, end, 3.0, "kept")]
    result = Result("tot-bfs", 0, end, Verification(False, False, "3 numbers left"), nodes)
    assert answer_path(result) == [0, 2]
    assert format_search_tree(search_tree(result, Game24())).splitlines()[1].startswith("    #1 4 * 6 = 24")


def test_a_run_without_the_final_state_marks_nothing():
    root = State("4 6 1 1", "4 6 1 1")
    result = Result("io", 0, root.step("Answer: 24", "24"), Verification(True, False, "no"), [Node(0, None, root)])
    assert answer_path(result) == [] and not any(n.on_path for n in search_tree(result, Game24()))


def test_reason_tree_prints_the_labels_the_lab_draws(capsys):
    status = main(["reason", "--framework", "tot-bfs", "--puzzle", "950", "--seed", "1", "--tree"])
    printed = capsys.readouterr().out.splitlines()
    assert status == 0
    lab = json.loads(lab_json(json.dumps({"kind": "run", "task": "game24", "puzzle": 950, "framework": "tot-bfs",
                                          "error_rate": 0.5, "value_noise": 0.5, "seed": 1, "model": "stand-in"})))
    drawn = [("* " if n["on_path"] else "  ") + "  " * n["depth"] + n["label"] for n in lab["search"]]
    assert printed[:-1] == drawn
    assert printed[-1].startswith(f"-> {lab['verification']['message']}")
    assert sum(line.startswith("*") for line in printed) == len(lab["steps"]) + 1    # the root and one node per step


def test_reason_tree_json_and_the_records_agree():
    result, environment = run("got", 950)
    tree = search_tree(result, environment)
    records = search_tree_record(tree)
    assert [r["label"] for r in records] == [n.label for n in tree]
    assert [r["id"] for r in records if r["on_path"]] == answer_path(result)
