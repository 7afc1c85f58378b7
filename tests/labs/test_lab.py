"""Reliability lab: a case passes only on the right tool, the right args and a checked final answer."""

import json
import re
from pathlib import Path

import pytest

from lllm.predictors import RulePredictor, echo, make_predictor
from lllm.agents.calc import calc
from lllm.labs.reliability import SUITE, LabReport, TestCase, evaluate_case, run_lab
from lllm.labs.scoring import answer_matches
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.tools import DEFAULT_TOOLS, lookup

MODEL = Path(__file__).resolve().parents[2] / "build" / "model" / "tinyllm.onnx"
CASE = TestCase("What is 17 * 23?", "calc", "17*23", "arithmetic", "391")


def test_suite_is_big_enough_and_its_answers_are_right():
    assert len(SUITE) >= 30 and len({c.category for c in SUITE}) >= 4
    for case in SUITE:
        if case.category in ("direct", "arithmetic", "arithmetic-words") and case.expected_tool == "calc":
            assert calc(case.expected_arg_contains) == case.expected_answer, case
        if case.expected_tool == "lookup":
            assert case.expected_answer.lower() in lookup(case.expected_arg_contains).lower(), case


@pytest.mark.parametrize("answer, expected, ok", [
    ("391", "391", True),
    ("17 * 23 = 391", "391", True),
    ("391.0", "391", True),
    ("1,000", "1000", True),
    ("391 or 392", "391", False),
    ("the answer", "391", False),
    (None, "391", False),
    ("Lina lives in the white house on Hill Road.", "Hill Road", True),
    ("Lina lives on the hill.", "Hill Road", False),
])
def test_answer_matches(answer, expected, ok):
    assert answer_matches(answer, expected) is ok


def test_a_right_run_passes():
    brain = ScriptedPredictor(["Action: calc[17 * 23]", "Final Answer: 391"])
    result = evaluate_case(CASE, brain)
    assert result.success and result.tool_calls == [("calc", "17 * 23")] and result.steps == 2


def test_the_right_tool_without_the_right_answer_fails():
    result = evaluate_case(CASE, ScriptedPredictor(["Action: calc[17 * 23]", "Final Answer: 7"]))
    assert (result.right_tool, result.right_args, result.right_answer, result.success) == (True, True, False, False)


def test_the_right_answer_without_the_tool_fails():
    result = evaluate_case(CASE, ScriptedPredictor(["Final Answer: 391"]))
    assert (result.right_tool, result.right_answer, result.success) == (False, True, False)


def test_an_echoing_predictor_scores_nothing():
    report = run_lab(echo, name="echo")
    assert report.passed == 0 and report.success_rate == 0.0


def test_rule_brain_report():
    report = run_lab(RulePredictor(), name="rule")
    assert (report.passed, len(report.results)) == (30, 34)
    assert {c: (row["passed"], row["total"]) for c, row in report.by_category().items()} == {
        "direct": (8, 8), "arithmetic": (8, 8), "arithmetic-words": (6, 6), "lookup": (8, 8),
        "word-problem": (0, 4)}
    text = report.format()
    assert "overall: 30/34 passed (88.2%)" in text
    assert "- [word-problem] 'There are 7 white ducks and 9 brown ducks. How many ducks?': " \
           "wanted calc[..7..] -> '16'; called no tool; answer \"I don't know\" (final answer)" in text
    data = json.loads(json.dumps(report.to_dict()))
    assert data["passed"] == 30 and data["by_category"]["lookup"]["answer"] == 8
    assert data["results"][0]["success"] is True


class Abort(BaseException):
    """Escapes run_react's error handling, like Ctrl-C would."""


def test_tools_are_untouched_even_when_the_agent_raises():
    before = [(t.name, t.fn) for t in DEFAULT_TOOLS]
    def explode(prompt, max_new_tokens=None):
        raise Abort()
    with pytest.raises(Abort):
        evaluate_case(TestCase("calc[1 + 1]", "calc", "1+1", "direct", "2"), explode)
    assert [(t.name, t.fn) for t in DEFAULT_TOOLS] == before
    assert DEFAULT_TOOLS[0].fn("1 + 1") == "2"


def test_an_agent_error_is_a_recorded_failure():
    result = evaluate_case(TestCase("", "calc", "1", "bad", "1"), RulePredictor())
    assert not result.success and result.error == "ValueError: goal is empty: ask the agent a question"
    assert "goal is empty" in LabReport("rule", [result]).format()


@pytest.mark.skipif(not MODEL.exists(), reason="run `make model` first")
def test_tinyllm_report_is_honest():
    report = run_lab(make_predictor(f"tinyllm:{MODEL}", seed=0), name="tinyllm")
    assert len(report.results) == len(SUITE)
    for r in report.results:
        if r.success:
            assert r.right_tool and answer_matches(r.answer, r.case.expected_answer)
    direct = report.by_category()["direct"]
    assert direct["tool"] == 8          # forcing ran the goal's tool; the answer is the model's job


def test_before_after_prints_both_models_on_the_held_out_goals(capsys):
    from lllm.commands import main
    from support.model_files import ensure_model, require_agent_model
    ensure_model()
    require_agent_model()
    assert main(["lab", "--before-after", "--per-group", "1"]) == 0
    out = capsys.readouterr().out
    assert "held-out test goals: 11, greedy, no forcing" in out
    assert "story model" in out and "agent model" in out


def test_before_after_bad_input_is_one_line(capsys):
    from lllm.commands import main
    with pytest.raises(SystemExit) as exit_:
        main(["lab", "--before-after", "--per-group", "0"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == "lllm lab: error: --per-group must be >= 1, got 0"


def test_an_ungrounded_answer_is_counted_apart_and_never_passes():
    """The right tool and args, a matching answer, but the tool refused: the answer rests on nothing."""
    case = TestCase("Who is Pip?", "lookup", "pip", "lookup", "cat")
    result = evaluate_case(case, ScriptedPredictor(["Action: lookup[pip and mira]", "Final Answer: a cat"]))
    assert (result.right_tool, result.right_args, result.right_answer) == (True, True, True)
    assert result.ungrounded and not result.success
    report = LabReport("scripted", [result])
    assert report.by_category()["lookup"]["ungrounded"] == 1
    assert "answer 'a cat' (final answer), not grounded in any observation" in report.format()


def test_the_rule_brain_has_one_ungrounded_answer():
    report = run_lab(RulePredictor(), name="rule")
    assert [r.case.goal for r in report.results if r.ungrounded] == [
        "There are 7 white ducks and 9 brown ducks. How many ducks?"]
    assert report.by_category()["word-problem"]["ungrounded"] == 1


def test_order_prints_each_brain_per_family_with_intervals(capsys):
    from lllm.commands import main
    from lllm.labs.heldout import order
    from support.model_files import require_agent_model
    require_agent_model()
    assert main(["lab", "--order", "--per-family", "2", "--also", "rule"]) == 0
    out = capsys.readouterr().out
    assert "Stories told out of order: 2 goals per family (seed 0)" in out
    header = next(line for line in out.splitlines() if line.startswith("family"))
    assert "agent-tuned TinyLLM" in header and "rule" in header
    for family in order.FAMILIES:
        assert re.search(rf"^{family}\s+\d/2 .*\[.*\].*\d/2 ", out, re.M), family
    assert "The held-out structure set: 2 goals per family" in out


@pytest.mark.parametrize("argv, message", [
    (["--order", "--per-family", "0"], "--per-family must be >= 1, got 0"),
    (["--order", "--also", "nonsense"], "--order: "),
])
def test_order_bad_input_is_one_line(capsys, argv, message):
    from lllm.commands import main
    with pytest.raises(SystemExit) as exit_:
        main(["lab", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("lllm lab: error: ") and message in err and "\n" not in err
