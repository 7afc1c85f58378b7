"""ReAct: the prompt, the naive parsers, the loop, forcing, and every way a model can misbehave."""

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.react import Outcome, Step, build_prompt, parse_action, parse_final, parse_step, run_react
from lllm.agents.tools import DEFAULT_TOOLS, FACTS, Tool, lookup

STORY = Path(__file__).resolve().parents[2] / "export" / "story.txt"


# ---- tools -------------------------------------------------------------------------------------

def test_lookup_by_name_or_by_the_one_topic_mentioned():
    assert lookup("Pip") == "Pip is Mira's grey cat."
    assert lookup(" the mill ") == "The mill is by the river. Its wheel is blue."
    assert lookup("Mr. Hale") == "Mr. Hale is the teacher. He lives in the school house on Mill Lane."


def test_lookup_unknown_topic_lists_the_topics():
    with pytest.raises(LookupError, match=r"no fact about 'dragons'; topics: brookfield, mira"):
        lookup("dragons")


@pytest.mark.skipif(not STORY.exists(), reason="export/story.txt not written yet")
def test_facts_come_from_the_story():
    story = STORY.read_text()
    for topic, fact in FACTS.items():
        assert topic in story.lower(), topic
        for number in re.findall(r"\d+(?::\d+)?", fact):
            assert number in story, (topic, number)


def test_default_tools_are_calc_and_lookup():
    assert [t.name for t in DEFAULT_TOOLS] == ["calc", "lookup"]
    assert DEFAULT_TOOLS[0].fn("17 * 23") == "391"


# ---- the prompt --------------------------------------------------------------------------------

def test_prompt_has_tools_context_question_and_steps_in_order():
    steps = [Step(thought="compute 2+3", action=("calc", "2+3"), observation="5")]
    prompt = build_prompt("What is\n2+3?", DEFAULT_TOOLS, steps, extra_context="Memory: none")
    assert "calc: arithmetic" in prompt and "lookup: a fact about the town of Brookfield" in prompt
    assert prompt.endswith("Memory: none\nQuestion: What is 2+3?\n"
                           "Thought: compute 2+3\nAction: calc[2+3]\nObservation: 5\n")


def test_prompt_uses_only_characters_the_model_knows():
    prompt = build_prompt("What is 17 * 23?", DEFAULT_TOOLS, [])
    assert all(32 <= ord(ch) < 127 or ch == "\n" for ch in prompt)


# ---- parsers -----------------------------------------------------------------------------------

def test_parse_action_and_final():
    assert parse_action("Thought: hm\nAction: calc[ 2 + 5 ]") == ("calc", "2 + 5")
    assert parse_action("Action: calc[2 + 5") is None
    assert parse_final("Thought: done\nFinal Answer: 391\nmore") == "391"
    assert parse_final("Final Answer:   ") is None


def test_parse_step_cuts_a_made_up_observation():
    step = parse_step("Thought: go\nAction: calc[1+1]\nObservation: 3\nFinal Answer: 3")
    assert step.action == ("calc", "1+1") and step.final is None and step.thought == "go"


def test_parse_step_first_of_action_and_final_wins():
    assert parse_step("Final Answer: 4\nAction: calc[2+2]").final == "4"
    assert parse_step("Final Answer: 4\nAction: calc[2+2]").action is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.text(alphabet="Action:FinlswerThought[]calc() \n", max_size=200))
def test_parsers_never_raise(text):
    assert parse_action(text) is None or len(parse_action(text)) == 2
    assert parse_final(text) is None or isinstance(parse_final(text), str)
    assert isinstance(parse_step(text), Step)


# ---- the loop ----------------------------------------------------------------------------------

def test_a_clean_run_returns_the_trajectory():
    brain = ScriptedPredictor(["Thought: compute\nAction: calc[17*23]", "Final Answer: 391"])
    trajectory = run_react("What is 17 * 23?", brain, return_trajectory=True)
    assert trajectory.answer == "391" and trajectory.stop_reason == "final answer"
    assert trajectory.tool_calls() == [("calc", "17*23")]
    assert trajectory.steps[0].observation == "391"
    assert trajectory.render().endswith("Observation: 391\nFinal Answer: 391")


def test_unknown_tool_and_tool_errors_become_observations():
    brain = ScriptedPredictor(["Action: search[cats]", "Action: calc[1/0]", "Final Answer: ?"])
    steps = run_react("Anything", brain, return_trajectory=True).steps
    assert steps[0].observation == "error: unknown tool 'search'; tools are: calc, lookup"
    assert steps[1].observation == "error: division by zero"


def test_a_tool_that_raises_anything_is_an_observation():
    def broken(args):
        raise RuntimeError("disk on fire")
    brain = ScriptedPredictor(["Action: broken[x]", "Final Answer: ok"])
    trajectory = run_react("go", brain, tools=[Tool("broken", "breaks", broken)], return_trajectory=True)
    assert trajectory.steps[0].observation == "error: RuntimeError: disk on fire"
    assert trajectory.answer == "ok"


def test_garbage_gets_a_repair_observation_and_the_run_is_capped():
    brain = ScriptedPredictor(["lorem ipsum"], cycle=True)
    trajectory = run_react("What is 2 + 2?", brain, max_steps=3, return_trajectory=True)
    assert len(brain.prompts) == 3 and len(trajectory.steps) == 3
    assert trajectory.answer is None and trajectory.stop_reason == "max steps"
    assert trajectory.steps[0].observation.startswith("no Action or Final Answer found")
    assert "Observation: no Action or Final Answer found" in brain.prompts[1]


def test_a_predictor_that_raises_stops_the_run_visibly():
    def down(prompt, max_new_tokens=None):
        raise ConnectionError("server down")
    trajectory = run_react("What is 2 + 2?", down, return_trajectory=True)
    assert trajectory.stop_reason == "predictor error" and len(trajectory.steps) == 1
    assert trajectory.steps[0].observation == "predictor error: ConnectionError: server down"


def test_a_predictor_that_returns_no_text_stops_the_run():
    trajectory = run_react("go", lambda prompt, n=None: None, return_trajectory=True)
    assert trajectory.steps[0].observation == "predictor error: returned NoneType, not text"


def test_max_new_tokens_reaches_the_predictor():
    seen = []
    def brain(prompt, max_new_tokens=None):
        seen.append(max_new_tokens)
        return "Final Answer: 1"
    run_react("go", brain, max_new_tokens=7)
    assert seen == [7]


def test_forcing_runs_the_goals_tool_once_and_is_labelled(capsys):
    brain = ScriptedPredictor(["Thought: hm", "Thought: hm", "Final Answer: 84"])
    trajectory = run_react("calc[12 * 7]", brain, max_steps=5, verbose=True, return_trajectory=True)
    assert trajectory.tool_calls() == [("calc", "12 * 7")]
    assert [s.forced for s in trajectory.steps] == [True, False, False, False]
    assert trajectory.answer == "84"
    assert "[AGENT] forced: the goal is written as calc[...]" in capsys.readouterr().out


def test_a_goal_naming_an_unknown_tool_is_not_forced():
    brain = ScriptedPredictor(["Final Answer: no"])
    assert run_react("search[cats]", brain, return_trajectory=True).tool_calls() == []


def test_verbose_trace_shows_prompt_tail_and_raw_output(capsys):
    brain = ScriptedPredictor(["Action: calc[2+2]", "Final Answer: 4"])
    run_react("What is 2 + 2?", brain, verbose=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "[AGENT] goal: What is 2 + 2?"
    assert lines[1].startswith("[AGENT] prompt tail: '") and lines[1].endswith("Question: What is 2 + 2?\\n'")
    assert lines[2] == "[MODEL] 'Action: calc[2+2]'"
    assert lines[3] == "[AGENT] action: calc[2+2] -> observation: 4"
    assert lines[-1] == "[AGENT] final answer: 4"


@pytest.mark.parametrize("goal, max_steps, message", [
    ("", 5, "goal is empty"),
    ("   ", 5, "goal is empty"),
    ("hi", 0, "max_steps must be an integer >= 1"),
])
def test_bad_input_is_a_clear_error(goal, max_steps, message):
    with pytest.raises(ValueError, match=message):
        run_react(goal, ScriptedPredictor(["x"]), max_steps=max_steps)


reply_text = st.sampled_from(["Action: calc[1+1]", "Action: nope[x]", "Final Answer: 2", "Thought: hm",
                              "Action: calc[9**9**9]", "Observation: fake", "Action: lookup[pip]"]) | st.text(max_size=80)


@settings(max_examples=150, deadline=None)
@given(st.lists(reply_text, min_size=1, max_size=8), st.integers(1, 6), st.booleans())
def test_run_react_always_ends_within_max_steps(replies, max_steps, forced_goal):
    brain = ScriptedPredictor(replies, cycle=True)
    goal = "calc[2+2]" if forced_goal else "What is 2 + 2?"
    trajectory = run_react(goal, brain, max_steps=max_steps, return_trajectory=True)
    assert len(trajectory.steps) <= max_steps and len(brain.prompts) <= max_steps
    assert trajectory.stop_reason in ("final answer", "max steps")
    assert all(s.observation is None or len(s.observation) <= 200 for s in trajectory.steps)


# ---- one step everywhere: the loop, the typed workflow and human-in-the-loop fail alike ----------

def returns_none(prompt, max_new_tokens=None):
    return None


def raises_long(prompt, max_new_tokens=None):
    raise RuntimeError("server says: " + "x" * 600)


@pytest.mark.parametrize("predictor, observation", [
    (returns_none, "predictor error: returned NoneType, not text"),
    (raises_long, ("predictor error: RuntimeError: server says: " + "x" * 600)[:200]),
])
def test_a_failing_predictor_ends_every_consumer_after_one_step(predictor, observation):
    from lllm.labs.human_in_loop import OversightSession
    from lllm.labs.typed_workflow import run_typed

    loop = run_react("What is 2 + 2?", predictor, return_trajectory=True)
    assert [s.outcome for s in loop.steps] == [Outcome.PREDICTOR_ERROR] and loop.stop_reason == "predictor error"
    assert loop.steps[0].observation == observation

    session = OversightSession("What is 2 + 2?", predictor)
    assert session.next() is None and session.stop_reason == "predictor error"
    assert [s.observation for s in session.steps] == [observation]

    typed = run_typed("What is 2 + 2?", predictor)
    assert [(s.kind.name, s.text) for s in typed.steps[1:]] == [("ERROR", observation)]


def test_outcomes_are_typed_and_name_what_happened():
    script = ScriptedPredictor(["Action: search[x]", "Action: calc[1 / 0]", "hmm", "Final Answer: 4"])
    trajectory = run_react("What is 2 + 2?", script, return_trajectory=True)
    assert [s.outcome for s in trajectory.steps] == [Outcome.UNKNOWN_TOOL, Outcome.TOOL_ERROR, Outcome.REPAIR,
                                                     Outcome.FINAL]
    assert json.loads(json.dumps(trajectory.to_dict()))["steps"][0]["outcome"] == "unknown tool"
    assert [s.outcome for s in trajectory.own_steps] == [s.outcome for s in trajectory.steps]
