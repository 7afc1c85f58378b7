"""Trajectory evaluator and inference playground: a documented rubric, seeds, and a timing table."""


import pytest

from lllm.predictors import RulePredictor, echo
from lllm.labs.evaluator import RUBRIC, Score, evaluate_batch, evaluate_seeds, score_trajectory
from lllm.labs.inference_playground import Timed, compare, format_table
from lllm.labs.reliability import TestCase
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.react import run_react

CASE = TestCase("What is 17 * 23?", "calc", "17*23", "arithmetic", "391")


def test_rubric_weights_sum_to_one():
    assert sum(RUBRIC.values()) == pytest.approx(1.0)


def grade(replies, goal=CASE.goal, case=CASE, max_steps=4):
    trajectory = run_react(goal, ScriptedPredictor(replies), max_steps=max_steps, return_trajectory=True)
    return score_trajectory(trajectory, case, max_steps)


def test_a_perfect_run_scores_one():
    score = grade(["Action: calc[17 * 23]", "Final Answer: 391"])
    assert score == Score(format=1.0, tool=1.0, args=1.0, answer=1.0, efficiency=1.0, steps=2)
    assert score.total == pytest.approx(1.0)


def test_a_detour_costs_format_and_efficiency():
    score = grade(["hmm", "Action: calc[17 * 23]", "Final Answer: 391"])
    assert (score.format, score.efficiency, score.steps) == (pytest.approx(2 / 3), 0.5, 3)
    assert score.total == pytest.approx(0.2 * 2 / 3 + 0.2 + 0.2 + 0.3 + 0.1 * 0.5)


def test_a_wrong_answer_earns_no_efficiency():
    score = grade(["Action: calc[17 + 23]", "Final Answer: 40"])
    assert (score.tool, score.args, score.answer, score.efficiency) == (1.0, 0.0, 0.0, 0.0)


def test_forced_calls_are_not_the_models_credit():
    case = TestCase("calc[12 * 7]", "calc", "12*7", "direct", "84")
    score = grade(["Final Answer: 84"], goal=case.goal, case=case)
    assert (score.tool, score.args, score.answer, score.format) == (0.0, 0.0, 1.0, 1.0)


def test_garbage_scores_zero():
    assert grade(["lorem"] * 4).total == 0.0


def test_batch_returns_trajectories_and_scores():
    [(case, trajectory, score)] = evaluate_batch(RulePredictor(), [CASE])
    assert trajectory.answer == "391" and score.total == pytest.approx(1.0)


def test_seeds_give_mean_and_spread():
    replies = {0: ["Action: calc[17*23]", "Final Answer: 391"], 1: ["Final Answer: 0"]}
    report = evaluate_seeds(lambda seed: ScriptedPredictor(replies[seed]), [0, 1], [CASE], name="two")
    assert report.mean("answer") == 0.5 and report.spread("answer") == pytest.approx(0.707107)
    assert "answer          0.3   0.50   0.707  ##########" in report.format()
    assert report.to_dict()["mean"]["total"] == pytest.approx((1.0 + 0.2) / 2)   # seed 1: format only


def test_seeds_must_not_be_empty():
    with pytest.raises(ValueError, match="--seeds needs at least one seed"):
        evaluate_seeds(lambda seed: RulePredictor(), [], [CASE])


# ---- inference playground ------------------------------------------------------------------------

def test_timed_counts_calls_chars_and_seconds_with_a_fake_clock():
    ticks = iter([0.0, 0.5, 1.0, 1.25])
    timed = Timed(lambda prompt, n=None: "abcd", clock=lambda: next(ticks))
    timed("x"), timed("y")
    assert (timed.calls, timed.chars, timed.seconds) == (2, 8, 0.75)


def test_compare_builds_one_row_per_predictor():
    ticks = iter(range(1000))
    rows = compare({"rule": RulePredictor(), "echo": echo}, [CASE], clock=lambda: float(next(ticks)))
    assert [(r.name, r.passed, r.calls, r.seconds) for r in rows] == [("rule", 1, 2, 2.0), ("echo", 0, 4, 4.0)]
    assert rows[0].ms_per_call == 1000.0 and rows[0].chars_per_second == rows[0].chars / 2
    assert format_table(rows).splitlines()[1].startswith("rule                        1/1         2  1000.00")


def test_ungrounded_is_counted_with_weight_zero():
    replies = {0: ["Action: calc[17*23]", "Final Answer: 391"], 1: ["Final Answer: 17"]}
    report = evaluate_seeds(lambda seed: ScriptedPredictor(replies[seed]), [0, 1], [CASE], name="two")
    assert [run["ungrounded"] for run in report.per_seed] == [0.0, 1.0] and "ungrounded" not in RUBRIC
    assert "ungrounded            0.50   0.707  ##########" in report.format()
    assert report.to_dict()["mean"]["ungrounded"] == 0.5
