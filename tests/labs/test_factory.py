"""The synthetic data factory: it never keeps a wrong answer, its held-out split shares nothing with
training, the critique format is parsed strictly, bad input is a clear message."""

import json
import random
import re

import pytest

from lllm.predictors import RulePredictor, echo
from lllm.commands import main
from lllm.labs.factory.episodes import (Critique, PredictorCritic, agent_mask, corrupt, load_corpus, parse_critique,
                                        rule_critique, run_episode, run_factory, verify)
from lllm.labs.factory.before_after import comparison_table, evaluate, score
from lllm.labs.factory.tasks import SPLITS, Task, content_split, make_suite, make_task
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.react import run_react

ADD = Task("What is 48 plus 17?", "arithmetic", "calc", "48 + 17", "65", "seen", "train")
MIRA = Task("Tell me about Mira.", "lookup", "lookup", "mira",
            "Mira is the baker. She lives above the bakery on Apple Street.", "seen", "train")
SAY = Task("Repeat the word apple.", "no-tool", None, "", "apple", "seen", "train")


# ---- tasks and the held-out rule ---------------------------------------------------------------

def test_training_tasks_have_train_content_and_seen_phrasing():
    rng = random.Random(3)
    tasks = [make_task(rng, "train") for _ in range(500)]
    assert {t.split for t in tasks} == {"train"} and {t.phrasing for t in tasks} == {"seen"}
    assert {t.family for t in tasks} == {"arithmetic", "word problem", "lookup", "multi-step", "no-tool"}


def test_held_out_goals_and_number_combinations_never_appear_in_training():
    rng = random.Random(0)
    train = [make_task(rng, "train") for _ in range(3000)]
    train_goals = {t.goal for t in train}
    train_sums = {t.args for t in train if t.family in ("arithmetic", "word problem")}
    for split in ("validation", "test"):
        suite = make_suite(split, per_group=10)
        assert suite and not train_goals & {t.goal for t in suite}
        assert not train_sums & {t.args for t in suite if t.family in ("arithmetic", "word problem")}
        assert {t.phrasing for t in suite} == {"seen", "new combination", "new template"}
    assert not {t.goal for t in make_suite("validation")} & {t.goal for t in make_suite("test")}


def test_content_split_is_a_stable_hash():
    assert content_split("48+17") == "train"
    assert [content_split(str(n)) for n in range(6)] == [content_split(str(n)) for n in range(6)]
    assert {content_split(f"{n}*{n}") for n in range(200)} == set(SPLITS)


def test_unknown_split_or_family_is_a_clear_error():
    with pytest.raises(ValueError, match="split must be one of"):
        make_task(random.Random(0), "dev")
    with pytest.raises(ValueError, match="family must be one of"):
        make_task(random.Random(0), "train", family="poetry")


# ---- the critique ------------------------------------------------------------------------------

def test_parse_critique_reads_the_documented_format():
    assert parse_critique("SCORE: 0.75\nKEEP: yes\nREASON: clean run") == Critique(0.75, True, "clean run")
    assert parse_critique("noise\nscore: 1\nkeep: NO\nreason: loops") == Critique(1.0, False, "loops")


@pytest.mark.parametrize("text", ["", "SCORE: 0.9\nKEEP: yes", "SCORE: 1.5\nKEEP: yes\nREASON: x",
                                  "agent-0 is best\nKEEP: yes\nREASON: x", "SCORE: high\nKEEP: yes\nREASON: x"])
def test_parse_critique_never_defaults_a_score(text):
    assert parse_critique(text) is None


def test_rule_critique_prefers_the_short_clean_run():
    clean = run_react(ADD.goal, RulePredictor(), return_trajectory=True)
    assert rule_critique(clean, ADD) == "SCORE: 1.0\nKEEP: yes\nREASON: clean run: the shortest path to an answer"
    rambling = run_react(ADD.goal, ScriptedPredictor(["Thought: hmm", "Thought: compute\nAction: calc[48 + 17]",
                                                      "Final Answer: 65"]), return_trajectory=True)
    assert rule_critique(rambling, ADD) == "SCORE: 0.5\nKEEP: yes\nREASON: 1 failed step(s); 1 extra step(s)"


# ---- verification: a wrong answer is never kept ------------------------------------------------

def test_verify_accepts_the_right_runs():
    for task in (ADD, MIRA, SAY):
        assert verify(run_react(task.goal, RulePredictor(), return_trajectory=True), task) is None


@pytest.mark.parametrize("replies, why", [
    (["Thought: compute 48 + 71\nAction: calc[48 + 71]", "Final Answer: 119"], "calc[48 + 71] gives '119'"),
    (["Thought: guess\nFinal Answer: 65"], "answered without calling calc"),
    (["Thought: compute 48 + 17\nAction: calc[48 + 17]", "Final Answer: 66"], "final answer '66'"),
    (["Action: lookup[mira]", "Final Answer: 65"], "called lookup, the task needs calc"),
    (["Thought: compute\nAction: calc[48 +]", "Final Answer: 65"], "fails"),
    (["Thought: hmm"] * 4, "no final answer"),
])
def test_verify_names_what_is_wrong(replies, why):
    trajectory = run_react(ADD.goal, ScriptedPredictor(replies), max_steps=4, return_trajectory=True)
    assert why in verify(trajectory, ADD)


def test_a_tool_call_for_a_no_tool_question_is_wrong():
    trajectory = run_react(SAY.goal, ScriptedPredictor(["Action: lookup[apple]", "Final Answer: apple"]),
                           return_trajectory=True)
    assert verify(trajectory, SAY) == "called lookup for a question that needs no tool"


def test_the_factory_never_keeps_a_wrong_answer():
    liar = ScriptedPredictor(["Thought: compute 2 + 2\nAction: calc[2 + 2]", "Final Answer: 4"], cycle=True)
    run = run_factory(12, liar, seed=0, held_out=0)
    assert run.kept == [] and len(run.rejected) == 12 - run.counts["duplicate"]
    assert run.counts["wrong"] == len(run.rejected)
    assert all(e.rejected.startswith("wrong: ") for e in run.rejected)


def test_teacher_runs_are_all_kept_and_deduplicated():
    run = run_factory(300, seed=2, held_out=3)
    assert run.counts["duplicate"] > 0 and len(run.kept) == 300 - run.counts["duplicate"]
    assert len({e.task.goal for e in run.kept}) == len(run.kept)
    assert all(verify(e.trajectory, e.task) is None for e in run.kept)
    assert set(run.held_out) == {"validation", "test"}
    assert "kept" in run.summary() and "held-out test" in run.summary()


def test_an_unparsable_self_critique_rejects_the_episode():
    critic = PredictorCritic(ScriptedPredictor(["looks great to me!"], cycle=True))
    episode = run_episode(ADD, RulePredictor(), critic)
    assert episode.rejected == "critique not in SCORE / KEEP / REASON format"
    assert critic.predictor.prompts[0].startswith("Critique the agent run below.")


def test_a_low_critic_score_rejects_even_a_right_run():
    critic = PredictorCritic(ScriptedPredictor(["SCORE: 0.2\nKEEP: no\nREASON: too slow"], cycle=True))
    assert run_episode(ADD, RulePredictor(), critic).rejected == "critic: score 0.2 (too slow)"
    ok = PredictorCritic(ScriptedPredictor(["SCORE: 0.6\nKEEP: yes\nREASON: fine"], cycle=True))
    assert run_episode(ADD, RulePredictor(), ok, min_score=0.7).rejected.startswith("critic: score 0.6")
    assert run_episode(ADD, RulePredictor(), ok, min_score=0.5).rejected is None


# ---- the corpus and its mask -------------------------------------------------------------------

def test_agent_mask_covers_exactly_what_the_agent_writes():
    text = run_episode(make_task(random.Random(0), "train", family="arithmetic")).text()
    written = "".join(c if m else "_" for c, m in zip(text, agent_mask(text)))
    question, rest = written[:text.index("\n") + 1], written[text.index("\n") + 1:]
    assert set(question) == {"_"}
    assert "Thought: compute" in rest and "Observation:" in rest and rest.endswith("\n\n")
    observation = re.search(r"Observation:(_+)Final Answer", rest)
    assert observation and len(observation.group(1)) > 1


def test_chosen_rejected_pairs_differ_and_the_rejected_one_is_wrong():
    run = run_factory(40, RulePredictor(), seed=5, held_out=0)
    arithmetic = [e for e in run.kept if e.task.family == "arithmetic"]
    bad = corrupt(arithmetic[0], random.Random(0))
    assert bad != arithmetic[0].text()
    assert bad.split("Final Answer: ")[1].strip() != arithmetic[0].task.answer
    assert corrupt(next(e for e in run.kept if e.task.family != "arithmetic"), random.Random(0)) is None


def test_load_corpus_rejects_empty_and_malformed_files(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    with pytest.raises(ValueError, match="empty.txt: the corpus is empty"):
        load_corpus(str(empty))
    bad = tmp_path / "bad.txt"
    bad.write_text("Question: hi\nThought: x\n\nOnce upon a time\n\n")
    with pytest.raises(ValueError, match="bad.txt: episode 1 is not a trajectory"):
        load_corpus(str(bad))
    with pytest.raises(ValueError, match="cannot read the corpus"):
        load_corpus(str(tmp_path / "missing.txt"))


# ---- the command line --------------------------------------------------------------------------

def test_cli_writes_every_file_and_keeps_every_format_character(tmp_path, capsys):
    assert main(["factory", "--episodes", "60", "--out", str(tmp_path), "--held-out", "2", "--pairs"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"kept \d+ of \d+ training episodes", out)
    for name in ("train.jsonl", "rejected.jsonl", "validation.jsonl", "test.jsonl", "corpus.txt",
                 "prompt.txt", "pairs.jsonl"):
        assert (tmp_path / name).is_file(), name
    corpus = load_corpus(str(tmp_path / "corpus.txt"))
    records = [json.loads(line) for line in (tmp_path / "train.jsonl").read_text().splitlines()]
    assert [r["text"] for r in records] == corpus
    text = "".join(corpus)
    assert set("[]*+:?") <= set(text) and all(c == "\n" or 32 <= ord(c) < 127 for c in text)
    assert (tmp_path / "prompt.txt").read_text().startswith("Answer the question.")


def test_cli_reports_a_run_that_keeps_nothing(tmp_path, capsys):
    script = tmp_path / "wrong.txt"
    script.write_text("Thought: guess\nFinal Answer: 0\n")
    assert main(["factory", "--episodes", "5", "--out", str(tmp_path / "out"), "--held-out", "0",
                 "--predictor", f"scripted:{script}"]) == 1
    assert "kept no episode" in capsys.readouterr().out
    assert (tmp_path / "out" / "corpus.txt").read_text() == ""


@pytest.mark.parametrize("argv, message", [
    (["--min-score", "2"], "--min-score must be between 0 and 1"),
    (["--critic", "gpt"], "--critic must be 'rule' or 'self'"),
    (["--predictor", "nope"], "--predictor 'nope' is not one of"),
    (["--critic", "self"], "--critic self asks the predictor to critique: choose a --predictor other than teacher"),
])
def test_cli_bad_input_is_one_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        main(["factory", "--out", str(tmp_path)] + argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


# ---- the before / after evaluation -------------------------------------------------------------

def test_rule_brain_runs_it_gets_wrong_are_rejected_not_kept():
    """The rule brain has no rule for word problems or two-step questions: the factory rejects
    those runs as wrong and keeps the rest."""
    run = run_factory(300, RulePredictor(), seed=2, held_out=0)
    assert run.kept and run.counts["wrong"] > 0
    assert all(verify(e.trajectory, e.task) is None for e in run.kept)
    assert {e.task.family for e in run.rejected} >= {"word problem", "multi-step"}


def test_the_teacher_demonstrates_the_plan_step_by_step():
    task = make_task(random.Random(0), "train", family="multi-step")
    text = run_episode(task).text()
    (topic_tool, topic), (calc_tool, args) = task.calls
    op, n = args.split(" ")[1:]
    assert f"Thought: look up {topic}, then {op} {n}\nAction: lookup[{topic}]\nObservation: " in text
    assert f"Thought: compute {args}\nAction: calc[{args}]\nObservation: {task.answer}\nFinal Answer: {task.answer}\n" in text
    skipped = run_react(task.goal, ScriptedPredictor([f"Action: calc[{args}]", f"Final Answer: {task.answer}"]),
                        return_trajectory=True)
    assert verify(skipped, task) == "did not call lookup, then calc"


def test_score_and_compare_credit_only_real_work():
    suite = make_suite("test", per_group=3)
    from lllm.labs.factory.episodes import teacher
    rule, echoed = evaluate(teacher, suite, "teacher", per_task=True), evaluate(echo, suite, "echo")
    assert rule.mean("answer") == 1.0 and echoed.mean("answer") == 0.0 and echoed.mean("args") == 0.0
    table = comparison_table([echoed, rule])
    assert table.splitlines()[-1].split()[-4:] == ["100.0"] * 4
    assert "arithmetic, new template" in table
    trajectory = run_react(ADD.goal, ScriptedPredictor(["Action: calc[17+48]", "Final Answer: 65"]),
                           return_trajectory=True)
    assert score(trajectory, ADD) == {"format": 1.0, "tool": 1.0, "args": 0.0, "answer": 1.0}
