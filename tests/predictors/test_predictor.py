"""The Predictor contract and the scripted predictor (lllm/predictors/contract.py)."""

import pytest

from lllm.predictors.contract import Predictor, ScriptedPredictor, ScriptExhausted


def test_docstring_example():
    brain = ScriptedPredictor(["Thought: add them", "Final Answer: 5"])
    assert brain("What is 2 + 3?") == "Thought: add them"
    assert brain("...", max_new_tokens=5) == "Final"
    assert brain.prompts == ["What is 2 + 3?", "..."]


def test_is_a_predictor():
    assert isinstance(ScriptedPredictor(["x"]), Predictor)
    assert isinstance(lambda prompt, max_new_tokens=None: "", Predictor)


def test_runs_out_loudly_unless_cycling():
    once = ScriptedPredictor(["a"])
    once("p")
    with pytest.raises(ScriptExhausted, match="only 1 replies"):
        once("p")
    looping = ScriptedPredictor(["a", "b"], cycle=True)
    assert [looping("p") for _ in range(5)] == ["a", "b", "a", "b", "a"]


def test_bad_scripts_are_refused():
    with pytest.raises(ValueError, match="at least one reply"):
        ScriptedPredictor([])
    with pytest.raises(TypeError, match="reply 1 is int"):
        ScriptedPredictor(["ok", 3])
    with pytest.raises(ValueError, match="max_new_tokens"):
        ScriptedPredictor(["ok"])("p", max_new_tokens=-1)
