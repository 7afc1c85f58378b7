"""Time travel for the native runtime: an Agent's run as forks of one Dialog, a Tactic's run as model calls,
their run files (checked, one sentence naming the field), the page's entry and `python -m lllm replay`."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lllm.predictors.contract import ScriptedPredictor
from lllm.runtimes.native import Agent, PredictorInvoker, Prompt
from lllm.timetravel.runfile import differing_branch as native_differing_branch
from lllm.timetravel.native import native_trace_text, tactic_trace_text, travel_native, travel_tactic
from lllm.timetravel.native_agent import agent_trace_text, native_first_difference, travel_agent
from lllm.timetravel.native_spec import SYSTEM, check_native_spec, native_tools
from lllm.web.timetravel import run_json

ROOT = Path(__file__).resolve().parents[2]
AGENT = {"schema": "lllm-run", "version": 2, "demo": "native-agent", "inputs": {"goal": "What is 17 * 23?"}}
TACTIC = {"schema": "lllm-run", "version": 2, "demo": "native-tactic", "inputs": {"task": "What is 17 * 23?"}}
STORY = {"brain": "tinyllm", "seed": 1, "temperature": 0.5}


def contents(branch):
    return [s["content"] for s in branch["steps"]]


# ---- an Agent run -----------------------------------------------------------------------------------

def test_branch_1_is_what_the_agent_itself_does():
    record = travel_agent(AGENT)
    run = record["branches"][0]
    agent = Agent("solver", Prompt(path="solver/system", prompt=SYSTEM, function_list=native_tools()),
                  PredictorInvoker(ScriptedPredictor(["Action: calc[17 * 23]", "It is 391."]), 80))
    dialog = agent.open("main")
    agent.receive("What is 17 * 23?")
    agent.respond()
    assert contents(run) == [m.content for m in dialog.messages]
    assert [s["role"] for s in run["steps"]] == ["system", "user", "assistant", "tool", "assistant"]
    assert [s["call"] for s in run["steps"]] == [None, None, 1, None, 2]
    assert run["steps"][2]["calls"] == [{"name": "calc", "arguments": {"input": "17 * 23"}}]
    assert run["steps"][4]["prompt"] == agent.sessions[0].steps[-1].shown      # what the model saw
    assert (run["answer"], run["stop_reason"]) == ("It is 391.", "final reply")


def test_an_edited_tool_result_keeps_the_earlier_messages_and_reaches_the_next_prompt():
    record = travel_agent(AGENT | {"edits": [{"parent": 1, "step": 4, "content": "400"}]})
    one, two = record["branches"]
    assert two["steps"][:3] == one["steps"][:3]
    assert (two["steps"][3]["content"], two["steps"][3]["source"]) == ("400", "edited")
    assert "Observation: 400\nAssistant: " in two["steps"][4]["prompt"]
    assert "Observation: 391\nAssistant: " in one["steps"][4]["prompt"]
    assert native_first_difference(one, two) == 4 and native_first_difference(one, one) is None


def test_an_edit_on_the_story_model_changes_what_comes_after_it():
    spec = AGENT | {"inputs": {"goal": "Once upon a time"} | STORY, "edits": [{"parent": 1, "step": 2, "content": "The fox ran"}]}
    record = travel_agent(spec)
    one, two = record["branches"]
    assert two["steps"][0] == one["steps"][0] and contents(two)[1] == "The fox ran"
    assert two["steps"][2]["raw"] != one["steps"][2]["raw"]                  # the model saw another prompt
    assert travel_agent(spec) == record                                     # a replay is exact
    assert native_first_difference(one, two) == 2


def test_an_edited_reply_is_checked_and_acted_on_by_the_agent_loop():
    edits = [{"parent": 1, "step": 3, "content": "Action: lookup[pip]"},
             {"parent": 1, "step": 3, "content": "Action: calc[{oops]"}]
    record = travel_agent(AGENT | {"edits": edits})
    looked, broken = record["branches"][1:]
    assert looked["steps"][2]["calls"] == [{"name": "lookup", "arguments": {"input": "pip"}}]
    assert looked["steps"][2]["source"] == "edited" and looked["steps"][3]["content"] == "Pip is Mira's grey cat."
    assert broken["steps"][2]["repairs"][0]["raw"] == "Action: calc[{oops]"         # the loop's repair turn
    assert "invalid JSON" in broken["steps"][2]["repairs"][0]["error"]
    assert broken["steps"][2]["call"] == 2                                   # the call after the repair


def test_the_branches_are_the_runtimes_dialog_tree_with_its_split_points():
    record = travel_agent(AGENT | {"edits": [{"parent": 1, "step": 4, "content": "400"},
                                             {"parent": 2, "step": 2, "content": "What is 2 + 2?"}]})
    tree = {n["branch"]: n for n in record["tree"]}
    dialogs = {b["id"]: b["dialog"] for b in record["branches"]}
    assert tree[2]["parent"] == dialogs[1] and tree[3]["parent"] == dialogs[2]
    assert (tree[2]["split_point"], tree[3]["split_point"]) == (5, 5)
    assert "split from solver.main-0 after message 5, kept the first 3" in tree[2]["label"]
    assert [n["depth"] for n in record["tree"]] == [0, 1, 2]
    assert "  branch 2: solver.main-3: 5 messages | split from" in agent_trace_text(record)


def test_the_record_round_trips_through_json_and_replays_to_itself():
    record = travel_agent(AGENT | {"edits": [{"parent": 1, "step": 4, "content": "400"}]})
    again = json.loads(json.dumps(record))
    assert again == record and travel_native(again) == record
    assert native_differing_branch(again["branches"], record["branches"]) is None
    again["branches"][1]["steps"][4]["content"] = "It is 401."
    assert native_differing_branch(again["branches"], record["branches"]) == 2


# ---- a Tactic run -----------------------------------------------------------------------------------

def test_a_tactic_edit_keeps_the_earlier_calls_and_reruns_the_rest():
    record = travel_tactic(TACTIC | {"edits": [{"parent": 1, "step": 2, "reply": "It is 400."}]})
    one, two = record["branches"]
    assert [s["agent"] for s in one["steps"]] == ["solver", "solver", "explainer"]
    assert one["steps"][0]["calls"][0]["result"] == "391"
    assert {k: v for k, v in two["steps"][0].items() if k != "source"} == {k: v for k, v in one["steps"][0].items() if k != "source"}
    assert [s["source"] for s in two["steps"]] == ["kept", "edited", "model"]
    assert "Answer: It is 400." in two["steps"][2]["prompt"] and "Answer: It is 391." in one["steps"][2]["prompt"]
    assert (one["answer"]["answer"], two["answer"]["answer"]) == ("It is 391.", "It is 400.")
    assert native_first_difference(one, two) == 2
    assert "== branch 2: from branch 1, call 2 edited\n" in tactic_trace_text(record)


def test_a_tactic_on_the_story_model_replays_exactly_and_a_new_task_is_a_new_run():
    spec = TACTIC | {"inputs": {"task": "What is 17 * 23?"} | STORY,
                     "edits": [{"parent": 1, "step": 1, "reply": "Action: calc[2 + 2]"}, {"parent": 1, "step": 1, "task": "Who is Pip?"}]}
    record = travel_tactic(spec)
    one, two, three = record["branches"]
    assert two["steps"][0]["calls"][0]["result"] == "4"
    assert two["steps"][1]["raw"] != one["steps"][1]["raw"]               # the solver's next turn saw the edit
    assert three["task"] == "Who is Pip?" and "User: Who is Pip?" in three["steps"][0]["prompt"]
    assert travel_native(json.loads(json.dumps(record))) == record


# ---- run files, the page's entry and the command line ------------------------------------------------

@pytest.mark.parametrize("change, message", [
    ({"demo": "native-bot"}, "field demo must be one of native-agent, native-tactic for a native run, got 'native-bot'"),
    ({"inputs": {"goal": ""}}, "field inputs.goal must be non-empty text, got ''"),
    ({"inputs": {"goal": "Hi", "max_steps": 9}}, "field inputs.max_steps must be an integer between 1 and 5, got 9"),
    ({"inputs": {"goal": "Hi", "task": "x"}}, "field inputs.task is not part of a native-agent run's inputs"),
    ({"inputs": {"goal": "Hi", "script": "---"}}, "field inputs.script must hold at least one reply when inputs.brain is scripted"),
    ({"edits": [{"parent": 2, "step": 1, "content": "x"}]}, "field edits[0].parent must be an integer between 1 and 1, got 2"),
    ({"edits": [{"parent": 1, "step": 3, "reply": "x"}]}, "field edits[0].reply is not something an edit can change (content)"),
    ({"edits": [{"parent": 1, "step": 9, "content": "x"}]}, "field edits[0].step is 9, but branch 1 has 5 message(s)"),
])
def test_a_malformed_agent_spec_is_one_sentence_naming_the_field(change, message):
    with pytest.raises(ValueError) as error:
        travel_native(AGENT | change)
    assert str(error.value) == message


def test_a_malformed_tactic_spec_is_one_sentence_naming_the_field():
    with pytest.raises(ValueError, match=r"^field edits\[0\]\.task starts a whole new run: give it alone, with step 1$"):
        check_native_spec(TACTIC | {"edits": [{"parent": 1, "step": 2, "task": "x"}]})
    with pytest.raises(ValueError, match=r"^field edits\[0\]\.step is 7, but branch 1 has 3 model call\(s\)$"):
        travel_tactic(TACTIC | {"edits": [{"parent": 1, "step": 7, "reply": "x"}]})


def test_the_pages_entry_gives_the_record_and_the_trace():
    out = json.loads(run_json(json.dumps({"spec": TACTIC})))
    assert out["ok"] and out["trace"] == native_trace_text(out["record"]) and out["differs"] is None
    bad = json.loads(run_json(json.dumps({"spec": AGENT | {"inputs": {"goal": "Hi", "seed": -1}}})))
    assert bad == {"ok": False, "error": "field inputs.seed must be an integer >= 0, got -1"}


@pytest.mark.parametrize("spec", [AGENT | {"edits": [{"parent": 1, "step": 4, "content": "400"}]},
                                  TACTIC | {"edits": [{"parent": 1, "step": 2, "reply": "It is 400."}]}])
def test_replay_prints_the_trace_and_exits_1_when_a_recorded_branch_differs(spec, tmp_path):
    record = travel_native(spec)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(record))
    replay = [sys.executable, "-m", "lllm", "replay", str(path)]
    done = subprocess.run(replay, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", native_trace_text(record))
    record["branches"][1]["steps"][-1]["content"] = "changed"
    path.write_text(json.dumps(record))
    done = subprocess.run(replay, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (1, f"lllm replay: branch 2 differs from what {path} recorded\n")
