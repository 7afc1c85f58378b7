"""The Brookfield stand-in (lllm/predictors/standins/multihop.py): it reads only the prompt."""

import pytest

from lllm.model.sampling import Mulberry32
from lllm.reasoning.tasks.multihop import BrookfieldQA
from lllm.reasoning.records import Inference
from lllm.predictors.standins.multihop import SimulatedReader, answer_in

env = BrookfieldQA()


def perfect():
    return SimulatedReader(error_rate=0.0, rng=Mulberry32(1))


def test_docstring_example():
    assert perfect()(env.prompter.act(env.reset(1))) == " lookup[bram]"


def test_it_follows_the_bridge_then_answers():
    s = env.step(Inference(action="lookup[bram]"), env.reset(1))
    assert perfect()(env.prompter.act(s)) == " lookup[lina]"
    s = env.step(Inference(action="lookup[lina]"), s)
    assert perfect()(env.prompter.act(s)) == " Answer: 5"
    assert perfect()(env.prompter.evaluate(s)) == " sure"


def test_without_the_tool_it_knows_nothing():
    assert perfect()(env.prompter.io(env.reset(1))) == " I do not know."


def test_answer_patterns():
    assert answer_in("What colour is the wheel where Tom lives?", ["The mill is by the river. Its wheel is blue."]) == "blue"
    assert answer_in("When does the shop open?", ["The bakery opens at 6:30. Mira bakes 12 loaves a day."]) == "6:30"
    assert answer_in("How old is Tom?", ["Pip is Mira's grey cat."]) is None


def test_a_lesson_bans_a_wrong_answer():
    s = env.step(Inference(action="lookup[bread]"), env.reset(10))
    banned = s.__class__(s.puzzle, s.current_state, s.steps, reflexions=("Do not answer 2.",))
    assert perfect()(env.prompter.act(banned)) != " Answer: 2"


def test_rates_are_checked():
    with pytest.raises(ValueError, match=r"value_noise must be in \[0, 1\], got 2"):
        SimulatedReader(0.1, value_noise=2)
