"""lllm/web/oversight.py: the page's step API as JSON — each decision does what it says."""

import json

from lllm.web.oversight import decide_json, start, state_json


def fixed():
    return start("What is 6 times 7?", clock=lambda: 0.0)


def test_start_pauses_before_the_first_tool_call():
    out = json.loads(state_json(fixed()))
    assert out["ok"] and out["steps"] == [] and out["interventions"] == []
    assert out["pending"] == {"step": 1, "describe": "calc[6 * 7]", "thought": "compute 6 * 7",
                              "kind": "tool call", "confidence": 1.0}


def test_approve_runs_the_tool_then_accepts_the_answer():
    session = fixed()
    out = json.loads(decide_json(session, "approve"))
    assert out["pending"]["describe"] == "Final Answer: 42"
    assert "Observation: 42" in out["steps"][0]
    out = json.loads(decide_json(session, "approve"))
    assert (out["answer"], out["done"], out["pending"]) == ("42", True, None)


def test_edit_runs_the_edited_call():
    session = fixed()
    out = json.loads(decide_json(session, "edit", "calc[6 * 8]", "test an edit"))
    assert out["interventions"][0]["after"] == "calc[6 * 8] -> 48"
    assert out["interventions"][0]["reason"] == "test an edit"


def test_skip_does_not_run_the_tool_and_quit_ends_the_run():
    session = fixed()
    out = json.loads(decide_json(session, "skip"))
    assert "skipped by the human overseer" in out["steps"][0]
    out = json.loads(decide_json(session, "quit"))
    assert (out["answer"], out["stop_reason"], out["pending"]) == (None, "quit by the human", None)


def test_a_decision_that_does_not_fit_is_an_error_and_changes_nothing():
    session = fixed()
    before = json.loads(state_json(session))
    out = json.loads(decide_json(session, "edit", "not a call"))
    assert out["ok"] is False and out["error"] == "an edited tool call must be written tool[args], got 'not a call'"
    assert {**out, "ok": True, "error": None} == {**before, "error": None}


def test_help_lists_the_actions_and_changes_nothing():
    session = fixed()
    before = json.loads(state_json(session))
    out = json.loads(decide_json(session, "help"))
    assert out.pop("help").startswith("approve        run the tool")
    assert out == before
