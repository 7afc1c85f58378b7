"""Time travel: branches keep their prefix, edits re-run from a step, the replay is exact, and the run file is checked."""

import json

import pytest

from lllm.agents.react import run_react, terminal_text
from lllm.timetravel.runfile import check_spec
from lllm.timetravel.runfile import differing_branch
from lllm.timetravel.react import (first_difference, step_seed, trace_text, trajectory_of,
                                    travel)
from lllm.predictors.contract import ScriptedPredictor
from lllm.web.timetravel import run_json

SCRIPT = "Thought: use the calculator\nAction: calc[17 * 23]\n---\nThought: done\nFinal Answer: 391"


def spec(*edits, **inputs):
    return {"schema": "lllm-run", "version": 1,
            "inputs": {"goal": "What is 17 * 23?", "brain": "rule", **inputs}, "edits": list(edits)}


def test_branch_one_is_the_loop_of_react_py():
    record = travel(spec(brain="scripted", script=SCRIPT))
    loop = run_react("What is 17 * 23?", ScriptedPredictor(SCRIPT.split("\n---\n")), return_trajectory=True)
    assert terminal_text(trajectory_of(record["branches"][0])) == terminal_text(loop)
    assert record["branches"][0]["steps"][1]["prompt"].endswith("Question: What is 17 * 23?\nThought: use the calculator\n"
                                                                "Action: calc[17 * 23]\nObservation: 391\n")


def test_an_edited_observation_keeps_the_prefix_and_reruns_the_rest():
    record = travel(spec({"parent": 1, "step": 1, "observation": "400"}))
    one, two = record["branches"]
    assert two["parent"] == 1 and two["steps"][0]["action"] == one["steps"][0]["action"] == ["calc", "17 * 23"]
    assert two["steps"][0]["observation"] == "400" and two["answer"] == "400" and one["answer"] == "391"
    assert first_difference(one, two) == 1
    assert first_difference(one, one) is None


def test_an_edited_action_runs_its_tool_and_a_final_answer_ends_the_branch():
    record = travel(spec({"parent": 1, "step": 1, "action": "calc[2 + 2]"},
                         {"parent": 2, "step": 1, "action": "Final Answer: 5"}))
    assert record["branches"][1]["steps"][0]["observation"] == "4"
    assert record["branches"][1]["answer"] == "4"
    assert [s["final"] for s in record["branches"][2]["steps"]] == ["5"]
    assert record["branches"][2]["ungrounded"] == ["no tool answered"]


def test_a_goal_edit_is_a_whole_new_run():
    record = travel(spec({"parent": 1, "step": 1, "goal": "What is 6 times 7?"}))
    assert record["branches"][1]["goal"] == "What is 6 times 7?" and record["branches"][1]["answer"] == "42"


def test_the_story_model_is_seeded_per_step():
    assert [step_seed(0, 1), step_seed(2, 3), step_seed(2 ** 32 - 1, 1)] == [1, 2003, 2 ** 32 - 1000 + 1]


def test_replay_is_exact_and_known_branches_are_reused():
    first = travel(spec({"parent": 1, "step": 1, "observation": "400"}, brain="scripted", script=SCRIPT))
    again = travel(json.loads(json.dumps(first)))
    assert again == first and differing_branch(first["branches"], again["branches"]) is None
    extended = travel(spec({"parent": 1, "step": 1, "observation": "400"}, {"parent": 2, "step": 2, "thought": "x"},
                           brain="scripted", script=SCRIPT), known=json.loads(json.dumps(first)))
    assert extended["branches"][:2] == first["branches"] and len(extended["branches"]) == 3


def test_a_recorded_branch_that_differs_is_named():
    record = travel(spec({"parent": 1, "step": 1, "observation": "400"}))
    tampered = json.loads(json.dumps(record["branches"]))
    tampered[1]["steps"][1]["final"] = "401"
    assert differing_branch(tampered, record["branches"]) == 2


def test_the_trace_names_each_branch_and_its_edit():
    text = trace_text(travel(spec({"parent": 1, "step": 1, "observation": "400"})))
    assert text.startswith("run: What is 17 * 23?\nbrain rule, max steps 5\n== branch 1: the run\n")
    assert '== branch 2: from branch 1, step 1 edited (observation: "400")\n' in text
    assert "  step 1 (edited)\n    Thought: compute 17 * 23\n    Action: calc[17 * 23]\n    Observation: 400\n" in text
    assert text.endswith("answer: 400\n")


@pytest.mark.parametrize("data, message", [
    ([], "a run must be a JSON object with schema, version, inputs and edits, got list"),
    ({"schema": "other", "inputs": {"goal": "x"}}, "field schema must be 'lllm-run', got 'other'"),
    ({"version": 3, "inputs": {"goal": "x"}}, "field version must be 1 or 2 (the versions this code reads), got 3"),
    ({"inputs": {"goal": ""}}, "field inputs.goal must be non-empty text, got ''"),
    ({"inputs": {"goal": "x", "max_steps": 11}}, "field inputs.max_steps must be an integer between 1 and 10, got 11"),
    ({"inputs": {"goal": "x", "colour": 1}}, "field inputs.colour is not part of a run's inputs (version 1)"),
    ({"inputs": {"goal": "x"}, "edits": [{"parent": 2, "step": 1, "thought": "t"}]},
     "field edits[0].parent must be an integer between 1 and 1, got 2"),
    ({"inputs": {"goal": "x"}, "edits": [{"parent": 1, "step": 1}]},
     "field edits[0] changes nothing: give it a thought, an action, an observation, a goal, a prefix or a brain"),
    ({"inputs": {"goal": "x"}, "edits": [{"parent": 1, "step": 2, "goal": "y"}]},
     "field edits[0].goal starts a whole new run: give it alone, with step 1"),
    ({"inputs": {"goal": "x"}, "edits": [{"parent": 1, "step": 1, "goal": "y", "brain": "rule"}]},
     "field edits[0].goal starts a whole new run: give it alone, with step 1"),
    ({"inputs": {"goal": "x"}, "edits": [{"parent": 1, "step": 2, "brain": "gpt-5"}]},
     "field edits[0].brain must be one of rule, tinyllm, tinyllm-agent, tinygpt, scripted, echo, tinyllm-yours, got 'gpt-5'"),
    ({"inputs": {"goal": "x"}, "edits": [{"parent": 1, "step": 2, "colour": "red"}]},
     "field edits[0].colour is not something an edit can change (goal, thought, action, observation, prefix, brain)"),
])
def test_a_malformed_run_is_one_sentence_naming_the_field(data, message):
    with pytest.raises(ValueError) as error:
        check_spec(data)
    assert str(error.value) == message


def test_a_brain_edit_keeps_the_steps_before_it_and_the_new_brain_writes_from_there():
    record = travel(spec({"parent": 1, "step": 2, "brain": "scripted"}, brain="rule",
                         script="Thought: the script writes now\nFinal Answer: 400"))
    first, swapped = record["branches"]
    assert swapped["steps"][0] == first["steps"][0] and swapped["brain"] == "scripted" and "brain" not in first
    assert (swapped["steps"][1]["thought"], swapped["answer"]) == ("the script writes now", "400")
    assert "== branch 2: from branch 1, scripted writes from step 2 on\n" in trace_text(record)
    assert "(edited)" not in trace_text(record).split("== branch 2")[1]
    assert differing_branch(json.loads(json.dumps(record["branches"])), travel(spec(*record["edits"], brain="rule",
                            script="Thought: the script writes now\nFinal Answer: 400"))["branches"]) is None


def test_a_memory_session_refuses_a_brain_edit():
    from lllm.timetravel.runfile import check_memory_spec
    with pytest.raises(ValueError, match=r"^field edits\[0\]\.brain: a memory session has one brain, its inputs\.brain$"):
        check_memory_spec({"version": 2, "demo": "memory", "inputs": {"goals": ["What is 2 + 2?"]},
                           "edits": [{"parent": 1, "step": 1, "brain": "rule"}]})


def test_edits_the_run_cannot_apply_are_refused_with_the_field():
    with pytest.raises(ValueError, match=r"^edits\[0\]\.step is 4, but branch 1 has 2 step\(s\)$"):
        travel(spec({"parent": 1, "step": 4, "thought": "t"}))
    with pytest.raises(ValueError, match=r"^edits\[0\]\.observation: step 2 has no observation to edit"):
        travel(spec({"parent": 1, "step": 2, "observation": "o"}))
    with pytest.raises(ValueError, match=r"^edits\[0\]\.action must be written as tool\[input\]"):
        travel(spec({"parent": 1, "step": 1, "action": "calculate it"}))


def test_the_page_adapter_returns_the_record_and_the_shared_trace():
    out = json.loads(run_json(json.dumps({"spec": spec({"parent": 1, "step": 1, "observation": "400"})})))
    assert out["ok"] and out["trace"] == trace_text(out["record"]) and out["differs"] is None
    bad = json.loads(run_json(json.dumps({"spec": spec(brain="gpt")})))
    assert bad == {"ok": False, "error": "field inputs.brain must be one of rule, tinyllm, tinyllm-agent, tinygpt, scripted, echo, tinyllm-yours, got 'gpt'"}
