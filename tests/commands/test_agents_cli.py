"""The agent commands: react, lab, evaluate, playground, explain-memory — output and bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lllm.commands import main

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "build" / "model" / "tinyllm.onnx"


def run(capsys, *argv):
    """(exit status, stdout, stderr); a usage error exits with 2 from inside main, as argparse's do."""
    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


def test_react_with_the_rule_brain_ends_in_391():
    done = subprocess.run([sys.executable, "-m", "lllm", "react", "What is 17 * 23?", "--predictor", "rule"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("Question: What is 17 * 23?\nThought: compute 17 * 23\nAction: calc[17 * 23]\n"
                           "Observation: 391\nFinal Answer: 391\n")


def test_react_verbose_labels_agent_and_model(capsys):
    status, out, _ = run(capsys, "react", "What is 17 * 23?", "--predictor", "rule", "--verbose")
    assert status == 0
    assert "[MODEL] 'Thought: compute 17 * 23\\nAction: calc[17 * 23]'" in out
    assert out.splitlines()[-1] == "[AGENT] final answer: 391"


def test_react_json_and_no_answer_exit_status(capsys, tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("lorem ipsum")
    status, out, _ = run(capsys, "react", "What is 2 + 2?", "--predictor", f"scripted:{script}", "--max-steps", "2", "--json")
    data = json.loads(out)
    assert status == 1 and data["answer"] is None and data["stop_reason"] == "max steps" and len(data["steps"]) == 2


@pytest.mark.parametrize("argv, message", [
    (["react", "", "--predictor", "rule"], "lllm react: error: GOAL is empty: ask the agent a question"),
    (["react", "hi", "--predictor", "nope"], "lllm react: error: --predictor 'nope' is not one of:"),
    (["react", "hi", "--predictor", "rule", "--max-steps", "0"], "lllm react: error: --max-steps must be >= 1, got 0"),
    (["react", "hi", "--predictor", "scripted:/no/such/file"], "lllm react: error: --predictor scripted: cannot read /no/such/file"),
    (["react", "hi", "--predictor", "tinyllm:/no/such.onnx"], "lllm react: error: --predictor tinyllm: /no/such.onnx: model file not found"),
    (["lab", "--predictor", "nope"], "lllm lab: error: --predictor 'nope'"),
    (["evaluate", "--predictor", "rule", "--seeds", ","], "lllm evaluate: error: --seeds needs at least one seed"),
    (["playground", "--predictors", "rule,nope"], "lllm playground: error: --predictors 'nope'"),
    (["explain-memory", "--predictor", "nope"], "lllm explain-memory: error: --predictor 'nope'"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and err.startswith(message) and err.count("\n") == 1


def test_bad_flag_values_are_argparse_errors(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", "--seeds", "a,b"])
    assert exit_info.value.code == 2
    assert "argument --seeds: expected comma-separated integers, got 'a,b'" in capsys.readouterr().err


def test_lab_prints_the_rule_brain_report(capsys):
    status, out, _ = run(capsys, "lab", "--predictor", "rule")
    assert status == 0 and "overall: 30/34 passed (88.2%)" in out


def test_lab_json(capsys):
    status, out, _ = run(capsys, "lab", "--predictor", "rule", "--category", "lookup", "--json")
    assert status == 0 and json.loads(out)["by_category"] == {
        "lookup": {"total": 8, "passed": 8, "tool": 8, "args": 8, "answer": 8, "ungrounded": 0}}


def test_evaluate_prints_mean_and_spread(capsys):
    status, out, _ = run(capsys, "evaluate", "--predictor", "rule", "--seeds", "0,1", "--category", "arithmetic")
    assert status == 0 and "total                 1.00   0.000  ####################" in out


def test_playground_table(capsys):
    status, out, _ = run(capsys, "playground", "--predictors", "rule,echo", "--category", "lookup")
    assert status == 0
    assert out.splitlines()[3].startswith("rule                        8/8")
    assert out.splitlines()[4].startswith("echo                        0/8")


def test_explain_memory(capsys):
    status, out, _ = run(capsys, "explain-memory", "--predictor", "rule")
    assert status == 0 and "[MODEL] 'Thought: compute 391 + 9\\nAction: calc[391 + 9]'" in out


@pytest.mark.skipif(not MODEL.exists(), reason="run `make model` first")
def test_lab_with_tinyllm_is_an_honest_report(capsys):
    status, out, _ = run(capsys, "lab", "--predictor", f"tinyllm:{MODEL}", "--seed", "0")
    assert status == 0 and out.startswith("Reliability lab: 34 cases, predictor tinyllm")
    assert "(a case passes only with the right tool, the right args and the right final answer)" in out
