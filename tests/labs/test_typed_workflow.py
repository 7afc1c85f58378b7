"""The typed workflow: the happy path validates end to end, every illegal transition is refused while
the run is happening, malformed model output becomes an explicit ERROR step."""


import pytest

from lllm.predictors import RulePredictor
from lllm.commands import main
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.react import REPAIR_OBSERVATION, run_react
from lllm.labs.typed_workflow import (TRANSITIONS, IllegalTransition, StepKind, TypedStep, TypedTrajectory,
                                 run_typed)

K = StepKind
GOAL, THOUGHT, FINAL = TypedStep(K.GOAL, "q"), TypedStep(K.THOUGHT, "t"), TypedStep(K.FINAL, "a")
ACTION, OBS, ERROR = TypedStep(K.ACTION, "", "calc", "1+1"), TypedStep(K.OBSERVATION, "2"), TypedStep(K.ERROR, "bad")
BY_KIND = {K.GOAL: GOAL, K.THOUGHT: THOUGHT, K.ACTION: ACTION, K.OBSERVATION: OBS, K.FINAL: FINAL, K.ERROR: ERROR}
PREFIX = {None: [], K.GOAL: [GOAL], K.THOUGHT: [GOAL, THOUGHT], K.ACTION: [GOAL, ACTION],
          K.OBSERVATION: [GOAL, ACTION, OBS], K.ERROR: [GOAL, ERROR], K.FINAL: [GOAL, FINAL]}


def test_the_happy_path_validates_end_to_end():
    run = run_typed("What is 17 * 23?", RulePredictor())
    assert TypedTrajectory.validate(run.steps) == run
    assert run.completed and run.answer == "391"
    assert run.render().splitlines()[2] == " 3. ACTION      calc[17 * 23]"


@pytest.mark.parametrize("last, kind", [(last, kind) for last in PREFIX for kind in K
                                        if kind not in TRANSITIONS[last]])
def test_every_illegal_transition_is_refused(last, kind):
    trajectory = TypedTrajectory.validate(PREFIX[last])
    with pytest.raises(IllegalTransition, match=f"{kind.name} cannot follow"):
        trajectory.append(BY_KIND[kind])
    assert trajectory.steps == tuple(PREFIX[last])                 # the parent is never mutated


def test_every_legal_transition_is_accepted():
    for last, allowed in TRANSITIONS.items():
        for kind in allowed:
            assert TypedTrajectory.validate(PREFIX[last]).append(BY_KIND[kind]).steps[-1].kind is kind


def test_step_records_are_frozen_and_checked():
    with pytest.raises(Exception):
        THOUGHT.text = "changed"
    with pytest.raises(ValueError, match="ACTION step needs a tool"):
        TypedStep(K.ACTION, "")
    with pytest.raises(ValueError, match="FINAL step takes no tool"):
        TypedStep(K.FINAL, "x", tool="calc")


def test_malformed_output_is_an_error_step_and_the_model_sees_the_repair():
    brain = ScriptedPredictor(["I am not sure", "Thought: compute\nAction: calc[2 + 2]", "Final Answer: 4"])
    run = run_typed("What is 2 + 2?", brain)
    assert [s.kind for s in run.steps] == [K.GOAL, K.ERROR, K.THOUGHT, K.ACTION, K.OBSERVATION, K.FINAL]
    assert run.steps[1].text == "malformed output: 'I am not sure'"
    assert brain.prompts[1].endswith(f"Observation: {REPAIR_OBSERVATION}\n")


def test_prompts_are_the_react_loops_prompts():
    replies = ["Thought: compute 6 * 7\nAction: calc[6 * 7]", "nonsense", "Final Answer: 42"]
    typed, plain = ScriptedPredictor(replies), ScriptedPredictor(replies)
    run_typed("What is 6 times 7?", typed)
    run_react("What is 6 times 7?", plain)
    assert typed.prompts == plain.prompts


def test_a_run_that_never_answers_is_capped_and_incomplete():
    run = run_typed("What is 2 + 2?", ScriptedPredictor(["hmm"], cycle=True), max_turns=3)
    assert [s.kind for s in run.steps] == [K.GOAL, K.ERROR, K.ERROR, K.ERROR]
    assert not run.completed and run.answer is None


def test_a_failing_predictor_is_an_error_step():
    def broken(prompt, max_new_tokens=None):
        raise ConnectionError("server down")
    run = run_typed("What is 2 + 2?", broken)
    assert run.steps[-1] == TypedStep(K.ERROR, "predictor error: ConnectionError: server down")


def test_cli_prints_numbered_steps_and_completion(capsys):
    assert main(["workflow", "What is 6 times 7?", "--predictor", "rule"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == " 1. GOAL        What is 6 times 7?"
    assert out.strip().endswith("completed: yes, answer '42'")
    with pytest.raises(SystemExit) as exit_:
        main(["workflow", "  "])
    assert exit_.value.code == 2
    assert "GOAL is empty" in capsys.readouterr().err
