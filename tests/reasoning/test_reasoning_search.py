"""Tree of Thoughts (BFS, DFS) and Fleet of Agents (lllm/reasoning/search.py)."""

from lllm.predictors.contract import ScriptedPredictor
from lllm.reasoning import Agent, FleetOfAgents, Game24, SimulatedModel, State, ToTBFS, ToTDFS
from lllm.model.sampling import Mulberry32

env = Game24()


def run(framework, model, idx=1196):
    framework.initialize(Agent(model), env)
    return framework.run(idx)


def test_docstring_example():
    model = ScriptedPredictor(["12 + 12 = 24 (left: 12 12 24)", "sure", "12 - 12 = 0 (left: 0 24)", "sure",
                               "0 + 24 = 24 (left: 24)"])
    result = run(ToTBFS(breadth=1, n_evaluate=1), model, idx=36)
    assert result.verification == (True, True, "reached 24 in 3 steps")
    assert [p.splitlines()[-1] for p in model.prompts] == ["Possible next steps:", "Evaluation:"] * 2 + ["Possible next steps:"]


def test_bfs_keeps_the_best_valued_states():
    model = ScriptedPredictor(["\n9 + 12 = 21 (left: 2 2 21)\n2 + 2 = 4 (left: 4 9 12)\n2 * 9 = 18 (left: 2 12 18)\n2 + 2",
                               "impossible", "sure", "likely"])
    result = run(ToTBFS(breadth=2, n_evaluate=1, depth=1), model)
    assert [(n.state.current_state, n.value, n.note) for n in result.tree] == [
        ("2 2 9 12", None, "root"),
        ("4 9 12", 20.0, "kept"), ("2 12 18", 1.0, "kept"), ("2 2 21", 0.001, "pruned")]
    assert result.state.current_state == "4 9 12"                   # the duplicate "2 + 2" was dropped


def test_dfs_prunes_low_values_and_backs_up():
    model = ScriptedPredictor([
        "\n9 + 12 = 21 (left: 2 2 21)\n2 + 2 = 4 (left: 4 9 12)",  # propose from the root
        "sure", "likely",                                           # values: the wrong one looks better
        "2 * 2 = 4 (left: 4 21)", "impossible",                     # deeper: pruned, so back up
        "4 * 9 = 36 (left: 12 36)", "sure",
        "36 - 12 = 24 (left: 24)"])                                 # valued by the environment, free
    result = run(ToTDFS(n_evaluate=1), model)
    assert result.verification.correct
    assert [(n.parent, n.state.current_state, n.note) for n in result.tree] == [
        (None, "2 2 9 12", "root"), (0, "2 2 21", "kept"), (1, "4 21", "pruned"),
        (0, "4 9 12", "kept"), (3, "12 36", "kept"), (4, "24", "kept")]


def test_dfs_gives_up_within_its_budget():
    model = ScriptedPredictor(["2 + 2 = 4 (left: 4 9 12)", "impossible"])
    result = run(ToTDFS(n_evaluate=1), model)
    assert result.verification == (False, False, "4 numbers left: 2 2 9 12")
    assert result.tree[-1].note == "pruned"


def test_fleet_solves_with_a_perfect_model_and_reproduces():
    a = run(FleetOfAgents(n_agents=3), SimulatedModel(0.0, Mulberry32(1)))
    b = run(FleetOfAgents(n_agents=3), SimulatedModel(0.0, Mulberry32(1)))
    assert a.verification == (True, True, "reached 24 in 3 steps")
    assert [n.state for n in a.tree] == [n.state for n in b.tree]
    assert [n.parent for n in a.tree[:4]] == [None, 0, 0, 0]          # three agents start at the root
    assert len({n.state.randomness for n in a.tree[1:4]}) == 3         # ... each with its own samples


def test_fleet_backtracks_to_an_earlier_state_when_the_fleet_looks_hopeless():
    foa = FleetOfAgents(n_agents=4, n_evaluate=1)
    foa.initialize(Agent(ScriptedPredictor(["impossible"], cycle=True)), env)
    foa._begin(1196)
    earlier = State("2 2 9 12", "4 9 12", ("2 + 2 = 4 (left: 4 9 12)",))
    past = {earlier: (20.0, earlier, 0)}
    dead = State("2 2 9 12", "2 2 21", ("9 + 12 = 21 (left: 2 2 21)",))
    foa.tree.append(foa.tree[0].__class__(1, 0, dead))
    fleet = foa._resample([(dead, 1)] * 4, past, Mulberry32(3))
    assert [s for s, _ in fleet] == [earlier] * 4                     # everyone goes back
    assert len({s.randomness for s, _ in fleet}) == 4                 # with fresh samples each
    assert past[earlier][0] == 10.0                                   # older states count less
