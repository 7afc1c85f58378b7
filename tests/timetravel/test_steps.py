"""The engine for demos made of steps and the run file's stepped demos: branches from overrides, the
first difference, the trace, and malformed specs as one sentence naming the field."""

import pytest

from lllm.timetravel.runfile import check_spec
from lllm.timetravel.runfile import differing_branch
from lllm.timetravel.steps import first_difference, steps_trace, travel_steps
from lllm.timetravel.stepspec import check_stepped_spec


def count(inputs, overrides, where="inputs"):
    """A toy demo: three steps, each one more than the last unless an edit says otherwise."""
    steps, n = [], inputs["start"]
    for i in range(1, 4):
        n = int(overrides.get(i, {}).get("n", n + 1))
        steps.append({"kind": "count", "title": f"count {i}", "fields": {"n": str(n)},
                      "editable": ["n"] if i < 3 else [], "context": {"twice": str(2 * n)}, "prompt": None})
    return {"steps": steps, "answer": str(n), "stop_reason": "done"}


def test_a_branch_keeps_its_parents_edits_before_the_step_and_recomputes_the_rest():
    record = travel_steps("count", {"start": 0}, [{"parent": 1, "step": 2, "n": "10"},
                                                  {"parent": 2, "step": 1, "n": "5"},
                                                  {"parent": 2, "step": 2, "n": "20"}], count)
    answers = [b["answer"] for b in record["branches"]]
    assert answers == ["3", "11", "7", "21"]
    one, two, three, four = record["branches"]
    assert (first_difference(one, two), first_difference(two, three), first_difference(two, four)) == (2, 1, 2)
    assert first_difference(one, one) is None and four["parent"] == 2 and record["demo"] == "count"


def test_a_read_only_field_or_a_missing_step_is_named():
    with pytest.raises(ValueError, match=r"^field edits\[0\]\.n cannot be edited on step 3 \(count 3\); "
                                         r"it can edit nothing \(it is read-only\)$"):
        travel_steps("count", {"start": 0}, [{"parent": 1, "step": 3, "n": "1"}], count)
    with pytest.raises(ValueError, match=r"^field edits\[0\]\.step is 4, but branch 1 has 3 step\(s\)$"):
        travel_steps("count", {"start": 0}, [{"parent": 1, "step": 4, "n": "1"}], count)


def test_the_trace_marks_the_edited_step_and_differing_branch_names_a_changed_recording():
    record = travel_steps("count", {"start": 0}, [{"parent": 1, "step": 2, "n": "10"}], count)
    text = steps_trace(record, ["count from 0"])
    assert "== branch 2: from branch 1, step 2 edited (n: '10')\n  step 1: count 1\n    n: 1\n    twice: 2\n" \
           "  step 2: count 2 (edited)\n    n: 10\n" in text
    assert text.endswith("answer: 11 (done)\n")
    recorded = [dict(b) for b in record["branches"]]
    assert differing_branch(recorded, record["branches"]) is None
    recorded[1] = recorded[1] | {"steps": recorded[1]["steps"][:2]}
    assert differing_branch(recorded, record["branches"]) == 2
    assert differing_branch(recorded[:1], record["branches"]) == 2


@pytest.mark.parametrize("data, message", [
    ({"version": 2, "demo": "workflow", "inputs": {"goal": "x"}, "edits": [{"parent": 1, "step": 2, "answer": "1"}]},
     "field edits[0].answer is not something an edit can change here (text)"),
    ({"version": 2, "demo": "workflow", "inputs": {"goal": "a\nb"}}, "field inputs.goal must be one line"),
    ({"version": 2, "demo": "oversight", "inputs": {"goal": "x", "decisions": ["maybe"]}},
     "field inputs.decisions[0] must be one line starting with one of approve, edit, inject, skip, quit, got 'maybe'"),
    ({"version": 2, "demo": "oversight", "inputs": {"goal": "x"}, "edits": [{"parent": 1, "step": 1}]},
     "field edits[0] changes nothing: give it one of thought, proposal, decision"),
    ({"version": 2, "demo": "oversight", "inputs": {"goal": "x"}, "edits": [{"parent": 1, "step": 1, "proposal": "a\nb"}]},
     "field edits[0].proposal must be one line"),
    ({"version": 2, "demo": "debate", "inputs": {"question": "q", "rounds": 9}},
     "field inputs.rounds must be an integer between 1 and 5, got 9"),
    ({"version": 2, "demo": "debate", "inputs": {"question": "q", "brain": "tinyllm"}},
     "field inputs.brain must be one of rule for a debate, got 'tinyllm'"),
    ({"version": 2, "demo": "debate", "inputs": {"goal": "q"}},
     "field inputs.goal is not part of a debate's inputs (question, rounds, seed, brain)"),
    ({"version": 2, "demo": "debate", "inputs": {"question": "q"}, "edits": [{"parent": 2, "step": 1, "answer": "1"}]},
     "field edits[0].parent must be an integer between 1 and 1, got 2"),
    ({"version": 2, "demo": "react", "inputs": {"goal": "q"}}, "field demo must be workflow or oversight or debate here, got 'react'"),
])
def test_a_malformed_stepped_spec_is_one_sentence_naming_the_field(data, message):
    with pytest.raises(ValueError) as error:
        check_stepped_spec(data)
    assert str(error.value) == message


def test_a_verdict_may_hold_several_lines_and_old_files_stay_valid():
    inputs, edits = check_stepped_spec({"version": 2, "demo": "debate", "inputs": {"question": "q"},
                                        "edits": [{"parent": 1, "step": 7, "verdict": "SCORE a: 1/10\nSCORE b: 2/10"}]})
    assert inputs == {"question": "q", "rounds": 1, "seed": 0, "brain": "rule"} and edits[0]["verdict"].count("\n") == 1
    assert check_spec({"schema": "lllm-run", "version": 1, "inputs": {"goal": "q"}})[0]["goal"] == "q"
