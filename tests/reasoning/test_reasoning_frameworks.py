"""Dummy, IO, CoT, CoT-SC, ReAct and Reflexion (lllm/reasoning/frameworks.py) on scripted replies."""

from lllm.predictors.contract import ScriptedPredictor
from lllm.reasoning import CoT, CoTSC, Dummy, IO, ReAct, Reflexion
from lllm.reasoning.agent import Agent, Usage
from lllm.reasoning.tasks.game24 import Game24

env = Game24()


def run(framework, replies, idx=1196):
    model = ScriptedPredictor(replies)
    framework.initialize(Agent(model), env)
    return framework.run(idx), [p.splitlines()[-1] for p in model.prompts]


def test_docstring_example():
    result, cues = run(IO(), ["Answer: 12 + 12 + 12 - 12 = 24"], idx=36)
    assert result.verification == (True, True, "12 + 12 + 12 - 12 = 24")
    assert cues == ["Answer:"]


def test_dummy_takes_one_step_and_values_it():
    result, cues = run(Dummy(), ["2 + 2 = 4 (left: 4 9 12)", "sure"])
    assert cues == ["Next step:", "Evaluation:"]
    assert result.state.steps == ("2 + 2 = 4 (left: 4 9 12)",)
    assert result.tree[1].value == 20.0
    assert result.verification == (False, False, "3 numbers left: 4 9 12")


def test_io_and_cot_answer_once():
    io, _ = run(IO(), [" 2 + 2 + 9 + 12 = 24"])
    assert io.verification == (True, False, "2 + 2 + 9 + 12 = 25, not 24")
    assert (io.usage.calls, io.usage.hits, io.usage.tokens_out) == (1, 0, len(" 2 + 2 + 9 + 12 = 24"))
    cot, cues = run(CoT(), ["\n2 + 2 = 4 (left: 4 9 12)\n4 * 9 = 36 (left: 12 36)\n36 - 12 = 24 (left: 24)\n"
                            "Answer: (2 + 2) * 9 - 12 = 24"])
    assert cues == ["Steps:"]
    assert cot.verification.correct
    assert len(cot.state.steps) == 4


def test_cot_sc_takes_the_majority_answer():
    right, wrong = "Answer: (2 + 2) * 9 - 12 = 24", "Answer: 2 + 2 + 9 + 12 = 24"
    result, cues = run(CoTSC(k=3), [wrong, right, " Answer:  (2 + 2) * 9 - 12  = 24"])
    assert cues == ["Steps:"] * 3
    assert result.verification.correct
    assert [n.note for n in result.tree] == ["root", "outvoted", "chosen", "outvoted"]
    outvoted, _ = run(CoTSC(k=3), [wrong, right, wrong])
    assert outvoted.verification == (True, False, "2 + 2 + 9 + 12 = 25, not 24")


def test_react_retries_a_rejected_step_and_goes_on():
    result, cues = run(ReAct(), [
        " Four nines are 36.\nAction: 2 + 2 = 4 (left: 4 9 12)",
        " 36 is 12 more than 24.\nAction: 4 * 9 = 37 (left: 12 37)",       # rejected by the environment
        " Again.\nAction: 4 * 9 = 36 (left: 12 36)",
        " Done.\nAction: 36 - 12 = 24 (left: 24)"])
    assert cues == ["Thought:"] * 4
    assert result.verification == (True, True, "reached 24 in 3 steps")
    assert [(n.parent, n.note) for n in result.tree] == [
        (None, "root"), (0, "Four nines are 36."), (1, "36 is 12 more than 24."), (1, "Again."), (3, "Done.")]
    assert result.tree[2].state.current_state == "invalid: 4 * 9 is 36, not 37"


def test_react_stops_at_a_dead_end():
    result, _ = run(ReAct(), [" a\nAction: 2 + 2", " b\nAction: 4 + 9", " c\nAction: 13 + 12"])
    assert result.verification == (True, False, "reached 25, not 24")
    assert len(result.tree) == 4


def test_reflexion_retries_with_its_lesson():
    result, cues = run(Reflexion(), [
        "\n2 * 2 = 4 (left: 4 9 12)\nAnswer: 2 * 2 + 9 + 12 = 24",
        " Avoid starting with 2 * 2 = 4 (left: 4 9 12).",
        "\n2 + 2 = 4 (left: 4 9 12)\nAnswer: (2 + 2) * 9 - 12 = 24"])
    assert cues == ["Steps:", "Lesson:", "Steps:"]
    assert result.verification.correct
    assert result.state.reflexions == ("Avoid starting with 2 * 2 = 4 (left: 4 9 12).",)
    assert [n.note for n in result.tree] == ["root", "2 * 2 + 9 + 12 = 25, not 24", "(2 + 2) * 9 - 12 = 24"]


def test_reflexion_gives_up_after_max_trials():
    wrong = "\nAnswer: 2 + 2 + 9 + 12 = 24"
    result, cues = run(Reflexion(max_trials=2), [wrong, " Avoid that.", wrong])
    assert cues == ["Steps:", "Lesson:", "Steps:"]                    # no lesson after the last trial
    assert not result.verification.correct
