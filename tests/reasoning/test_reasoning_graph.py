"""Graph of Thoughts (lllm/reasoning/graph.py), driven by scripted replies."""

from lllm.model.sampling import Mulberry32
from lllm.predictors.contract import ScriptedPredictor
from lllm.reasoning import Agent, Game24, GraphOfThoughts, SimulatedModel

env = Game24()


def run(framework, model, idx=1196):                     # 2 2 9 12
    framework.initialize(Agent(model), env)
    return framework.run(idx)


def test_docstring_example():
    model = ScriptedPredictor(["4 * 6 = 24 (left: 1 1 24)\n1 * 1 = 1 (left: 1 4 6)", "sure", "sure",
                               "1 * 1 = 1 (left: 1 24)", "sure", "1 * 24 = 24 (left: 24)"])
    assert run(GraphOfThoughts(breadth=1, n_evaluate=1), model, idx=0).verification.correct


def test_equal_positions_from_two_parents_become_one_node():
    model = ScriptedPredictor([
        "2 + 2 = 4 (left: 4 9 12)\n9 + 12 = 21 (left: 2 2 21)", "sure", "likely",    # depth 1: two thoughts
        "9 + 12 = 21 (left: 4 21)", "2 + 2 = 4 (left: 4 21)",                      # depth 2: both reach 4 21
        "impossible"])
    result = run(GraphOfThoughts(breadth=2, n_evaluate=1, depth=2), model)
    merged = [(n.id, n.parent, n.merged, n.state.current_state) for n in result.tree if n.merged]
    assert merged == [(3, 1, [2], "4 21")]
    assert [n.note for n in result.tree] == ["root", "kept", "kept", "kept"]
    assert model.prompts[-1].endswith("Input: 4 21\nEvaluation:")                 # valued once


def test_a_rejected_step_is_refined_once():
    model = ScriptedPredictor(["2 + 2 = 5 (left: 5 9 12)", "2 + 2 = 4 (left: 4 9 12)", "sure"])
    result = run(GraphOfThoughts(breadth=1, n_evaluate=1, depth=1), model)
    assert [n.state.current_state for n in result.tree] == ["2 2 9 12", "4 9 12"]
    assert model.prompts[1].endswith("Next step:")                               # the refine asks act()


def test_it_reproduces_on_the_stand_in():
    a = run(GraphOfThoughts(), SimulatedModel(0.5, Mulberry32(3)), idx=900)
    b = run(GraphOfThoughts(), SimulatedModel(0.5, Mulberry32(3)), idx=900)
    assert a.verification.correct and [n.state for n in a.tree] == [n.state for n in b.tree]
