"""The Brookfield multi-hop task (lllm/reasoning/tasks/multihop.py): data, steps, exact scoring."""

import pytest

from lllm.agents.tools import FACTS
from lllm.predictors.contract import ScriptedPredictor
from lllm.reasoning import Agent, Inference, ReAct, Reflexion, State
from lllm.reasoning.tasks.multihop import BrookfieldQA, load_brookfield, normalize
from lllm.reasoning.data import DataError
from lllm.predictors.standins.multihop import answer_in

env = BrookfieldQA()


def test_docstring_example():
    s = env.step(Inference(action="lookup[bram]"), env.reset(1))
    assert s.current_state == "Bram is Lina's brown goat."
    assert env.verify(env.step(Inference(action="Answer: 5"), s)) == (True, True, "'5' is right")


def test_every_question_is_answered_by_following_its_hops():
    """The oracle: each hop's topic is named in the question or an earlier fact, the last fact holds the answer."""
    data = load_brookfield()
    assert len(data) == 11 and data.get_set_idxs("test") == list(range(11))
    for row in data.rows:
        seen = row["question"].lower()
        for topic in row["hops"].split():
            assert topic in seen.replace("'", " ").split() or topic in seen, (row["question"], topic)
            seen += " " + FACTS[topic].lower()
        assert answer_in(row["question"], [FACTS[t] for t in row["hops"].split()]) == row["answer"]


def test_unknown_topics_are_observations_and_nonsense_is_rejected():
    s = env.step(Inference(action="lookup[dragons]"), env.reset(0))
    assert s.current_state.startswith("error: no fact about 'dragons'")
    assert not env.verify(s).finished
    bad = env.step(Inference(action="fly away"), env.reset(0))
    assert env.verify(bad) == (True, False, "invalid: expected lookup[topic] or Answer: ...")


def test_scoring_is_exact_up_to_case_and_the_message_hides_the_gold():
    s = env.reset(7)                                   # On which street does the owner of Pip live?
    assert env.verify(env.step(Inference(action="Answer: apple street."), s)).correct
    wrong = env.verify(env.step(Inference(action="Answer: Hill Road"), s))
    assert wrong == (True, False, "'Hill Road' is not the answer")
    assert normalize("  Apple  Street. ") == "apple street"


def test_nothing_follows_an_answer():
    done = env.step(Inference(action="Answer: 11"), env.reset(0))
    assert env.step(Inference(action="lookup[tom]"), done) is done


def test_react_uses_the_tool_and_the_prompt_shows_the_observations():
    model = ScriptedPredictor([" Pip first.\nAction: lookup[pip]", " Now Mira.\nAction: lookup[mira]",
                               " Found it.\nAction: Answer: Apple Street"])
    react = ReAct()
    react.initialize(Agent(model), env)
    result = react.run(7)
    assert result.verification.correct
    assert "Action: lookup[pip]\nObservation: Pip is Mira's grey cat.\n" in model.prompts[1]


def test_reflexion_with_react_attempts_carries_a_lesson():
    model = ScriptedPredictor([" x\nAction: Answer: 3", " Do not answer 3.", " y\nAction: lookup[bread]",
                               " z\nAction: Answer: 2"])
    reflexion = Reflexion(max_trials=2, actor="react")
    reflexion.initialize(Agent(model), env)
    result = reflexion.run(10)                          # How many coins does a loaf of bread cost?
    assert result.verification.correct
    assert "Lesson: Do not answer 3.\n" in model.prompts[2]


def test_a_csv_without_the_columns_is_named(tmp_path):
    path = tmp_path / "qa.csv"
    path.write_text("q,a\nx,y\n")
    with pytest.raises(DataError, match=r"qa.csv: missing column\(s\) question, answer, hops"):
        load_brookfield(str(path))
