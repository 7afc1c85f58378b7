"""The held-out-structure goals (lllm/labs/heldout/structure.py): every word is a training word,
no shape is a training shape, training never imports the module, the real tools back every
answer, and a typed goal is judged only when it says one operation in training's own forms.

The training grammar is read from lllm/labs/factory/tasks.py through test_heldout_grammar's
helpers (never copied), and each checker is shown a planted counter-example.
"""

import os
import re
import subprocess
import sys

import pytest

from hooks import architecture
from lllm.agents.react import run_react
from lllm.labs.factory import tasks as factory_tasks
from lllm.labs.heldout import structure as hs
from lllm.labs.factory.tasks import calc_split
from lllm.predictors.contract import ScriptedPredictor
from test_heldout_grammar import (ROOT, frame, parsed_by_training, training_closure, training_regexes, training_templates,
                                  words, wrong_answers)

MODULE = "lllm.labs.heldout.structure"
GOALS = hs.make_goals(per_family=120, seed=0)
SURFACE = ("casing", "punctuation")       # shapes that differ from training in case and marks only


def training_vocabulary() -> set[str]:
    """Every word training's episodes show the model: the trainer's lexicon (drawn from training
    episodes, so a word only the grammar's held-out templates use is not in it), and the echo words
    training asks it to copy; not the made-up words, which carry no meaning."""
    from export.agent_build import lexicon
    return set(lexicon()) | set(factory_tasks.ECHO_WORDS)


def new_words(texts) -> list[str]:
    vocabulary = training_vocabulary()
    return sorted({w for t in texts for w in words(t) if w not in vocabulary})


def case_sensitive_training_regexes() -> list[re.Pattern]:
    """The training templates as regexes that care about case and punctuation, as a model reading
    characters does."""
    return [re.compile(p.pattern) for p in training_regexes()]


def training_shapes(goals) -> list[str]:
    """Goals some training template produces exactly (case and punctuation included)."""
    patterns = case_sensitive_training_regexes()
    return [g.goal for g in goals if any(p.fullmatch(g.goal) for p in patterns)]


def same_frames(grammar) -> list[str]:
    """Templates whose words, in order, are a training template's (allowed only for casing and punctuation shapes)."""
    shapes = {frame(t) for t in training_templates()}
    return [t for family in grammar.values() for t, shape in family
            if frame(t.lower()) in shapes and shape not in SURFACE]


# ---- every word is a training word, no shape is a training shape ---------------------------------

def test_every_word_of_every_template_and_goal_occurs_in_training():
    assert new_words(t for family in hs.templates().values() for t, _ in family) == []
    assert new_words(g.goal for g in GOALS) == []


def test_the_word_check_finds_a_planted_new_word():
    assert new_words(["Take {b} away from {a}.", "Who owns the pony?"]) == ["away", "owns", "pony", "take"]


def test_no_goal_is_produced_by_a_training_template():
    assert training_shapes(GOALS) == []


def test_only_casing_and_punctuation_shapes_keep_a_training_sentence_s_words():
    assert same_frames(hs.templates()) == []


def test_the_shape_checks_find_planted_training_shapes():
    planted = {"arithmetic": [("What is {a} plus {b}?", "order"), ("WHAT IS {a} PLUS {b}?", "casing")]}
    assert same_frames(planted) == ["What is {a} plus {b}?"]
    goal = hs.Goal("What is 48 plus 7?", "arithmetic", (("calc", ("48 + 7",)),), "55", "t")
    shouted = hs.Goal("WHAT IS 48 PLUS 7?", "arithmetic", (("calc", ("48 + 7",)),), "55", "t")
    assert training_shapes([goal, shouted]) == ["What is 48 plus 7?"]
    assert parsed_by_training([shouted]) == ["WHAT IS 48 PLUS 7?"]     # the case-blind check would say seen


def test_every_family_and_shape_is_drawn():
    assert [g.family for g in GOALS] == sorted((g.family for g in GOALS), key=hs.FAMILIES.index)
    drawn = {g.template for g in GOALS}
    assert [t for family in hs.templates().values() for t, _ in family if t not in drawn] == []
    assert {shape for family in hs.templates().values() for _, shape in family} == set(hs.SHAPES)
    assert hs.shape_of("{a} minus {b} is what?") == "order"


# ---- training never imports it; the real tools back every answer -----------------------------------

def test_training_never_imports_the_module():
    assert MODULE not in training_closure(architecture.import_graph())


def test_importing_the_trainer_does_not_load_the_module():
    code = f"import sys, export.agent_build, lllm.labs.factory.episodes\nprint({MODULE!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_every_answer_is_what_the_real_tools_give():
    """Lookup answers here are the whole fact, as training answers a lookup."""
    assert wrong_answers([g for g in GOALS if g.family != "lookup"]) == []
    from lllm.agents.tools import FACTS
    assert all(g.answer == FACTS[g.calls[0][1][0]] for g in GOALS if g.family == "lookup")


def test_calc_goals_draw_their_numbers_from_the_test_buckets():
    for goal in GOALS:
        if goal.family in ("arithmetic", "word problem"):
            a, op, b = goal.calls[0][1][0].split()
            assert calc_split(int(a), op, int(b)) == "test", goal.goal


def test_hand_checked_goals():
    goals = {g.template: g for g in GOALS}
    deduct = goals["From {a}, deduct {b}."]
    a, b = map(int, re.findall(r"\d+", deduct.goal))
    assert deduct.answer == str(a - b) and deduct.calls == (("calc", (f"{a} - {b}",)),)
    shout = goals["WHAT DO YOU KNOW ABOUT {T}?"]
    assert shout.goal.isupper() and shout.calls[0][0] == "lookup"
    later = goals["What is {n} plus Tom's age?"]
    n = int(re.search(r"\d+", later.goal).group())
    assert later.answer == str(11 + n) and later.calls[0] == ("lookup", ("tom",))


def test_the_same_seed_gives_the_same_goals():
    assert hs.make_goals(10, seed=3) == hs.make_goals(10, seed=3) != hs.make_goals(10, seed=4)


# ---- the side-by-side table ------------------------------------------------------------------------

def test_side_by_side_has_a_column_per_suite_and_a_row_per_family():
    goals = hs.make_goals(2, seed=0)
    right = [(g, {"lenient": 1.0}, None) for g in goals]
    wrong = [(g, {"lenient": 0.0}, None) for g in goals]
    table = hs.side_by_side({"seen": right, "structure": wrong}).splitlines()
    assert len(table) == 1 + len(hs.FAMILIES) + 1
    assert re.fullmatch(r"all\s+100\.0% of\s+10\s+0\.0% of\s+10", table[-1])


# ---- judging a typed goal ----------------------------------------------------------------------------

@pytest.mark.parametrize("goal, expression", [
    ("What is 48 plus 7?", "48 + 7"), ("Quick one: 48 PLUS 7?", "48 + 7"), ("Deduct 9 from 57.", "57 - 9"),
    ("what's the product of 6 and 31", "6 * 31"), ("Question 4: what is 12 - 5?", "12 - 5"),
    ("Kim has 12 shells. She finds 5 shells. How many shells does Kim have now?", None),   # no operator form
    ("What is 4 plus 5 times 2?", None), ("Take 9 away from 57.", None), ("How old is Tom?", None)])
def test_known_operation_reads_one_calculation_in_training_forms(goal, expression):
    assert hs.known_operation(goal) == expression


def test_judge_scores_a_run_with_the_real_calc():
    goal = "WHAT IS 31 MULTIPLIED BY 4?"
    right = run_react(goal, ScriptedPredictor(["Action: calc[31 * 4]", "Final Answer: 124"]), return_trajectory=True)
    assert hs.judge(goal, right) == {"judged": True, "calc": "31 * 4", "expected": "124",
                                     "scores": {"tool": 1.0, "args": 1.0, "exact": 1.0, "lenient": 1.0}}
    wrong = run_react(goal, ScriptedPredictor(["Action: calc[31 * 3]", "Final Answer: 93"]), return_trajectory=True)
    assert hs.judge(goal, wrong)["scores"]["lenient"] == 0.0
    assert hs.judge("How old is Tom?", wrong) == {"judged": False, "calc": None, "expected": None, "scores": None}


def test_the_shape_table_has_a_row_per_shape_and_overall():
    rows = [(g, {"tool": 1.0, "args": None if g.family == "no-tool" else 0.0, "lenient": 1.0}, None)
            for g in hs.make_goals(4, seed=0)]
    table = hs.shape_table(rows).splitlines()
    assert len(table) == 1 + len(hs.SHAPES) + 1
    assert re.fullmatch(r"all\s+20\s+100\.0\s+0\.0\s+100\.0", table[-1])


# ---- the agent-model page's figures are the committed model's ----------------------------------------

PAGE = ROOT / "site" / "agents" / "agent-model.md"


def page_blocks() -> list[str]:
    return re.findall(r"```text\n(.*?)\n```", PAGE.read_text(encoding="utf-8"), re.S)


def test_the_pages_three_columns_and_shape_table_are_what_the_bench_prints_for_the_committed_model():
    """`bench/agent_bench.py --per-group 100 --structure --per-family 60` (seed 0), recomputed."""
    from lllm.labs.heldout import grammar as hg
    from lllm.labs.factory.tasks import make_suite
    from lllm.predictors import make_predictor
    from support.model_files import require_agent_model
    predictor = make_predictor(f"tinyllm-agent:{require_agent_model()}", temperature=0)
    columns = {"seen grammar (rows)": hg.evaluate(predictor, [hg.from_task(t) for t in make_suite("test", 100, 0)]),
               "held-out structure": hg.evaluate(predictor, hs.make_goals(60, 0)),
               "held-out words": hg.evaluate(predictor, hg.make_goals(60, 0))}
    titles = {"tool": "right tool", "args": "right arguments (goals with a tool)", "lenient": "right answer (lenient)"}
    printed = "\n\n".join(f"{title}, per family: the three held-out sets side by side\n"
                          f"{hs.side_by_side(columns, criterion)}" for criterion, title in titles.items())
    shapes = ("held-out structure per kind of shape (right tool / right args / answer lenient, %)\n"
              + hs.shape_table(columns["held-out structure"]))
    blocks = page_blocks()
    assert printed in blocks and shapes in blocks


def test_the_pages_failure_rows_are_what_the_committed_model_does():
    from lllm.labs.heldout import grammar as hg
    from lllm.predictors import make_predictor
    from support.model_files import require_agent_model
    predictor = make_predictor(f"tinyllm-agent:{require_agent_model()}", temperature=0)
    goals = {g.goal: g for g in hs.make_goals(60, 0)}
    text = PAGE.read_text(encoding="utf-8")
    rows = re.findall(r"^\| (order|casing|punctuation|embedded|distractor|two sentences) \| (.+?) \| (.+?) \| (.+?) \| (.+?) \|$",
                      text, re.M)
    assert len(rows) >= 4
    for shape, goal_text, called, answer, _ in rows:
        goal = goals[goal_text]
        assert hs.shape_of(goal.template) == shape
        trajectory = run_react(goal.goal, predictor, max_steps=4, return_trajectory=True)
        assert called == (", ".join(f"`{n}[{a}]`" for n, a in trajectory.tool_calls()) or "no tool")
        assert trajectory.answer.startswith(answer.rstrip("…").rstrip()), (goal_text, trajectory.answer)
        assert hg.is_failure(hg.score(trajectory, goal))
