"""Human-in-the-loop oversight, driven through the step API: every action does exactly what it says,
before the tool runs; actions that do not fit the step are clear errors; every mode runs."""

import json

import pytest

from lllm.predictors import RulePredictor
from lllm.commands import main
from lllm.commands.oversee import terminal
from lllm.labs.human_in_loop import HELP, REJECTED, SKIPPED, OversightSession, confidence
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.calc import calc
from lllm.agents.react import Outcome, Step
from lllm.agents.tools import DEFAULT_TOOLS, Tool

CALLS = []
RECORDING = (Tool("calc", "arithmetic", lambda args: CALLS.append(args) or calc(args)),) + DEFAULT_TOOLS[1:]


def session(goal="What is 6 times 7?", brain=None, **kw):
    CALLS.clear()
    return OversightSession(goal, brain or RulePredictor(), tools=RECORDING, clock=lambda: 12.5, **kw)


def test_the_proposal_waits_before_the_tool_runs_and_approve_runs_it():
    s = session()
    assert s.next().describe() == "calc[6 * 7]" and CALLS == []
    s.decide("approve", reason="looks right")
    assert CALLS == ["6 * 7"] and s.steps[-1].observation == "42"
    assert s.next().describe() == "Final Answer: 42"
    s.decide("approve")
    assert s.next() is None and s.answer == "42" and s.stop_reason == "final answer"
    first = s.interventions[0]
    assert (first.time, first.step, first.action, first.reason, first.before, first.after) == (
        12.5, 1, "approve", "looks right", "calc[6 * 7]", "calc[6 * 7] -> 42")


def test_edit_runs_the_edited_call_instead():
    s = session()
    s.next()
    s.decide("edit", "calc[6 * 8]")
    assert CALLS == ["6 * 8"] and s.steps[-1].action == ("calc", "6 * 8")
    s.next()
    s.decide("edit", "forty-eight")
    assert s.answer == "forty-eight" and s.interventions[-1].after == "Final Answer: forty-eight"


def test_inject_uses_the_text_as_the_observation_and_never_runs_the_tool():
    s = session()
    s.next()
    s.decide("inject", "41")
    assert CALLS == [] and s.steps[-1].observation == "41"
    assert s.next().describe() == "Final Answer: 41"


def test_skip_tells_the_model_and_never_runs_the_tool():
    s = session()
    s.next()
    s.decide("skip", reason="no tools today")
    assert CALLS == [] and s.steps[-1].observation == SKIPPED
    s.next()
    s.decide("skip")
    assert s.steps[-1].observation == REJECTED and s.answer is None and not s.done


def test_quit_ends_the_run_without_an_answer():
    s = session()
    s.next()
    s.decide("quit")
    assert s.next() is None and s.answer is None and s.stop_reason == "quit by the human" and CALLS == []


def test_help_changes_nothing():
    s = session()
    pending = s.next()
    s.decide("help")
    assert s.pending == pending and s.interventions == [] and "inject TEXT" in HELP


@pytest.mark.parametrize("action, text, message", [
    ("fly", "", "unknown action 'fly'"),
    ("edit", "", "edit needs text"),
    ("edit", "six times eight", "must be written tool"),
])
def test_actions_that_do_not_fit_are_clear_errors(action, text, message):
    s = session()
    s.next()
    with pytest.raises(ValueError, match=message):
        s.decide(action, text)
    assert s.pending is not None and CALLS == []


def test_inject_does_not_fit_a_final_answer_and_nothing_pending_is_an_error():
    s = session()
    with pytest.raises(ValueError, match="nothing is waiting"):
        s.decide("approve")
    s.next()
    s.decide("approve")
    s.next()
    with pytest.raises(ValueError, match="inject fits a tool call"):
        s.decide("inject", "x")


def test_low_confidence_mode_asks_only_about_doubtful_steps():
    brain = ScriptedPredictor(["Action: calc[6 * 7]", "Action: calc[6 * 9]", "Final Answer: 54"])
    s = session(brain=brain, mode="low-confidence")
    p = s.next()
    assert p.describe() == "calc[6 * 9]" and p.confidence == 0.5 and CALLS == ["6 * 7"]
    s.decide("approve")
    assert s.next() is None and s.answer == "54" and len(s.interventions) == 1


def test_confidence_heuristic():
    names = ["calc", "lookup"]
    assert confidence(Step(action=("calc", "6 * 7")), "What is 6 times 7?", [], names) == 1.0
    assert confidence(Step(action=("search", "x")), "q", [], names) == 0.0
    assert confidence(Step(action=("calc", "2 + 5")), "What is 6 times 7?", [], names) == 0.5
    tried = [Step(action=("calc", "6 * 7"), observation="42")]
    assert confidence(Step(action=("calc", "6 * 7")), "What is 6 times 7?", tried, names) == 0.5
    failed = [Step(action=("calc", "6 *"), observation="error: bad", outcome=Outcome.TOOL_ERROR)]
    assert confidence(Step(final="42"), "q", failed, names) == 0.5


def test_review_mode_runs_then_lets_the_human_flag_steps():
    s = session(mode="review")
    with pytest.raises(ValueError, match="review comes after the run"):
        s.review(1, "flag")
    assert s.next() is None and s.answer == "42" and s.interventions == []
    s.review(1, "flag", reason="should have used words")
    assert s.interventions[0].action == "flag" and "calc[6 * 7]" in s.interventions[0].before
    with pytest.raises(ValueError, match="review needs a step"):
        s.review(9, "flag")
    assert "1 flag" in s.summary()


def test_json_export_and_summary():
    s = session()
    s.next()
    s.decide("inject", "41", reason="pretend")
    record = json.loads(s.to_json())
    assert record["interventions"][0]["action"] == "inject" and record["steps"][0]["observation"] == "41"
    assert "interventions: 1 inject" in s.summary()


def test_malformed_output_is_repaired_without_asking_and_steps_are_capped():
    s = session(brain=ScriptedPredictor(["hmm"], cycle=True), max_steps=3)
    assert s.next() is None and s.stop_reason == "max steps" and len(s.steps) == 3


def test_terminal_front_end_reads_typed_decisions():
    answers = iter(["h", "e calc[6 * 8]", "inject x", "a"])
    lines = []
    s = session()
    terminal(s, ask=lambda prompt: next(answers), say=lines.append)
    assert s.answer == "48"
    assert any("not done: inject fits a tool call" in line for line in lines)
    assert HELP in lines and lines[-1].startswith("goal: What is 6 times 7?")


def test_cli_with_piped_input(monkeypatch, capsys, tmp_path):
    answers = iter(["approve", "approve"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    out = tmp_path / "session.json"
    assert main(["oversee", "What is 6 times 7?", "--json", str(out)]) == 0
    assert "answer: 42 (final answer)" in capsys.readouterr().out
    assert json.loads(out.read_text())["answer"] == "42"
    with pytest.raises(SystemExit) as exit_:
        main(["oversee", "What is 6 times 7?", "--mode", "maybe"])
    assert exit_.value.code == 2 and "invalid choice: 'maybe'" in capsys.readouterr().err
