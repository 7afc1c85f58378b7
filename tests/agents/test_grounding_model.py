"""The agent-tuned TinyLLM's answers that rest on nothing, labelled in the terminal (real model, onnxruntime):
lllm/agents/grounding.py's label, as `python -m lllm react` prints it."""

import json
import os
import subprocess
import sys

import pytest

from support.model_files import ROOT, require_agent_model

LABEL = "(not grounded in any observation: no tool answered; the answer only repeats words of the goal)"


def react(*argv):
    require_agent_model()
    done = subprocess.run([sys.executable, "-m", "lllm", "react", *argv, "--predictor", "tinyllm-agent"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("goal, copied", [("What is the capital of France?", "capital"),
                                          ("Where does Lina live?", "Where")])
def test_a_copied_goal_word_is_labelled_in_the_terminal(goal, copied):
    assert react(goal) == (f"Question: {goal}\nThought: repeat {copied}\nFinal Answer: {copied}\n{LABEL}\n")


def test_the_label_is_in_the_verbose_trace_and_the_json():
    assert react("Where does Lina live?", "--verbose").splitlines()[-1] == f"[AGENT] {LABEL[1:-1]}"
    data = json.loads(react("What is the capital of France?", "--json"))
    assert data["ungrounded"] == ["no tool answered", "the answer only repeats words of the goal"]


def test_a_grounded_run_of_the_same_model_has_no_label():
    out = react("Who is Pip?")
    assert out.endswith("Final Answer: Pip is Mira's grey cat.\n") and "grounded" not in out
