"""Time travel for the memory session: an edit travels through memory into later goals, the replay is exact,
a malformed file is one sentence naming the field, and `lllm replay` prints the page's trace."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lllm.timetravel.runfile import check_memory_spec, check_spec
from lllm.timetravel.runfile import differing_branch
from lllm.timetravel.react import first_difference, travel
from lllm.labs.memory_explainer import explain_memory
from lllm.timetravel.memory import memory_trace_text, travel_memory
from lllm.timetravel.demos import travel_any
from lllm.predictors import RulePredictor
from lllm.web.timetravel import run_json

ROOT = Path(__file__).resolve().parents[2]
GOALS = ["What is 17 * 23?", "What is that plus 9?", "Who is Pip?"]


def spec(*edits, **inputs):
    return {"schema": "lllm-run", "version": 2, "demo": "memory",
            "inputs": {"goals": GOALS, "brain": "rule", **inputs}, "edits": list(edits)}


def test_branch_one_is_the_explainers_session():
    record = travel_memory(spec(max_steps=4))
    turns = explain_memory(RulePredictor(), GOALS, verbose=False)
    assert [t["answer"] for t in record["branches"][0]["turns"]] == [t.answer for t in turns]
    assert [t["memory"] for t in record["branches"][0]["turns"]] == [t.memory_block for t in turns]
    assert record["branches"][0]["steps"][2]["prompt"].count("- user: What is 17 * 23? | agent: 391") == 1


def test_an_edited_observation_travels_through_memory_into_the_next_goal():
    record = travel_memory(spec({"parent": 1, "step": 1, "observation": "400"}))
    one, two = record["branches"]
    assert two["steps"][0]["observation"] == "400" and two["steps"][0]["action"] == one["steps"][0]["action"]
    assert [t["answer"] for t in two["turns"]][:2] == ["400", "409"]
    assert "agent: 400" in two["turns"][1]["memory"] and "agent: 400" in two["steps"][2]["prompt"]
    assert first_difference(one, two) == 1 and first_difference(one, one) is None


def test_an_edit_in_a_later_goal_keeps_the_earlier_goals():
    record = travel_memory(spec({"parent": 1, "step": 3, "action": "calc[1 + 1]"},
                                {"parent": 2, "step": 5, "thought": "who is that"}))
    one, two, three = record["branches"]
    assert two["steps"][:2] == one["steps"][:2] and two["turns"][1]["answer"] == "2"
    assert "agent: 2" in two["turns"][2]["memory"] and first_difference(one, two) == 3
    assert three["parent"] == 2 and three["steps"][:4] == two["steps"][:4] and three["steps"][4]["thought"] == "who is that"


def test_replay_is_exact_and_a_changed_recording_is_named():
    first = travel_memory(spec({"parent": 1, "step": 1, "observation": "400"}, brain="tinyllm", seed=3, max_steps=2))
    again = travel_any(json.loads(json.dumps(first)))
    assert again == first and differing_branch(first["branches"], again["branches"]) is None
    first["branches"][1]["steps"][2]["raw"] += "!"
    assert differing_branch(first["branches"], again["branches"]) == 2


@pytest.mark.parametrize("data, message", [
    ({"version": 2, "inputs": {"goals": GOALS}}, "field demo must be 'memory' for a memory session, got None"),
    ({"version": 1, "demo": "memory", "inputs": {"goals": GOALS}}, "field demo is part of version 2; a version 1 file is a ReAct run"),
    ({"version": 2, "demo": "memory", "inputs": {"goals": []}}, "field inputs.goals must be a list of 1 to 8 goals, got []"),
    ({"version": 2, "demo": "memory", "inputs": {"goals": ["ok", ""]}}, "field inputs.goals[1] must be non-empty text, got ''"),
    ({"version": 2, "demo": "memory", "inputs": {"goals": GOALS, "max_steps": 0}},
     "field inputs.max_steps must be an integer between 1 and 10, got 0"),
    ({"version": 2, "demo": "memory", "inputs": {"goals": GOALS}, "edits": [{"parent": 1, "step": 1, "goal": "x"}]},
     "field edits[0].goal: a memory session's goals are its inputs; edit inputs.goals instead"),
])
def test_a_malformed_session_is_one_sentence_naming_the_field(data, message):
    with pytest.raises(ValueError) as error:
        check_memory_spec(data)
    assert str(error.value) == message


def test_version_one_files_stay_react_runs_and_version_two_reads_both():
    old = {"version": 1, "inputs": {"goal": "What is 6 times 7?"}}
    assert travel_any(old) == travel(old) and travel_any(old)["version"] == 1
    assert travel_any(old | {"version": 2, "demo": "react"})["branches"] == travel(old)["branches"]
    with pytest.raises(ValueError, match=r"^field demo must be 'react' for a ReAct run, got 'memory'$"):
        check_spec(spec())
    with pytest.raises(ValueError, match=r"^edits\[0\]\.step is 9, but branch 1 has 6 step\(s\)$"):
        travel_memory(spec({"parent": 1, "step": 9, "thought": "t"}))


def test_the_page_and_lllm_replay_print_the_same_trace(tmp_path):
    out = json.loads(run_json(json.dumps({"spec": spec({"parent": 1, "step": 1, "observation": "400"})})))
    assert out["ok"] and out["record"]["demo"] == "memory" and out["trace"] == memory_trace_text(out["record"])
    assert "-- goal 2: What is that plus 9?\n  memory injected:\n    Recent conversation:\n" in out["trace"]
    assert '== branch 2: from branch 1, step 1 edited (observation: "400")\n' in out["trace"]
    (tmp_path / "session.json").write_text(json.dumps(out["record"]))
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", str(tmp_path / "session.json")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", out["trace"])
