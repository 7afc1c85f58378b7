"""Time travel on the agent-tuned TinyLLM: what the ReAct page and the react quiz say about it is what it does."""

import json
import re
from pathlib import Path

import pytest
import yaml

from lllm.timetravel.react import first_difference, trace_text, travel

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not (ROOT / "build" / "model" / "tinyllm-agent.onnx").exists(),
                                reason="the agent model is built by `make agent-model`")


def agent_spec(goal, *edits):
    return {"schema": "lllm-run", "version": 1, "inputs": {"goal": goal, "brain": "tinyllm-agent"}, "edits": list(edits)}


def test_the_pages_replay_example_is_what_replay_prints():
    page = (ROOT / "site" / "agents" / "react.md").read_text(encoding="utf-8")
    shown = re.search(r"```text\n\$ python -m lllm replay lllm-run\.json\n(.*?)```", page, re.S).group(1)
    record = travel(agent_spec("What is 17 * 23?", {"parent": 1, "step": 1, "observation": "400"}))
    assert shown == trace_text(record)


def test_the_quiz_run_goes_wrong_at_the_step_its_answer_names():
    quiz = yaml.safe_load((ROOT / "quizzes" / "react.yml").read_text(encoding="utf-8"))
    question = next(q for q in quiz["questions"] if q["id"] == "react-time-travel-wrong-step")
    goal = re.search(r"run \*\*(.+?)\*\* on", question["prompt"]).group(1)
    record = travel(agent_spec(goal, {"parent": 1, "step": 1, "observation": "89"}))
    run, fixed = record["branches"]
    assert run["answer"] == "35" and fixed["answer"] == "89"          # one corrected observation fixes the run
    assert first_difference(run, fixed) == int(question["answers"][0]) == 1
    with pytest.raises(ValueError, match="step 2 has no observation to edit"):    # the misconception's reason
        travel(agent_spec(goal, {"parent": 1, "step": 2, "observation": "89"}))


STORY = ROOT / "build" / "model" / "tinyllm.onnx"


@pytest.mark.skipif(not STORY.exists(), reason="the story model is built by `make model`")
def test_the_story_model_resumes_with_the_seed_of_the_step():
    from lllm.model.onnx_backend import from_onnx
    from lllm.predictors import TINYLLM_STOP
    from lllm.agents.react import MAX_NEW_TOKENS
    from lllm.timetravel.react import step_seed

    spec = {"inputs": {"goal": "What is 17 * 23?", "brain": "tinyllm", "seed": 3, "max_steps": 3},
            "edits": [{"parent": 1, "step": 1, "thought": "use the calculator"}]}
    record = travel(spec)
    assert travel(spec) == record                                      # same seed, same text
    resumed = record["branches"][1]["steps"][1]                         # the first step the model wrote after the edit
    fresh = from_onnx(str(STORY), stop=TINYLLM_STOP, temperature=0.8, seed=step_seed(3, 2))
    assert fresh(resumed["prompt"], MAX_NEW_TOKENS) == resumed["raw"]


@pytest.mark.skipif(not STORY.exists(), reason="the story model is built by `make model`")
def test_swap_the_brain_at_step_2_the_agent_model_acts_where_the_story_model_babbled():
    spec = {"inputs": {"goal": "What is 48 plus 17?", "brain": "tinyllm", "seed": 2, "max_steps": 4},
            "edits": [{"parent": 1, "step": 2, "brain": "tinyllm-agent"}, {"parent": 2, "step": 2, "observation": "60"}]}
    record = travel(spec)
    story, swapped, edited = record["branches"]
    assert story["answer"] is None and story["steps"][1]["outcome"] == "repair"
    assert swapped["steps"][0] == story["steps"][0]                    # the step before the swap is kept
    assert (swapped["steps"][1]["action"], swapped["answer"], swapped["brain"]) == (["calc", "48 + 17"], "65", "tinyllm-agent")
    assert (edited["answer"], edited["brain"]) == ("60", "tinyllm-agent")     # branch 3 keeps branch 2's brain
    assert "brain" not in story and first_difference(story, swapped) == 2
    assert "== branch 2: from branch 1, tinyllm-agent writes from step 2 on\n" in trace_text(record)
    assert travel(json.loads(json.dumps(spec))) == record               # the replay is exact
