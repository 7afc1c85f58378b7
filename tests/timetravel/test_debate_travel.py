"""Time travel for the debate: each debater's turn, the critic's verdict and the synthesis are steps; an
edited turn re-runs the rest of the debate through the same parsers; replays are exact."""

import json

import pytest

from lllm.timetravel.steps import first_difference
from lllm.labs.debate import Debate
from lllm.timetravel.debate import debate_trace_text, starts_turn, travel_debate
from lllm.timetravel.demos import travel_any

SCORES = "SCORE agent-0: 2/10 wrong\nSCORE agent-1: 2/10 wrong\nSCORE agent-2: 9/10 right"


def spec(*edits, **inputs):
    return {"schema": "lllm-run", "version": 2, "demo": "debate",
            "inputs": {"question": "What is 48 plus 17?", **inputs}, "edits": list(edits)}


def test_branch_one_has_a_step_per_turn_in_the_debates_order():
    one = travel_debate(spec())["branches"][0]
    assert [s["title"] for s in one["steps"]] == ["agent-0, round 0", "agent-1, round 0", "agent-2, round 0",
                                                  "agent-0, round 1", "agent-1, round 1", "agent-2, round 1",
                                                  "critic", "synthesizer"]
    assert [s["kind"] for s in one["steps"]][::3] == ["proposal", "revision", "verdict"]
    assert one["answer"] == Debate()({"question": "What is 48 plus 17?"}).answer == "65"
    assert one["steps"][0]["context"]["replies this turn"] == ("I will check with a tool.\nAction: calc[48 + 17]\n---\n"
                                                                "<answer>65</answer> <reason>checked with a tool</reason>")
    assert one["steps"][3]["prompt"].rstrip().endswith("Assistant:") and "Round 1." in one["steps"][3]["prompt"]


def test_an_edited_turn_is_read_by_the_others_and_scored_by_the_critic():
    one, two = travel_debate(spec({"parent": 1, "step": 6, "answer": "70"}))["branches"]
    assert two["steps"][:5] == one["steps"][:5] and first_difference(one, two) == 6
    assert two["steps"][5]["fields"] == {"answer": "70", "reason": "checked with a tool"}     # the reason is kept
    assert "SCORE agent-2: 2/10 my check says 65" in two["steps"][6]["fields"]["verdict"] and two["answer"] == "65"


def test_an_edited_verdict_changes_the_synthesis_and_the_answer():
    record = travel_debate(spec({"parent": 1, "step": 6, "answer": "70"}, {"parent": 2, "step": 7, "verdict": SCORES}))
    three = record["branches"][2]
    assert three["steps"][7]["fields"] == {"answer": "70", "reason": "agent-2 scored highest (9/10)"}
    assert three["answer"] == "70" and first_difference(record["branches"][1], three) == 7
    assert travel_any(json.loads(json.dumps(record))) == record
    assert "  step 7: critic (edited)\n    verdict: SCORE agent-0: 2/10 wrong\n" in debate_trace_text(record)


def test_an_edited_proposal_in_round_0_makes_its_author_check_in_round_1():
    two = travel_debate(spec({"parent": 1, "step": 1, "answer": "60", "reason": "a guess"}))["branches"][1]
    assert [s["fields"]["answer"] for s in two["steps"][:6]] == ["60", "65", "67", "65", "65", "65"]
    assert "the others disagree" in two["steps"][3]["context"]["replies this turn"]


def test_a_verdict_out_of_format_gets_the_critics_repair_turn():
    two = travel_debate(spec({"parent": 1, "step": 7, "verdict": "agent-0 wins"}))["branches"][1]
    assert two["steps"][6]["context"]["replies this turn"].startswith("agent-0 wins\n---\n")
    assert two["answer"] == "65"


def test_the_seed_changes_the_careless_debater_and_the_replay_is_exact():
    answers = {s: travel_debate(spec(seed=s))["branches"][0]["steps"][2]["fields"]["answer"] for s in range(6)}
    assert "65" in answers.values() and len(set(answers.values())) > 1
    record = travel_debate(spec({"parent": 1, "step": 3, "answer": "1"}, seed=3, rounds=2))
    assert travel_debate(json.loads(json.dumps(record))) == record and len(record["branches"][1]["steps"]) == 11


def test_only_the_debates_own_requests_start_a_turn():
    assert starts_turn("System: s\nUser: Question: q\nAssistant: ")
    assert starts_turn("System: s\nUser: Round 1. Question: q\nAssistant: ")
    assert not starts_turn("System: s\nUser: Question: q\nAssistant: Action: calc[1]\nObservation: 1\nAssistant: ")
    assert not starts_turn("System: s\nUser: Question: q\nAssistant: x\nUser: Error: no tag. Please fix.\nAssistant: ")


def test_a_field_a_step_cannot_take_is_named():
    with pytest.raises(ValueError) as error:
        travel_debate(spec({"parent": 1, "step": 7, "answer": "65"}))
    assert str(error.value) == "field edits[0].answer cannot be edited on step 7 (critic); it can edit verdict"
