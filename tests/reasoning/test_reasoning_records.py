"""The shared records of lllm/reasoning/records.py: State, Inference, Verification."""

import dataclasses

import pytest

from lllm.reasoning.records import Inference, State, Verification


def test_docstring_example():
    s = State(puzzle="4 4 6 8", current_state="4 4 6 8")
    t = s.step("4 + 8 = 12 (left: 4 6 12)", "4 6 12")
    assert t.steps == ("4 + 8 = 12 (left: 4 6 12)",)
    assert s.steps == ()
    assert t.log() == "puzzle 4 4 6 8 | left 4 6 12 | randomness 0\n  1. 4 + 8 = 12 (left: 4 6 12)"


def test_hash_and_equality_ignore_randomness():
    a = State("4 4 6 8", "4 6 12", ("4 + 8 = 12 (left: 4 6 12)",), randomness=1)
    b = a.duplicate(randomness=99)
    assert b.randomness == 99 and a.randomness == 1
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1


def test_different_positions_differ():
    a = State("4 4 6 8", "4 6 12", ("4 + 8 = 12 (left: 4 6 12)",))
    assert a != State("4 4 6 8", "4 4 14", ("6 + 8 = 14 (left: 4 4 14)",))
    assert a != dataclasses.replace(a, reflexions=("Avoid starting with 4 + 8.",))


def test_states_never_change():
    s = State("1 2 3 4", "1 2 3 4")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.current_state = "x"


def test_log_shows_lessons():
    s = State("1 2 3 4", "1 2 3 4", reflexions=("Avoid starting with 1 + 2.",), randomness=3)
    assert s.log() == "puzzle 1 2 3 4 | left 1 2 3 4 | randomness 3\n  lesson: Avoid starting with 1 + 2."


def test_named_tuples():
    assert Inference(action="1 + 2") == ("1 + 2", None, None, None)
    assert Inference(value=20.0).value == 20.0
    v = Verification(True, False, "reached 5, not 24")
    assert (v.finished, v.correct, v.message) == (True, False, "reached 5, not 24")
