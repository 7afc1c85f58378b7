"""Time travel for the typed workflow: branch 1 is `lllm workflow`'s run, an edit changes the later typed
steps and not the earlier ones, a replay (also through JSON) is exact, a bad edit names its field."""

import json

import pytest

from lllm.timetravel.steps import first_difference
from lllm.timetravel.demos import travel_any
from lllm.timetravel.workflow import travel_workflow, workflow_trace_text
from lllm.labs.typed_workflow import run_typed
from lllm.predictors import RulePredictor


def spec(*edits, **inputs):
    return {"schema": "lllm-run", "version": 2, "demo": "workflow",
            "inputs": {"goal": "What is 6 times 7?", **inputs}, "edits": list(edits)}


def texts(branch):
    return [(s["title"].split()[0], s["fields"]["text"]) for s in branch["steps"]]


def test_branch_one_is_the_typed_run():
    run = run_typed("What is 6 times 7?", RulePredictor())
    one = travel_workflow(spec())["branches"][0]
    assert texts(one) == [(s.kind.name, s.show()) for s in run.steps]
    assert one["answer"] == run.answer == "42" and one["stop_reason"] == "final answer"
    assert one["steps"][1]["context"] == {"model's raw reply": "Thought: compute 6 * 7\nAction: calc[6 * 7]"}
    assert one["steps"][2]["context"] == {} and "Question: What is 6 times 7?" in one["steps"][1]["prompt"]


def test_an_edited_action_runs_the_tool_again_and_keeps_the_steps_before_it():
    one, two = travel_workflow(spec({"parent": 1, "step": 3, "text": "calc[6 * 8]"}))["branches"]
    assert texts(two) == [("GOAL", "What is 6 times 7?"), ("THOUGHT", "compute 6 * 7"), ("ACTION", "calc[6 * 8]"),
                          ("OBSERVATION", "48"), ("FINAL", "48")]
    assert two["steps"][:2] == one["steps"][:2] and first_difference(one, two) == 3 and two["answer"] == "48"


@pytest.mark.parametrize("step, text, answer, kinds", [
    (4, "40", "40", ["GOAL", "THOUGHT", "ACTION", "OBSERVATION", "FINAL"]),          # what the tool said
    (3, "Final Answer: 41", "41", ["GOAL", "THOUGHT", "FINAL"]),                      # the action becomes the answer
    (5, "forty-two", "forty-two", ["GOAL", "THOUGHT", "ACTION", "OBSERVATION", "FINAL"]),
    (1, "What is 2 + 3?", "5", ["GOAL", "THOUGHT", "ACTION", "OBSERVATION", "FINAL"]),  # a whole new run
])
def test_each_kind_of_step_can_be_edited(step, text, answer, kinds):
    two = travel_workflow(spec({"parent": 1, "step": step, "text": text}))["branches"][1]
    assert (two["answer"], [k for k, _ in texts(two)]) == (answer, kinds)


def test_a_malformed_reply_is_an_error_step_the_reader_can_correct():
    script = "I am not sure\n---\nFinal Answer: 42"
    one, two = travel_workflow(spec({"parent": 1, "step": 2, "text": "calc[6 * 7]"}, brain="scripted",
                                    script=script))["branches"]
    assert [k for k, _ in texts(one)] == ["GOAL", "ERROR", "FINAL"]
    assert texts(two)[1:3] == [("ACTION", "calc[6 * 7]"), ("OBSERVATION", "42")] and two["answer"] == "42"


def test_the_replay_is_exact_for_the_sampling_model_and_survives_json():
    first = travel_workflow(spec({"parent": 1, "step": 2, "text": "calc[6 * 7]"},
                                 brain="tinyllm", seed=5, max_steps=2))
    again = travel_any(json.loads(json.dumps(first)))
    assert again == first and workflow_trace_text(again) == workflow_trace_text(first)
    one, two = first["branches"]
    assert two["steps"][0] == one["steps"][0] and two["steps"][1]["fields"]["text"] == "calc[6 * 7]"


def test_a_bad_edit_is_one_sentence_naming_the_field():
    with pytest.raises(ValueError, match=r"^field edits\[0\]\.text of step 3 \(ACTION\) must be written "
                                         r"tool\[input\] or 'Final Answer: \.\.\.', got 'six times eight'$"):
        travel_workflow(spec({"parent": 1, "step": 3, "text": "six times eight"}))
    with pytest.raises(ValueError, match=r"^field edits\[0\]\.step is 9, but branch 1 has 5 step\(s\)$"):
        travel_workflow(spec({"parent": 1, "step": 9, "text": "x"}))


def test_the_pages_examples():
    """What the typed workflow page asks the reader to try, on the page's goal and brain."""
    record = travel_workflow({"version": 2, "demo": "workflow", "inputs": {"goal": "What is 17 * 23?", "brain": "rule"},
                              "edits": [{"parent": 1, "step": 4, "text": "400"}, {"parent": 1, "step": 3, "text": "calc[17 * 24]"}]})
    assert [b["answer"] for b in record["branches"]] == ["391", "400", "408"]
    assert texts(record["branches"][2])[3] == ("OBSERVATION", "408")
