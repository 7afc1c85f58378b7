"""The brain "tinyllm-yours", a model trained in a browser tab: where a page passes it in it runs as the story
model does (the same stop, temperature and per-step seeds); anywhere else — `python -m lllm replay` on a run
file that names it or a chat log re-run on it, `react --predictor`, the demos in CPython — it is one sentence
saying where it lives."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lllm.timetravel.react import trace_text, travel
from lllm.predictors import make_predictor
from lllm.predictors.specs import TAB_MODEL, TINYLLM_STOP
from lllm.web.demos import run_json

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "build" / "model" / "tinyllm.onnx"
WHERE = ("the brain tinyllm-yours is a model trained in a browser tab (/tinyllm/train/) and exists only in that "
         "browser: open the run there, or download tinyllm-yours.onnx and its card from that page and pass "
         "--predictor tinyllm:tinyllm-yours.onnx")
RUNS = {
    "react": {"schema": "lllm-run", "version": 1, "inputs": {"goal": "What is 17 * 23?", "brain": TAB_MODEL}, "edits": []},
    "memory": {"schema": "lllm-run", "version": 2, "demo": "memory",
               "inputs": {"goals": ["What is 17 * 23?"], "brain": TAB_MODEL}, "edits": []},
    "workflow": {"schema": "lllm-run", "version": 2, "demo": "workflow",
                 "inputs": {"goal": "What is 17 * 23?", "brain": TAB_MODEL}, "edits": []},
}


def lllm(*argv):
    return subprocess.run([sys.executable, "-m", "lllm", *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_without_a_page_the_name_is_one_sentence():
    with pytest.raises(ValueError) as raised:
        make_predictor(TAB_MODEL)
    assert str(raised.value) == WHERE


def test_the_page_passes_it_in_with_the_story_models_stop():
    seen = {}
    make_predictor(TAB_MODEL, temperature=0.5, seed=3, models={TAB_MODEL: lambda **options: seen.update(options)})
    assert seen == {"stop": TINYLLM_STOP, "temperature": 0.5, "seed": 3}


@pytest.mark.parametrize("demo", sorted(RUNS))
def test_replay_of_a_run_on_it_is_one_line_and_status_2(tmp_path, demo):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RUNS[demo]), encoding="utf-8")
    done = lllm("replay", str(path))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"lllm replay: error: {path}: {WHERE}\n"


def test_a_chat_log_re_run_on_it_is_one_line_and_status_2(tmp_path):
    log = [{"role": "user", "content": "What is 17 * 23?"}, {"role": "assistant", "content": "391."}]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    done = lllm("replay", str(path), "--from", "1", "--brain", TAB_MODEL)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"lllm replay: error: {path}: {WHERE}\n"


def test_react_in_a_terminal_says_the_same():
    done = lllm("react", "Who is Pip?", "--predictor", TAB_MODEL)
    assert done.returncode == 2 and done.stderr == f"lllm react: error: {WHERE}\n"


def test_the_demos_in_cpython_answer_with_the_sentence():
    out = json.loads(run_json(json.dumps({"demo": "react", "goal": "Who is Pip?", "brain": TAB_MODEL})))
    assert out == {"ok": False, "error": WHERE}


def test_a_run_on_it_samples_as_the_story_model_does():
    """The same model behind both names: the same steps, step seeds and all (so a replay is exact)."""
    from lllm.model.onnx_backend import from_onnx
    story = lambda **options: from_onnx(MODEL, **options)           # noqa: E731
    inputs = {"goal": "Who is Pip?", "seed": 4, "temperature": 0.8, "max_steps": 2}
    ours = travel({"inputs": {**inputs, "brain": TAB_MODEL}}, models={TAB_MODEL: story})
    theirs = travel({"inputs": {**inputs, "brain": "tinyllm"}}, models={"tinyllm": story})
    assert ours["branches"] == theirs["branches"]
    assert trace_text(ours).splitlines()[1] == "brain tinyllm-yours, temperature 0.8, seed 4, max steps 2"
