"""The reasoning Agent and its cache (lllm/reasoning/agent.py), driven by scripted replies."""

import pytest

from lllm.predictors.contract import ScriptedPredictor
from lllm.reasoning.agent import Agent, Usage
from lllm.reasoning.tasks.game24 import Game24
from lllm.reasoning.records import State, Verification

env = Game24()
ROOT = State("2 2 9 12", "2 2 9 12")


def test_docstring_example():
    agent = Agent(ScriptedPredictor(["4 * 6 = 24 (left: 1 1 24)"]))
    assert agent.act(env.reset(0), env)[0].current_state == "1 1 24"
    assert agent.act(env.reset(0), env)[0].current_state == "1 1 24"
    assert (agent.usage.calls, agent.usage.hits, agent.usage.tokens_out, agent.usage.unit) == (1, 1, 25, "chars")


def test_request_draws_only_missing_samples():
    agent = Agent(ScriptedPredictor(["a", "b", "c", "d"]))
    assert agent.request("p", 2) == ["a", "b"]
    assert agent.request("p", 3) == ["a", "b", "c"]
    assert agent.usage == Usage(calls=3, hits=2, tokens_in=3, tokens_out=3)     # characters: "p" in, "a" out
    assert agent.request("p", 1, namespace="other") == ["d"]       # a new namespace: new samples


def test_duplicates_get_fresh_steps_but_share_values():
    model = ScriptedPredictor(["2 + 2 = 4 (left: 4 9 12)", "2 * 9 = 18 (left: 2 12 18)", "sure"])
    agent = Agent(model)
    first = agent.act(ROOT, env)[0]
    second = agent.act(ROOT.duplicate(randomness=1), env)[0]
    assert (first.current_state, second.current_state) == ("4 9 12", "2 12 18")
    assert agent.evaluate(second, env) == 20.0
    assert agent.evaluate(second.duplicate(randomness=5), env) == 20.0   # the same position: cached
    assert (agent.usage.calls, agent.usage.hits) == (3, 1)


def test_act_samples_n():
    agent = Agent(ScriptedPredictor(["2 + 2", "nonsense"]))
    states = agent.act(ROOT, env, n=2)
    assert [s.current_state for s in states] == ["4 9 12", "invalid: 'nonsense' is not of the form 'a op b = c (left: ...)'"]


def test_propose_makes_one_state_per_line():
    agent = Agent(ScriptedPredictor(["\n2 + 2 = 4 (left: 4 9 12)\n9 - 2 = 7 (left: 2 7 12)\n"]))
    assert [s.current_state for s in agent.propose(ROOT, env)] == ["4 9 12", "2 7 12"]
    assert agent.model.prompts[0].endswith("Input: 2 2 9 12\nPossible next steps:")


def test_react_returns_the_thought_and_the_next_state():
    agent = Agent(ScriptedPredictor([" 2 * 12 = 24 needs a 12.\nAction: 2 + 2 = 4 (left: 4 9 12)"]))
    [(thought, state)] = agent.react(ROOT, env)
    assert thought == "2 * 12 = 24 needs a 12."
    assert state.steps == ("2 + 2 = 4 (left: 4 9 12)",)


def test_reflect_returns_a_lesson():
    agent = Agent(ScriptedPredictor([" Avoid starting with 2 + 2.\n"]))
    lesson = agent.reflect(ROOT, env, Verification(True, False, "reached 25, not 24"))
    assert lesson == "Avoid starting with 2 + 2."
    assert "Feedback: reached 25, not 24" in agent.model.prompts[0]


def test_evaluate_sums_votes_and_uses_the_free_heuristic_first():
    agent = Agent(ScriptedPredictor(["sure", "likely", "impossible"]))
    assert agent.evaluate(ROOT, env, n=3) == 20.0 + 1.0 + 0.001
    done = State("2 2 9 12", "24", ("x",))
    assert agent.evaluate(done, env) == 20.0
    assert agent.usage.calls == 3                                    # no call for the finished state


def test_answer_io_and_cot():
    agent = Agent(ScriptedPredictor([" (2 + 2) * 9 - 12 = 24", "\n2 + 2 = 4 (left: 4 9 12)\nAnswer: 2 * 9 + 12 / 2 = 24"]))
    [(_, io)] = agent.answer(ROOT, env, style="io")
    [(thought, cot)] = agent.answer(ROOT, env, style="cot")
    assert env.verify(io).correct and env.verify(cot).correct
    assert thought == "2 + 2 = 4 (left: 4 9 12)"
    assert agent.model.prompts[0].endswith("Answer:") and agent.model.prompts[1].endswith("Steps:")


def test_answer_style_is_checked():
    with pytest.raises(ValueError, match="style must be 'io' or 'cot', got 'tot'"):
        Agent(ScriptedPredictor(["x"])).answer(ROOT, env, style="tot")


def test_max_new_tokens_reaches_the_model():
    agent = Agent(ScriptedPredictor(["2 + 2 = 4 (left: 4 9 12)"]), max_new_tokens=5)
    assert agent.act(ROOT, env)[0].steps == ("2 + 2 = 4 (left: 4 9 12)",)   # "2 + 2" is a bare step


def test_the_proposal_shape_initializes_the_model_later():
    agent = Agent()
    with pytest.raises(ValueError, match=r"Agent has no model: call agent.initialize\(predictor\) first"):
        agent.request("p")
    assert agent.initialize(ScriptedPredictor(["a"])) is agent
    assert agent.request("p") == ["a"]


class CountingModel:
    """A model that reports token counts the way HttpPredictor.complete does."""

    def complete(self, prompt, max_new_tokens=None):
        return prompt.upper(), {"prompt_tokens": 10, "completion_tokens": 2, "cached_tokens": 4}


def test_a_model_that_counts_its_tokens_is_counted_in_tokens():
    agent = Agent(CountingModel(), workers=3)
    assert agent.request("ab", 3) == ["AB", "AB", "AB"]             # drawn in three threads, in order
    assert agent.usage == Usage(calls=3, hits=0, tokens_in=30, tokens_out=6, cached_in=12, unit="tokens")


def test_usage_since_subtracts_and_keeps_the_unit():
    later = Usage(calls=5, hits=2, tokens_in=50, tokens_out=9, cached_in=4, seconds=1.5, unit="tokens")
    assert later.since(Usage(calls=1, tokens_in=10)) == Usage(4, 2, 40, 9, 4, unit="tokens")


def test_reflect_verifies_the_attempt_when_not_told():
    agent = Agent(ScriptedPredictor([" Avoid 2 + 2."]))
    attempt = ROOT.step("Answer: 2 + 2 + 9 + 12 = 24", "invalid: 25")
    assert agent.reflect(attempt, env) == "Avoid 2 + 2."
    assert "Feedback: 2 + 2 + 9 + 12 = 25, not 24" in agent.model.prompts[0]
