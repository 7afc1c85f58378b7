"""`python -m lllm generate` (lllm/cli.py): output, determinism, and every bad input."""

import json
import os
import subprocess
import sys

import pytest

from support.model_files import ROOT, copy_model, ensure_model


def lllm(*args):
    return subprocess.run([sys.executable, "-m", "lllm", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module", autouse=True)
def model():
    return ensure_model()


def test_prints_the_prompt_then_a_reproducible_continuation():
    first = lllm("generate", "--prompt", "Once", "--seed", "1", "--max-new-tokens", "80")
    again = lllm("generate", "--prompt", "Once", "--seed", "1", "--max-new-tokens", "80")
    other = lllm("generate", "--prompt", "Once", "--seed", "2", "--max-new-tokens", "80")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("Once") and len(first.stdout.rstrip("\n")) == 84
    assert first.stdout == again.stdout != other.stdout


def test_json_has_prompt_and_completion_and_matches_text_mode():
    text = lllm("generate", "--prompt", "The", "--temperature", "0", "--max-new-tokens", "50")
    out = lllm("generate", "--prompt", "The", "--temperature", "0", "--max-new-tokens", "50", "--json")
    record = json.loads(out.stdout)
    assert record["prompt"] == "The" and len(record["completion"]) == 50
    assert text.stdout == "The" + record["completion"] + "\n"


def test_show_probs_lists_the_top_five_per_step():
    out = lllm("generate", "--prompt", "The", "--temperature", "0", "--max-new-tokens", "5", "--show-probs", "--json")
    top = json.loads(out.stdout)["top"]
    assert len(top) == 5 and all(len(step) == 5 for step in top)
    assert all(step[0][1] >= step[1][1] for step in top)
    text = lllm("generate", "--prompt", "The", "--temperature", "0", "--max-new-tokens", "5", "--show-probs")
    assert "top-5 next characters" in text.stdout


def test_unknown_characters_are_reported():
    out = lllm("generate", "--prompt", "Once ☃ upon", "--max-new-tokens", "5", "--json")
    assert out.returncode == 0
    assert "dropped characters" in out.stderr and "'☃'" in out.stderr
    assert json.loads(out.stdout)["dropped"] == ["☃"]


def one_line_error(result, *words):
    assert result.returncode == 2, result
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("args, words", [
    (["--max-new-tokens", "-1"], ["--max-new-tokens", ">= 0"]),
    (["--max-new-tokens", "many"], ["--max-new-tokens", "integer"]),
    (["--temperature", "-0.5"], ["--temperature", ">= 0"]),
    (["--temperature", "nan"], ["--temperature", "finite"]),
    (["--top-p", "0"], ["--top-p", "(0, 1]"]),
    (["--top-p", "1.5"], ["--top-p", "(0, 1]"]),
    (["--top-k", "-2"], ["--top-k"]),
    (["--seed", "-1"], ["--seed"]),
    (["--model", "no/such/model.onnx"], ["--model", "no/such/model.onnx", "not found"]),
])
def test_bad_flags(args, words):
    one_line_error(lllm("generate", *args), *words)


def test_damaged_model_files(tmp_path):
    model, card = copy_model(tmp_path)
    data = open(model, "rb").read()
    open(model, "wb").write(data[:1000])
    one_line_error(lllm("generate", "--model", model), model, "not a valid ONNX model")
    open(model, "wb").write(b"GIF89a not a model")
    one_line_error(lllm("generate", "--model", model), "not a valid ONNX model")
    open(model, "wb").write(data)
    card_data = json.load(open(card))
    card_data["onnx_sha256"] = "f" * 64
    json.dump(card_data, open(card, "w"))
    one_line_error(lllm("generate", "--model", model), "does not match its card")
    os.remove(card)
    one_line_error(lllm("generate", "--model", model), "model card not found")


def test_no_command_prints_help_and_fails():
    out = lllm()
    assert out.returncode == 2 and "generate" in out.stdout
