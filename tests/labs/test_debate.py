"""The multi-agent debate (lllm/labs/debate/panel.py, lllm/predictors/standins/debate.py): the critic's strict verdict,
ties, the validated synthesis and its fallback, a scripted full debate, the stand-ins, the CLI."""


import pytest

from lllm.commands import main
from lllm.labs.debate.panel import Debate, Proposal, Specialist, Verdict, VerdictParser, decide, specialists
from lllm.predictors.standins.debate import DebateRulePredictor
from lllm.predictors.contract import ScriptedPredictor
from lllm.runtimes.native import ParseError

NAMES = ["agent-0", "agent-1", "agent-2"]


# ---- the critic's verdict ------------------------------------------------------------------------

def test_a_verdict_in_format_is_read_line_by_line():
    parsed = VerdictParser(NAMES).parse("Checked all three.\nSCORE agent-0: 9/10 right\n"
                                        "SCORE agent-1: 0/10 wrong\nSCORE agent-2:10/10")
    assert parsed["scores"] == {"agent-0": 9, "agent-1": 0, "agent-2": 10}
    assert parsed["reasons"] == {"agent-0": "right", "agent-1": "wrong", "agent-2": ""}


@pytest.mark.parametrize("verdict", [
    "SCORE agent-0: agent-1\nSCORE agent-1: 5/10\nSCORE agent-2: 5/10",   # a name where the score goes
    "SCORE agent-0\nSCORE agent-1: 5/10\nSCORE agent-2: 5/10",
    "SCORE agent-0: 9\nSCORE agent-1: 5/10\nSCORE agent-2: 5/10",          # N/10 is required
])
def test_agent_0_is_never_read_as_a_score(verdict):
    with pytest.raises(ParseError, match=r"line 1 .* does not read 'SCORE name: N/10 reason'"):
        VerdictParser(NAMES).parse(verdict)


def test_names_with_digits_stay_names():
    parsed = VerdictParser(["agent-0", "agent-10"]).parse(
        "SCORE agent-10: 7/10 better than agent-0\nSCORE agent-0: 3/10 worse than agent-10")
    assert parsed["scores"] == {"agent-10": 7, "agent-0": 3}


@pytest.mark.parametrize("verdict, message", [
    ("They all look fine to me.", "no SCORE line for agent-0, agent-1, agent-2"),
    ("agent-0: 9/10\nagent-1: 2/10\nagent-2: 2/10", "no SCORE line for agent-0"),
    ("SCORE agent-0: 9/10\nSCORE agent-1: 2/10", "no SCORE line for agent-2"),
    ("SCORE agent-0: 11/10\nSCORE agent-1: 2/10\nSCORE agent-2: 2/10", "11/10 is not between"),
    ("SCORE agent-0: 100/10", "does not read"),
    ("SCORE agent-0: 9/10\nSCORE agent-0: 2/10", "scores agent-0 a second time"),
    ("SCORE agent-7: 9/10", "scores 'agent-7', which made no proposal"),
    ("SCORES: agent-0 9/10", "does not read"),
])
def test_a_verdict_out_of_format_is_an_error_never_a_default(verdict, message):
    with pytest.raises(ParseError, match=message):
        VerdictParser(NAMES).parse(verdict)


def test_ties_are_shown():
    verdict = Verdict({"agent-0": 8, "agent-1": 8, "agent-2": 3}, {"agent-0": "", "agent-1": "", "agent-2": ""})
    assert verdict.best() == ["agent-0", "agent-1"]
    assert verdict.show().splitlines()[-1] == "tie at 8/10: agent-0, agent-1"


# ---- deciding --------------------------------------------------------------------------------------

FINAL = [Proposal("agent-0", 1, "65", "a"), Proposal("agent-1", 1, "66", "b"), Proposal("agent-2", 1, "67", "c")]
TIED = Verdict({"agent-0": 8, "agent-1": 8, "agent-2": 3}, {})


def test_a_synthesis_that_agrees_with_a_best_proposal_is_accepted():
    answer, how = decide(FINAL, TIED, Proposal("synthesizer", -1, "66.", "merged"))
    assert (answer, how) == ("66.", "the synthesis, validated: it agrees with the best-scored proposal")


def test_a_synthesis_that_invents_an_answer_falls_back_to_the_best_proposal():
    verdict = Verdict({"agent-0": 3, "agent-1": 9, "agent-2": 3}, {})
    answer, how = decide(FINAL, verdict, Proposal("synthesizer", -1, "67", "the low scorer"))
    assert answer == "66"
    assert how == "fallback to the best proposal (agent-1, 9/10): the synthesis '67' agrees with no best-scored proposal"


def test_a_failed_synthesis_on_a_tie_takes_the_first_and_says_so():
    answer, how = decide(FINAL, TIED, Proposal("synthesizer", -1, error="Missing required tag"))
    assert answer == "65"
    assert how.endswith("the synthesis gave no valid answer; tie between agent-0, agent-1, the first in order taken")


def test_no_verdict_means_no_answer():
    assert decide(FINAL, Verdict({}, {}, error="no SCORE line"), None) == (
        None, "nobody: the critic's verdict could not be parsed (see above)")
    assert decide([], None, None) == (None, "nobody: no specialist gave a valid proposal")


# ---- a scripted full debate ---------------------------------------------------------------------------

def scripted_panel(*scripts):
    return [Specialist(f"agent-{i}", ScriptedPredictor(replies)) for i, replies in enumerate(scripts)]


def test_a_scripted_debate_revises_after_seeing_the_others():
    panel = scripted_panel(["<answer>65</answer> <reason>48+17</reason>", "<answer>65</answer> <reason>kept</reason>"],
                           ["<answer>64</answer> <reason>rushed</reason>", "<answer>65</answer> <reason>agent-0 is right</reason>"])
    critic = ScriptedPredictor(["SCORE agent-0: 9/10 right\nSCORE agent-1: 8/10 revised",
                                "<answer>65</answer> <reason>both agree</reason>"])
    shown = []
    session = Debate(panel, critic, say=shown.append)({"question": "What is 48 plus 17?"}, return_session=True)
    result = session.delivery
    assert [[p.answer for p in r] for r in result.rounds] == [["65", "64"], ["65", "65"]]
    revise_prompt = panel[1].brain.prompts[1]
    assert "Your last answer: 64 | rushed" in revise_prompt
    assert "- agent-0: 65 | 48+17" in revise_prompt and "- agent-1:" not in revise_prompt
    assert result.verdict.scores == {"agent-0": 9, "agent-1": 8}
    assert (result.answer, result.synthesis.answer) == ("65", "65")
    assert "\n".join(shown) == result.show()
    assert "agent-1: 65 | agent-0 is right   (changed)" in result.show()
    assert session.report().splitlines()[0].startswith("debate: success, 6 agent call(s), 0 sub-tactic call(s), 6 model call(s)")
    assert session.cost.calls == 6
    assert result.trees["agent-1"] == ("agent-1.debate-0: 5 messages\n`-- agent-1.debate-1: 2 messages, forked at 2\n"
                                       "`-- agent-1.debate-2: 4 messages, forked at 4")


def test_a_critic_that_never_answers_in_format_is_reported_not_defaulted():
    panel = scripted_panel(["<answer>65</answer>"] * 2, ["<answer>65</answer>"] * 2)
    critic = ScriptedPredictor(["agent-0 is best", "SCORE agent-0: agent-1"])
    session = Debate(panel, critic, max_repairs=1)({"question": "What is 48 plus 17?"}, return_session=True)
    result = session.delivery
    assert not result.verdict.ok and result.verdict.scores == {}
    assert result.verdict.error == "line 1 'SCORE agent-0: agent-1' does not read 'SCORE name: N/10 reason'"
    assert result.verdict.raw == "SCORE agent-0: agent-1"
    assert (result.answer, result.synthesis) == (None, None)
    assert "verdict unparsable" in result.show() and "--- answer: none" in result.show()
    assert session.agent_sessions[-1].repairs == 1


def test_a_critic_repaired_once_is_read():
    panel = scripted_panel(["<answer>65</answer>"] * 2, ["<answer>64</answer>"] * 2)
    critic = ScriptedPredictor(["agent-0: 9", "SCORE agent-0: 9/10\nSCORE agent-1: 2/10", "<answer>65</answer>"])
    result = Debate(panel, critic)({"question": "What is 48 plus 17?"})
    assert result.verdict.scores == {"agent-0": 9, "agent-1": 2} and result.answer == "65"
    assert "Error: no SCORE line for agent-0, agent-1" in critic.prompts[1]


def test_a_specialist_without_a_valid_proposal_is_shown_and_left_out():
    panel = scripted_panel(["<answer>65</answer>"] * 2, ["once upon a time"] * 4)
    critic = ScriptedPredictor(["SCORE agent-0: 9/10", "<answer>65</answer>"])
    result = Debate(panel, critic)({"question": "What is 48 plus 17?"})
    assert result.rounds[1][1].show() == ("agent-1: no valid proposal (Missing required tag <answer>...</answer>; "
                                          "it wrote 'once upon a time')")
    assert "agent-1" not in critic.prompts[0].split("Proposals:")[1]
    assert result.answer == "65"


def test_nobody_proposing_means_no_critic_and_no_answer():
    panel = scripted_panel(["no"] * 4, ["no"] * 4)
    critic = ScriptedPredictor(["never asked"])
    result = Debate(panel, critic)({"question": "What is 48 plus 17?"})
    assert (result.verdict, result.answer) == (None, None) and critic.prompts == []


@pytest.mark.parametrize("task, message", [
    ({"question": "  "}, "the question is empty"),
    ({"question": "Why?", "rounds": 0}, "rounds must be between 1 and 5"),
    ({"question": "Why?", "rounds": 6}, "rounds must be between 1 and 5"),
])
def test_bad_tasks_are_clear_errors(task, message):
    with pytest.raises(ValueError, match=message):
        Debate()(task)


def test_a_panel_needs_two_distinct_specialists():
    with pytest.raises(ValueError, match="two or more specialists"):
        Debate([Specialist("a"), Specialist("a")])
    with pytest.raises(ValueError, match="other than 'critic'"):
        Debate([Specialist("a"), Specialist("critic")])


# ---- the rule-based stand-ins -----------------------------------------------------------------------

def test_the_default_panel_differs_and_converges():
    panel = specialists()
    assert len({(s.seed, s.temperature, len(s.memory)) for s in panel}) == 3
    result = Debate()({"question": "Where does Lina live?"})
    assert [p.reason for p in result.rounds[0]] == ["checked with a tool", "I remember it", "a guess"]
    assert {p.answer for p in result.rounds[1]} == {"Lina lives in the white house on Hill Road. She keeps 5 hens and 1 goat."}


def test_the_same_seed_gives_the_same_debate():
    first = Debate(specialists(seed=4))({"question": "What is 12 times 12?", "rounds": 2}).show()
    assert Debate(specialists(seed=4))({"question": "What is 12 times 12?", "rounds": 2}).show() == first


def test_the_stand_in_critic_scores_against_its_own_check():
    critic = DebateRulePredictor("critic")
    prompt = "User: Question: What is 2 plus 2?\nProposals:\n- a: 4 | x\n- b: 5 | y\n- c: I don't know | z\nAssistant: "
    assert critic(prompt) == "I will check the question myself first.\nAction: calc[2 + 2]"
    verdict = critic(prompt + "Action: calc[2 + 2]\nObservation: 4\nAssistant: ")
    assert VerdictParser(["a", "b", "c"]).parse(verdict)["scores"] == {"a": 10, "b": 2, "c": 1}


def test_a_stand_in_never_copies_a_tool_example():
    brain = DebateRulePredictor("specialist")
    assert brain("User: Question: What is 9 minus 4?\nAssistant: ").endswith("Action: calc[9 - 4]")


# ---- command line ---------------------------------------------------------------------------------------

def test_cli_runs_a_debate(capsys):
    assert main(["debate", "What is 48 plus 17?", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "--- round 2: each saw the others' proposals and revised" in out
    assert "--- answer: 65" in out and "--- session\ndebate: success, 11 agent call(s)" in out


def test_cli_gives_each_specialist_its_own_brain(tmp_path, capsys):
    story = tmp_path / "story.txt"
    story.write_text("Once upon a time there was a mill.\n")
    argv = ["debate", "What is 48 plus 17?", "--predictor", "rule", "--predictor", f"scripted:{story}"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "agent-0: 65 | checked with a tool" in out
    assert "agent-1: no valid proposal (Missing required tag <answer>...</answer>; it wrote 'Once upon a time" in out
    assert "agent-2: no valid proposal" in out and "--- answer: 65" in out
    assert [s.brain for s in specialists(["a", "b"])] == ["a", "b", "b"]


@pytest.mark.parametrize("argv, message", [
    (["debate", " "], "lllm debate: error: QUESTION is empty"),
    (["debate", "Why?", "--rounds", "0"], "lllm debate: error: --rounds must be between 1 and 5, got 0"),
    (["debate", "Why?", "--rounds", "9"], "lllm debate: error: --rounds must be between 1 and 5, got 9"),
    (["debate", "Why?", "--rounds", "two"], "lllm debate: error: argument --rounds: invalid int value: 'two'"),
    (["debate", "Why?", "--predictor", "oracle"], "lllm debate: error: --predictor 'oracle' is not one of"),
    (["debate", "Why?", "--critic", "oracle"], "lllm debate: error: --critic 'oracle' is not one of"),
    (["debate", "Why?", "--predictor", "scripted:/no/such/file"], "lllm debate: error: --predictor scripted: cannot read"),
])
def test_cli_bad_input_is_one_line_and_status_2(argv, message, capsys):
    with pytest.raises(SystemExit) as raised:      # a usage error exits with 2 (argparse's own, and ours)
        main(argv)
    status = raised.value.code
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(message) and err.count("\n") == 1
