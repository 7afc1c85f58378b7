"""RAP, Monte-Carlo tree search rewarded by the model's value (lllm/reasoning/mcts.py)."""

from lllm.model.sampling import Mulberry32
from lllm.predictors.contract import ScriptedPredictor
from lllm.reasoning import RAP, Agent, Game24, SimulatedModel

env = Game24()


def run(framework, model, idx=1196):                     # 2 2 9 12
    framework.initialize(Agent(model), env)
    return framework.run(idx)


def test_docstring_example():
    model = ScriptedPredictor(["4 * 6 = 24 (left: 1 1 24)", "sure", "1 * 1 = 1 (left: 1 24)", "sure",
                               "1 * 24 = 24 (left: 24)"])
    result = run(RAP(iterations=5, n_evaluate=1), model, idx=0)
    assert result.verification.correct and [n.visits for n in result.tree] == [3, 3, 2, 1]


def test_selection_follows_the_higher_value_and_visits_add_up():
    model = ScriptedPredictor(["2 + 2 = 4 (left: 4 9 12)\n9 + 12 = 21 (left: 2 2 21)", "sure", "impossible",
                               "9 + 12 = 21 (left: 4 21)", "impossible"])
    result = run(RAP(iterations=2, n_evaluate=1, exploration=0.0), model)
    assert [(n.id, n.parent, n.state.current_state, n.visits) for n in result.tree] == [
        (0, None, "2 2 9 12", 2), (1, 0, "4 9 12", 2), (2, 0, "2 2 21", 0), (3, 1, "4 21", 1)]
    assert not result.verification.finished                    # budget spent: the most-visited path
    assert result.state.current_state == "4 21"


def test_it_solves_and_reproduces_on_the_stand_in():
    a = run(RAP(), SimulatedModel(0.3, Mulberry32(1)), idx=900)
    b = run(RAP(), SimulatedModel(0.3, Mulberry32(1)), idx=900)
    assert a.verification.correct and [n.visits for n in a.tree] == [n.visits for n in b.tree]
