"""Time travel for human-in-the-loop oversight: proposals and decisions are steps; editing a decision or a
proposal re-runs the session from there; the human's recorded decisions come from the inputs."""

import json

import pytest

from lllm.timetravel.steps import first_difference
from lllm.labs.human_in_loop import OversightSession
from lllm.timetravel.demos import travel_any
from lllm.timetravel.oversight import oversight_trace_text, travel_oversight
from lllm.predictors import RulePredictor


def spec(*edits, **inputs):
    return {"schema": "lllm-run", "version": 2, "demo": "oversight",
            "inputs": {"goal": "What is 6 times 7?", **inputs}, "edits": list(edits)}


def shown(branch):
    return [(s["title"], s["fields"], s["context"].get("result")) for s in branch["steps"]]


def test_branch_one_is_the_session_with_every_proposal_approved():
    session = OversightSession("What is 6 times 7?", RulePredictor(), clock=lambda: 0.0)
    while session.next() is not None:
        session.decide("approve")
    one = travel_oversight(spec())["branches"][0]
    assert shown(one) == [("proposal 1", {"thought": "compute 6 * 7", "proposal": "calc[6 * 7]"}, None),
                          ("decision 1", {"decision": "approve"}, "calc[6 * 7] -> 42"),
                          ("proposal 2", {"thought": "", "proposal": "Final Answer: 42"}, None),
                          ("decision 2", {"decision": "approve"}, "Final Answer: 42")]
    assert (one["answer"], one["stop_reason"]) == (session.answer, session.stop_reason) == ("42", "final answer")


@pytest.mark.parametrize("decision, answer, result", [
    ("edit calc[6 * 8]", "48", "calc[6 * 8] -> 48"),
    ("inject 40", "40", "calc[6 * 7] -> 40"),
    ("quit", None, "run ended"),
])
def test_an_edited_decision_changes_what_follows_and_not_what_came_before(decision, answer, result):
    one, two = travel_oversight(spec({"parent": 1, "step": 2, "decision": decision}))["branches"]
    assert two["steps"][0] == one["steps"][0] and first_difference(one, two) == 2
    assert two["answer"] == answer and shown(two)[1] == ("decision 1", {"decision": decision}, result)


def test_an_edited_proposal_is_scored_again_and_approved_by_the_same_human():
    one, two = travel_oversight(spec({"parent": 1, "step": 1, "proposal": "calc[2 + 2]"}))["branches"]
    assert two["steps"][0]["context"]["confidence"] == "0.50"      # 2 is in neither the goal nor an observation
    assert shown(two)[1] == ("decision 1", {"decision": "approve"}, "calc[2 + 2] -> 4") and two["answer"] == "4"


def test_the_recorded_human_decides_first_and_a_branch_keeps_the_decisions_before_its_edit():
    record = travel_oversight(spec({"parent": 1, "step": 4, "decision": "skip"}, decisions=["edit calc[6 * 8]"]))
    one, two = record["branches"]
    assert one["answer"] == "48" and shown(two)[1][1] == {"decision": "edit calc[6 * 8]"}
    assert shown(two)[3] == ("decision 2", {"decision": "skip"}, "answer rejected") and len(two["steps"]) == 6
    assert travel_any(json.loads(json.dumps(record))) == record
    assert "the human: edit calc[6 * 8]; then approve" in oversight_trace_text(record)


def test_the_replay_is_exact_for_the_sampling_model():
    first = travel_oversight(spec({"parent": 1, "step": 2, "proposal": "calc[6 * 7]"}, brain="tinyllm", seed=2, max_steps=3))
    assert travel_oversight(json.loads(json.dumps(first))) == first
    one, two = first["branches"]
    assert two["steps"][0] == one["steps"][0] and one["steps"][1]["kind"] == "repair" and two["answer"] is None
    assert [s["title"] for s in two["steps"]][1:4] == ["proposal 1", "decision 1", "repair"] and "-> 42" in two["steps"][2]["context"]["result"]


@pytest.mark.parametrize("edit, message", [
    ({"parent": 1, "step": 4, "decision": "inject 40"},
     "field edits[0].decision ('inject 40') does not fit proposal Final Answer: 42: inject fits a tool call, not a final answer"),
    ({"parent": 1, "step": 1, "proposal": "multiply them"},
     "field edits[0].proposal must be written tool[input] or 'Final Answer: ...', got 'multiply them'"),
    ({"parent": 1, "step": 2, "thought": "hm"},
     "field edits[0].thought cannot be edited on step 2 (decision 1); it can edit decision"),
])
def test_a_bad_edit_is_one_sentence_naming_the_field(edit, message):
    with pytest.raises(ValueError) as error:
        travel_oversight(spec(edit))
    assert str(error.value) == message


def test_the_pages_example_a_proposal_with_a_number_from_nowhere():
    two = travel_oversight(spec({"parent": 1, "step": 1, "proposal": "calc[6 * 9]"}))["branches"][1]
    assert two["steps"][0]["context"]["confidence"] == "0.50" and two["answer"] == "54"
