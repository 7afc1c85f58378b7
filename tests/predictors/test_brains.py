"""Brains: the rule-based stand-in reads the goal, and make_predictor resolves --predictor."""

import json
from pathlib import Path

import pytest

from lllm.predictors import RulePredictor, echo, find_arithmetic, load_script, make_predictor
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.react import Step, build_prompt, run_react
from lllm.agents.tools import DEFAULT_TOOLS

MODEL = Path(__file__).resolve().parents[2] / "build" / "model" / "tinyllm.onnx"


@pytest.mark.parametrize("goal, expression", [
    ("What is 17 * 23?", "17 * 23"),
    ("What is (3 + 4) * 5?", "(3 + 4) * 5"),
    ("What is 6 times 7?", "6 * 7"),
    ("What is 100 minus 58?", "100 - 58"),
    ("What is 81 divided by 9?", "81 / 9"),
    ("What is the sum of 250 and 250?", "250 + 250"),
    ("What is 12 squared?", "12 ** 2"),
    ("Mira bakes 12 loaves a day. How many in 5 days?", None),
    ("Who is Pip?", None),
])
def test_find_arithmetic_reads_the_goal(goal, expression):
    assert find_arithmetic(goal) == expression


def test_rule_brain_reads_the_goal_not_the_tool_example():
    prompt = build_prompt("What is 17 * 23?", DEFAULT_TOOLS, [])
    assert "calc[2 + 5]" in prompt                       # the trap the original stub fell into
    assert RulePredictor()(prompt) == "Thought: compute 17 * 23\nAction: calc[17 * 23]"


def test_rule_brain_looks_up_a_topic_the_goal_names():
    prompt = build_prompt("How old is Tom?", DEFAULT_TOOLS, [])
    assert RulePredictor()(prompt) == "Thought: look up tom\nAction: lookup[tom]"


def test_rule_brain_answers_with_the_last_observation():
    steps = [Step(thought="compute", action=("calc", "17 * 23"), observation="391")]
    assert RulePredictor()(build_prompt("What is 17 * 23?", DEFAULT_TOOLS, steps)) == \
        "Final Answer: 391"


def test_rule_brain_admits_what_it_cannot_do():
    assert RulePredictor()(build_prompt("Why is the sky blue?", DEFAULT_TOOLS, [])).endswith("Final Answer: I don't know")
    failed = [Step(action=("calc", "1/0"), observation="error: division by zero")]
    assert RulePredictor()(build_prompt("What is 1/0?", DEFAULT_TOOLS, failed)).endswith("Final Answer: I don't know")


def test_rule_brain_respects_max_new_tokens():
    assert RulePredictor()(build_prompt("What is 2 + 2?", DEFAULT_TOOLS, []), max_new_tokens=8) == "Thought:"


def test_rule_brain_solves_the_headline_goal():
    trajectory = run_react("What is 17 * 23?", RulePredictor(), return_trajectory=True)
    assert trajectory.answer == "391" and trajectory.tool_calls() == [("calc", "17 * 23")]


def test_echo_returns_the_prompt_and_never_answers():
    assert echo("abc") == "abc" and echo("abc", 2) == "ab"
    assert run_react("What is 17 * 23?", echo) is None


# ---- make_predictor ------------------------------------------------------------------------------

def test_make_predictor_rule_and_echo():
    assert isinstance(make_predictor("rule"), RulePredictor)
    assert make_predictor("echo") is echo


def test_scripted_from_text_and_json(tmp_path):
    text = tmp_path / "replies.txt"
    text.write_text("Action: calc[2+2]\n---\nFinal Answer: 4\n")
    assert load_script(str(text)) == ["Action: calc[2+2]", "Final Answer: 4"]
    assert run_react("What is 2 + 2?", make_predictor(f"scripted:{text}")) == "4"
    data = tmp_path / "replies.json"
    data.write_text(json.dumps(["Final Answer: 5"]))
    predictor = make_predictor(f"scripted:{data}")
    assert isinstance(predictor, ScriptedPredictor) and predictor("x") == "Final Answer: 5"


@pytest.mark.parametrize("content, message", [
    (None, "--predictor scripted: cannot read"),
    ("[1, 2]", "must hold a JSON list of strings"),
    ("{oops", "is not valid JSON"),
    ("[]", "has no replies"),
])
def test_bad_script_files_name_the_flag_and_file(tmp_path, content, message):
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError, match=message):
        make_predictor(f"scripted:{path}")


@pytest.mark.parametrize("spec", ["", "gpt5", "scripted:", "tiny"])
def test_unknown_specs_are_one_line_errors(spec):
    with pytest.raises(ValueError, match=r"--predictor .* is not one of: tinyllm\[:PATH\], rule, echo"):
        make_predictor(spec)


def test_http_spec_builds_an_http_predictor():
    assert make_predictor("http:http://127.0.0.1:9/v1").url == "http://127.0.0.1:9/v1/chat/completions"
    assert make_predictor("http://localhost:8080").url == "http://localhost:8080/v1/chat/completions"
    assert make_predictor("http:localhost:8080").url == "http://localhost:8080/v1/chat/completions"


def test_missing_tinyllm_model_names_the_flag_and_file(tmp_path):
    pytest.importorskip("onnxruntime")
    with pytest.raises(ValueError, match=r"--predictor tinyllm: .*nope.onnx: model file not found"):
        make_predictor(f"tinyllm:{tmp_path / 'nope.onnx'}")


@pytest.mark.skipif(not MODEL.exists(), reason="run `make model` first")
def test_tinyllm_is_a_predictor_that_stops_at_observation():
    predictor = make_predictor(f"tinyllm:{MODEL}", temperature=0.8, seed=1)
    completion = predictor("Question: What is 17 * 23?\n", max_new_tokens=40)
    assert isinstance(completion, str) and len(completion) <= 40
    assert "Observation:" not in completion


def test_the_platforms_models_resolve_tinyllm_when_none_are_given(monkeypatch):
    """The page registers its TinyLLMs once (lllm.web.browser.run_cell): then make_predictor and the
    native runtime's invokers build the page's model from the very code a terminal runs."""
    from lllm.predictors import specs
    from lllm.runtimes.native.invokers.builtin import build_invoker
    monkeypatch.setattr(specs, "_PLATFORM_MODELS", {})
    built = []
    specs.use_platform_models({"tinyllm": lambda **options: built.append(options) or (lambda prompt, n=None: "page")})
    assert specs.make_predictor("tinyllm", temperature=0.5, seed=3)("Once") == "page"
    build_invoker("predictor", {"spec": "tinyllm", "seed": 4})
    build_invoker("tinyllm", {"temperature": 0.2, "path": "ignored in the page"})
    assert built == [{"stop": ("Observation:",), "temperature": 0.5, "seed": 3},
                     {"stop": ("Observation:",), "seed": 4}, {"temperature": 0.2}]
    assert specs.make_predictor("tinyllm", models={}).__class__.__name__ == "BackendPredictor"   # models= wins
