"""`python -m lllm inside` (lllm/commands/inside.py): the numbers of lllm.model.inside, and one-line usage errors."""

import json
import subprocess
import sys

import pytest

from lllm.model.inside import InsideModel, position_view, trace
from support.model_files import ROOT, build_inside_model


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return build_inside_model(tmp_path_factory.mktemp("inside"))


def inside(model, *args):
    return subprocess.run([sys.executable, "-m", "lllm", "inside", "--model", model, *args], cwd=ROOT,
                          capture_output=True, text=True)


def test_json_is_the_library_view(model):
    done = inside(model, "--prompt", "Once", "--seed", "1", "--length", "40", "--position", "12",
                  "--temperature", "1.2", "--top-k", "7", "--top-p", "0.9", "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    expected = position_view(trace(InsideModel(model), "Once", 40, 1, 1.2, 7, 0.9), 12)
    assert {k: got[k] for k in expected} == expected
    assert got["model_runs"] == 44 and len(got["draw"]["kept"]) <= 7


def test_text_shows_every_stage_and_the_draw(model):
    done = inside(model, "--prompt", "Once", "--seed", "1", "--position", "12")
    assert done.returncode == 0, done.stderr
    view = json.loads(inside(model, "--prompt", "Once", "--seed", "1", "--position", "12", "--json").stdout)
    out = done.stdout
    for words in ("reads 't'", "embedding (32 numbers)", "input gate i", "forget gate f", "output gate o",
                  "candidate g", "cell c", "hidden h", "logits (96 numbers)", "softmax (temperature 0.8",
                  f"u = {view['draw']['uniform']:.6f}", f"-> {view['draw']['char']!r}"):
        assert words in out, words
    assert f"{view['layers'][0]['forget_gate'][0]:+.4f}" in out


def test_the_default_position_is_the_first_draw_and_the_prompt_draws_nothing(model):
    first = json.loads(inside(model, "--prompt", "Once", "--seed", "1", "--json").stdout)
    assert first["position"] == 3 and first["draw"]["index"] == 0
    given = inside(model, "--prompt", "Once", "--seed", "1", "--position", "0")
    assert "given by the prompt (nothing drawn)" in given.stdout


def one_line_error(done, *words):
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lllm inside: error:"), done.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("args, words", [
    (["--position", "44"], ["--position", "between 0 and 43", "44 characters"]),
    (["--position", "-1"], ["--position", "between 0 and 43"]),
    (["--position", "x"], ["--position", "int"]),
    (["--length", "-3"], ["--length", ">= 0"]),
    (["--temperature", "-1"], ["--temperature", ">= 0"]),
    (["--top-p", "0"], ["--top-p", "(0, 1]"]),
    (["--top-k", "-2"], ["--top-k"]),
    (["--seed", "-1"], ["--seed"]),
])
def test_bad_arguments_are_one_line_usage_errors(model, args, words):
    one_line_error(inside(model, "--prompt", "Once", "--length", "40", *args), *words)


def test_a_missing_model_is_a_one_line_usage_error(tmp_path):
    one_line_error(inside(str(tmp_path / "none.onnx")), "--model", "none.onnx", "make model")


# ---- --predictor tinyllm-agent: the ensemble, as the agent predictor writes --------------------------

from lllm.agents.react import DEFAULT_TOOLS, Step, build_prompt  # noqa: E402
from lllm.predictors.specs import make_predictor  # noqa: E402
from support.model_files import AGENT_MODEL, build_agent_inside_model  # noqa: E402


@pytest.fixture(scope="module")
def agent_model(tmp_path_factory):
    return build_agent_inside_model(tmp_path_factory.mktemp("agent-inside"))


def test_the_agent_json_is_what_the_agent_predictor_writes(agent_model):
    prompt = build_prompt("What is 17 * 23?", DEFAULT_TOOLS,
                          [Step(thought="compute 17 * 23", action=("calc", "17 * 23"), observation="391")])
    done = inside(agent_model, "--predictor", "tinyllm-agent", "--prompt", prompt, "--position", "70", "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    predictor = make_predictor(f"tinyllm-agent:{AGENT_MODEL}")
    assert got["completion"] == predictor(prompt) and got["stopped_by"] == predictor.last.stopped_by
    assert got["text"] == predictor.last.prompt + predictor.last.completion + predictor.last.stopped_by
    assert got["temperature"] == 0 and got["length"] == 200 and got["numbers"] == ["17", "23", "391"]
    assert len(got["members"]) == 4 and len(got["layers"][0]["forget_gate"]) == 4 * 168
    assert got["draw"] is None                   # position 70 is the prompt's
    first = json.loads(inside(agent_model, "--predictor", "tinyllm-agent", "--prompt", prompt, "--json").stdout)
    assert first["draw"]["greedy"] is True and first["draw"]["char"] == got["completion"][0]
    text = inside(agent_model, "--predictor", "tinyllm-agent", "--prompt", prompt).stdout
    assert "ensemble  4 members of 168 units" in text and "member 3  votes" in text and "argmax" in text


def test_a_missing_or_damaged_agent_model_is_a_one_line_usage_error(tmp_path):
    one_line_error(inside(str(tmp_path / "none.onnx"), "--predictor", "tinyllm-agent"), "--model", "none.onnx", "make models")
    (tmp_path / "bad.onnx").write_bytes(b"not onnx")
    one_line_error(inside(str(tmp_path / "bad.onnx"), "--predictor", "tinyllm-agent"), "--model", "bad.onnx", "not a valid ONNX")
