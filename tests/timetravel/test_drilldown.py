"""From a character of a ReAct run to the forward pass that drew it: the real models, the real CLI."""

import json
import subprocess
import sys

import pytest

from lllm.timetravel.runfile import check_memory_spec, check_spec
from lllm.timetravel.react import step_seed, trace_text, travel
from lllm.timetravel.drilldown import character, writer

GOAL = "What is 17 * 23?"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "lllm", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def story_run():
    """The story model writes step 1, TinyGPT takes over at step 2."""
    return travel({"inputs": {"goal": GOAL, "brain": "tinyllm", "seed": 2, "max_steps": 2},
                   "edits": [{"parent": 1, "step": 2, "brain": "tinygpt"}]})


def test_every_drawn_character_is_the_runs_and_equals_lllm_inside(story_run, tmp_path):
    step = story_run["branches"][0]["steps"][0]
    for c in (1, 2, 9, len(step["raw"])):
        view = character(story_run, f"1:1:{c}")
        assert view["draw"]["char"] == step["raw"][c - 1], c
        assert view["draw"]["index"] == c - 1 and view["seed"] == step_seed(2, 1)
    # the same numbers as `python -m lllm inside` for that prompt, seed and position
    c = 9
    view = character(story_run, f"1:1:{c}")
    out = cli("inside", "--prompt", step["prompt"], "--seed", str(step_seed(2, 1)), "--length", str(c),
              "--temperature", "0.8", "--position", str(view["position"]), "--json")
    assert out.returncode == 0, out.stderr
    inside = json.loads(out.stdout)
    assert inside["draw"]["char"] == view["draw"]["char"] and inside["draw"]["uniform"] == view["draw"]["uniform"]
    for key in ("logits", "probs", "embedding"):
        assert max(abs(a - b) for a, b in zip(inside[key], view[key])) < 1e-4, key
    for stage in ("forget_gate", "hn"):
        assert max(abs(a - b) for a, b in zip(inside["layers"][0][stage], view["layers"][0][stage])) < 1e-4


def test_tinygpt_characters_show_attention_and_the_draw(story_run):
    step = story_run["branches"][1]["steps"][1]
    assert writer(story_run, 2, 2)["brain"] == "tinygpt" and writer(story_run, 2, 1)["brain"] == "tinyllm"
    view = character(story_run, "2:2:3")
    assert view["draw"]["char"] == step["raw"][2] and view["brain"] == "tinygpt"
    heads = view["layers"][0]
    assert len(heads) > 1 and abs(sum(heads[0]) - 1) < 1e-3        # each head's weights over the keys sum to 1
    # branch 2's step 1 is branch 1's, written by the story model
    assert character(story_run, "2:1:5")["written_in"] == 1


def test_write_another_character_makes_a_branch_that_parts_there(story_run):
    raw = story_run["branches"][0]["steps"][0]["raw"]
    view = character(story_run, "1:1:5")
    other = next(ch for ch, _ in view["top"] if ch != raw[4])
    spec = {"inputs": story_run["inputs"], "edits": [{"parent": 1, "step": 1, "prefix": raw[:4] + other}]}
    record = travel(spec)
    new = record["branches"][1]["steps"][0]["raw"]
    assert new.startswith(raw[:4] + other) and new != raw
    after = character(record, "2:1:2")                  # counted after the prefix: the reader wrote those
    assert after["draw"]["char"] == new[6] and after["drawn"] == new[5:] and after["prefix"] == raw[:4] + other
    with pytest.raises(ValueError, match=f"drew {len(new) - 5} character\\(s\\) in step 1 of branch 2 after the edit's prefix"):
        character(record, f"2:1:{len(new) - 4}")
    assert f"prefix: {raw[:4] + other!r}" in trace_text(record)
    assert travel(spec)["branches"] == record["branches"]           # replayed exactly


@pytest.mark.parametrize("at, message", [
    ("4:1:1", "the run has 2 branch"), ("1:7:1", "branch 1 has 2 step"), ("1:1:999", "drew 128 character"),
    ("1:x:1", "BRANCH:STEP:CHARACTER"), ("0:1:1", "BRANCH:STEP:CHARACTER")])
def test_a_character_that_is_not_there_is_one_sentence(story_run, at, message):
    with pytest.raises(ValueError, match=message):
        character(story_run, at)


def test_a_rule_step_has_no_model_to_look_inside():
    record = travel({"inputs": {"goal": GOAL, "brain": "rule"}})
    with pytest.raises(ValueError, match="written by rule, which has no model to look inside"):
        character(record, "1:1:1")
    forced = travel({"inputs": {"goal": "calc[2 + 2]", "brain": "tinyllm", "max_steps": 2}})
    with pytest.raises(ValueError, match="forced"):
        character(forced, "1:1:1")


def test_a_prefix_edit_is_checked():
    base = {"inputs": {"goal": GOAL}}
    with pytest.raises(ValueError, match="prefix rewrites the model's output from its start: give it alone"):
        check_spec(base | {"edits": [{"parent": 1, "step": 1, "prefix": "Th", "thought": "x"}]})
    with pytest.raises(ValueError, match="edits\\[0\\].prefix must be non-empty text"):
        check_spec(base | {"edits": [{"parent": 1, "step": 1, "prefix": ""}]})
    with pytest.raises(ValueError, match="a memory session's steps are edited by"):
        check_memory_spec({"version": 2, "demo": "memory", "inputs": {"goals": [GOAL]},
                           "edits": [{"parent": 1, "step": 1, "prefix": "Th"}]})
    assert check_spec(base | {"edits": [{"parent": 1, "step": 1, "prefix": "Th", "brain": "tinygpt"}]})[1][0]["prefix"] == "Th"


def test_replay_inside_prints_the_view_and_names_bad_requests(story_run, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(story_run))
    out = cli("replay", str(path), "--inside", "1:1:5", "--json")
    assert out.returncode == 0, out.stderr
    view = json.loads(out.stdout)
    assert view == json.loads(json.dumps(character(story_run, "1:1:5")))
    text = cli("replay", str(path), "--inside", "2:2:3")
    assert text.returncode == 0 and "written by tinygpt" in text.stdout and "draw 2: u = " in text.stdout
    bad = cli("replay", str(path), "--inside", "1:1:9999")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "character(s) in step 1 of branch 1, not 9999" in bad.stderr
    assert cli("replay", str(path), "--json").returncode == 2


def test_the_agent_models_characters_are_its_own_with_numbers_as_slots(tmp_path):
    """Greedy, an ensemble, numbers as slots: the step's call replayed, each drawn character opened."""
    record = travel({"inputs": {"goal": GOAL, "brain": "tinyllm-agent"}})
    step = record["branches"][0]["steps"][0]
    assert "17 * 23" in step["raw"]
    view = character(record, "1:1:1")
    drawn = view["drawn"]
    assert "#1 * #2" in drawn and view["draw"]["greedy"] and view["draw"]["uniform"] is None
    at = drawn.index("#1") + 2                         # the character after the first slot
    slot = character(record, f"1:1:{at + 1}")
    assert slot["draw"]["char"] == drawn[at] and len(slot["members"]) == 4
    path = tmp_path / "run.json"
    path.write_text(json.dumps(record))
    out = cli("replay", str(path), "--inside", f"1:1:{at + 1}", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["logits"] == pytest.approx(slot["logits"], abs=1e-6)


def test_the_timeline_says_who_wrote_each_step_how_much_and_how_long(tmp_path):
    from lllm.timetravel.drilldown import timeline, timeline_text
    from lllm.web.timetravel import run_json
    spec = {"inputs": {"goal": "calc[2 + 2]", "brain": "tinyllm", "seed": 1, "max_steps": 3},
            "edits": [{"parent": 1, "step": 3, "brain": "tinyllm-agent"}, {"parent": 2, "step": 2, "prefix": "Thought: "}]}
    timings = {}
    record = travel(spec, timings=timings)
    rows = timeline(record, timings)
    assert [r["brain"] for r in rows[0]] == ["forced", "tinyllm", "tinyllm"]
    assert [r["brain"] for r in rows[1]][:3] == ["forced", "tinyllm", "tinyllm-agent"]
    assert rows[1][1]["kept_from"] == 1 and rows[1][1]["ms"] is None and rows[1][2]["ms"] > 0
    prefixed = rows[2][1]                                   # branch 3: its step 2 begins with the reader's prefix
    assert prefixed["brain"] == "tinyllm-agent" and prefixed["chars"] == len(record["branches"][2]["steps"][1]["raw"]) - 9
    assert all(r["ms"] is None or r["ms"] >= 0 for b in rows for r in b)
    text = timeline_text(record, timings)
    assert "== branch 2" in text and "branch 1's step" in text and " ms" in text
    out = json.loads(run_json(json.dumps({"spec": spec})))
    assert [[r["brain"] for r in b] for b in out["timeline"]] == [[r["brain"] for r in b] for b in rows]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(record))
    done = cli("replay", str(path), "--timeline")
    assert done.returncode == 0, done.stderr
    trace, _, table = done.stdout.partition("timeline:\n")
    assert trace == trace_text(record) and table.count("== branch") == 3 and "tinyllm-agent" in table
    other = tmp_path / "workflow.json"
    other.write_text(json.dumps({"schema": "lllm-run", "version": 2, "demo": "workflow", "inputs": {"goal": "Hi"}}))
    refused = cli("replay", str(other), "--timeline")
    assert refused.returncode == 2 and "--timeline is a ReAct run's" in refused.stderr


def test_the_quizs_drilldown_question_has_the_number_the_page_shows():
    """quizzes/react.yml's react-drilldown-draw: seed 0, step 1, character 1 of the story model."""
    import yaml
    quiz = yaml.safe_load((__import__("pathlib").Path(__file__).parents[2] / "quizzes" / "react.yml").read_text())
    question = next(q for q in quiz["questions"] if q["id"] == "react-drilldown-draw")
    record = travel({"inputs": {"goal": GOAL, "brain": "tinyllm", "seed": 0}})
    u = character(record, "1:1:1")["draw"]["uniform"]
    assert f"{u:.3f}" == question["answers"][0]
