"""The Game of 24 environment, prompter and parser (lllm/reasoning/tasks/game24.py)."""

from lllm.reasoning.tasks.game24 import Game24
from lllm.reasoning.records import Inference, State, Verification

env = Game24()


def test_docstring_example():
    s = env.reset(36)
    assert s == State("12 12 12 12", "12 12 12 12")
    t = env.step(Inference(action="12 + 12 = 24 (left: 12 12 24)"), s)
    assert env.verify(t) == Verification(False, False, "3 numbers left: 12 12 24")
    assert env.verify(env.step(Inference(action="Answer: 12 + 12 + 12 - 12 = 24"), s)).correct


def test_three_steps_to_24():
    s = env.reset(1196)                                   # 2 2 9 12
    for step in ["2 + 2 = 4 (left: 4 9 12)", "4 * 9 = 36", "36 - 12 = 24 (left: 24)"]:
        s = env.get_next_state(Inference(action=step), s)
    assert s.steps == ("2 + 2 = 4 (left: 4 9 12)", "4 * 9 = 36 (left: 12 36)", "36 - 12 = 24 (left: 24)")
    assert s.current_state == "24"
    assert env.verify(s) == Verification(True, True, "reached 24 in 3 steps")


def test_wrong_final_number():
    s = State("2 2 9 12", "2 2 9 12")
    for step in ["2 + 2", "4 + 9", "13 + 12"]:
        s = env.step(Inference(action=step), s)
    assert env.verify(s) == Verification(True, False, "reached 25, not 24")


def test_malformed_and_impossible_steps_become_rejected_states():
    s = env.reset(1196)
    bad = env.step(Inference(action="two plus two"), s)
    assert bad.current_state == "invalid: 'two plus two' is not of the form 'a op b = c (left: ...)'"
    assert env.verify(bad) == Verification(True, False, "step 1: 'two plus two' is not of the form 'a op b = c (left: ...)'")
    assert env.verify(env.step(Inference(action="5 + 2"), s)).message == "step 1: 5 is not among the numbers left (2 2 9 12)"
    assert env.verify(env.step(Inference(action="2 + 2 = 5"), s)).message == "step 1: 2 + 2 is 4, not 5"
    assert env.step(Inference(action=None), s).current_state.startswith("invalid:")
    assert env.step(Inference(action="9 + 12"), bad) == bad              # nothing follows a broken step
    assert env.get_value(bad) == 0.0


def test_division_by_zero_is_a_rejection_not_a_crash():
    s = State("2 2 9 12", "0 9 12", ("2 - 2 = 0 (left: 0 9 12)",))
    t = env.step(Inference(action="9 / 0"), s)
    assert env.verify(t) == Verification(True, False, "step 2: 9 / 0 divides by zero")


def test_verify_replays_steps_and_trusts_no_current_state():
    forged = State("2 2 9 12", "24", ("2 * 12 = 24 (left: 24)",))
    assert env.verify(forged) == Verification(True, False, "step 1: after 2 * 12 the numbers left are 2 9 24, not 24")


def test_answers():
    s = env.reset(1196)
    right = env.step(Inference(action="Answer: (2 + 2) * 9 - 12 = 24"), s)
    assert right.current_state == "24" and env.verify(right) == Verification(True, True, "(2 + 2) * 9 - 12 = 24")
    assert env.verify(env.step(Inference(action="Answer: 2 * 12 = 24"), s)) == \
        Verification(True, False, "uses 2 12, but the puzzle is 2 2 9 12")
    assert env.verify(env.step(Inference(action="Answer: 2 + 2 + 9 + 12 = 24"), s)) == \
        Verification(True, False, "2 + 2 + 9 + 12 = 25, not 24")
    cot = env.step(Inference(action="Answer: (2 + 2) * 9 - 12 = 24", thought="2 + 2 = 4 (left: 4 9 12)"), s)
    assert cot.steps == ("2 + 2 = 4 (left: 4 9 12)", "Answer: (2 + 2) * 9 - 12 = 24")


def test_get_value_is_a_free_heuristic():
    assert env.get_value(env.reset(1196)) is None
    assert env.get_value(State("2 2 9 12", "24", ("x",))) == 20.0
    assert env.get_value(State("2 2 9 12", "25", ("x",))) == 0.0


def test_prompts_end_with_their_cue_and_show_the_numbers_left():
    s = State("2 2 9 12", "4 9 12", ("2 + 2 = 4 (left: 4 9 12)",), reflexions=("Avoid starting with 2 * 2.",))
    p = env.prompter
    assert p.act(s).endswith("- Avoid starting with 2 * 2.\nInput: 4 9 12\nNext step:")
    assert p.propose(s).endswith("Input: 4 9 12\nPossible next steps:")
    assert p.evaluate(s).endswith("Input: 4 9 12\nEvaluation:")
    assert p.io(s).endswith("Input: 4 9 12\nAnswer:")
    assert p.cot(s).endswith("Input: 4 9 12\nSteps:")
    assert "Action: 2 + 2 = 4 (left: 4 9 12)\nObservation: left 4 9 12\n" in p.react(s)
    reflect = p.reflect(s, Verification(True, False, "reached 25, not 24"))
    assert "Attempt:\n2 + 2 = 4 (left: 4 9 12)\nFeedback: reached 25, not 24" in reflect and reflect.endswith("Lesson:")


def test_parser():
    s = env.reset(1196)
    p = env.parser
    assert p.io(" (2 + 2) * 9 - 12 = 24\nInput: 1 1 1 1", s) == Inference(action="Answer: (2 + 2) * 9 - 12 = 24")
    assert p.cot("\n2 + 2 = 4 (left: 4 9 12)\nAnswer: (2 + 2) * 9 - 12 = 24", s) == \
        Inference(action="Answer: (2 + 2) * 9 - 12 = 24", thought="2 + 2 = 4 (left: 4 9 12)")
    assert p.act(" 2 + 2 = 4 (left: 4 9 12)\nmore", s) == Inference(action="2 + 2 = 4 (left: 4 9 12)")
    assert p.propose("\na\n\nb\n", s) == [Inference(action="a"), Inference(action="b")]
    assert p.react(" four is half of eight\nAction: 2 + 2", s) == Inference(action="2 + 2", thought="four is half of eight")
    assert p.react("no action at all", s).action == ""
    assert p.reflect(" Avoid 2 * 2.\n", s) == Inference(reflexion="Avoid 2 * 2.")
    assert p.evaluate(" 4 * 6 = 24. sure", s).value == 20.0
    assert p.evaluate(" hmm, likely", s).value == 1.0
    assert p.evaluate(" no idea", s).value is None
