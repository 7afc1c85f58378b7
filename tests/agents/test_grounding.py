"""Grounding: a final answer that rests on no observation is flagged, with typed reasons, and only then."""

import pytest

from lllm.agents.grounding import LABEL, Ungrounded, label, ungrounded, words
from lllm.agents.react import grounding, run_react, terminal_text, trajectory_json
from lllm.predictors.contract import ScriptedPredictor

NOTHING, REPEATS = Ungrounded.NOTHING_OBSERVED, Ungrounded.REPEATS_GOAL


# ---- the rule, on words ------------------------------------------------------------------------

def test_words_are_lowercase_letters_and_digits():
    assert words("Where does Lina live?") == {"where", "does", "lina", "live"}
    assert words("calc[144 / 12]") == {"calc", "144", "12"}


@pytest.mark.parametrize("goal, answer, observations, expected", [
    ("What is the capital of France?", "capital", [], (NOTHING, REPEATS)),
    ("Where does Lina live?", "Where", [], (NOTHING, REPEATS)),
    ("What is 2 + 2?", "4", [], (NOTHING,)),                                  # right, but nothing observed
    ("What is 17 * 23?", "17", ["391"], (REPEATS,)),                          # a tool ran; the answer ignores it
    ("What is 144 / 12?", "12", ["12"], ()),                                  # the goal's word, and the tool's
    ("Who is Pip?", "Pip is Mira's grey cat.", ["Pip is Mira's grey cat."], ()),
    ("What is 17 * 23?", None, [], ()),                                       # no answer: nothing to judge
])
def test_the_rule(goal, answer, observations, expected):
    assert ungrounded(goal, answer, observations) == expected


def test_without_tools_only_repeating_the_goal_is_flagged():
    assert ungrounded("Say hello.", "hello", [], tools_available=False) == (REPEATS,)
    assert ungrounded("What is 2 + 2?", "4", [], tools_available=False) == ()


def test_the_label_names_every_reason():
    assert label(()) == ""
    assert label((NOTHING, REPEATS)) == f"{LABEL}: no tool answered; the answer only repeats words of the goal"


# ---- the rule on a run, with a scripted predictor ------------------------------------------------

def run(goal, *replies):
    return run_react(goal, ScriptedPredictor(list(replies)), return_trajectory=True)


def test_a_grounded_answer_after_an_observation_is_not_flagged():
    trajectory = run("What is 17 * 23?", "Thought: compute\nAction: calc[17 * 23]", "Final Answer: 391")
    assert grounding(trajectory) == ()
    assert terminal_text(trajectory).endswith("Final Answer: 391\n")
    assert trajectory_json(trajectory)["ungrounded"] == []


def test_a_parroting_answer_is_flagged():
    trajectory = run("What is the capital of France?", "Thought: repeat capital\nFinal Answer: capital")
    assert grounding(trajectory) == (NOTHING, REPEATS)
    assert terminal_text(trajectory).splitlines()[-1] == (
        "(not grounded in any observation: no tool answered; the answer only repeats words of the goal)")


def test_an_answer_with_no_tool_use_on_a_tool_goal_is_flagged():
    trajectory = run("Where does Lina live?", "Thought: I know this\nFinal Answer: on Hill Road")
    assert grounding(trajectory) == (NOTHING,)
    assert trajectory_json(trajectory)["ungrounded"] == ["no tool answered"]


def test_failed_tool_calls_are_not_observations():
    trajectory = run("Where does Lina live?", "Action: weather[Lina]", "Action: lookup[dragons]",
                     "Final Answer: Hill Road")
    assert [s.outcome.value for s in trajectory.steps] == ["unknown tool", "tool error", "final answer"]
    assert grounding(trajectory) == (NOTHING,)


def test_an_answer_that_ignores_the_observation_and_repeats_the_goal_is_flagged():
    trajectory = run("What is 17 * 23?", "Action: calc[17 * 23]", "Final Answer: 17")
    assert grounding(trajectory) == (REPEATS,)


def test_a_forced_step_is_an_observation():
    trajectory = run("calc[12 * 7]", "Final Answer: 84")
    assert trajectory.steps[0].forced and grounding(trajectory) == ()
