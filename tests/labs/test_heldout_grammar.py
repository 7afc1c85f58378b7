"""The held-out-grammar goals (lllm/labs/heldout/grammar.py): really outside the training grammar,
never imported by training, answered right by the real tools, and the same for a seed.

The training grammar is read from lllm/labs/factory/tasks.py itself, never copied here, so a
template added to it later is checked too. Each checker is also shown a planted counter-example,
so every test here can fail.
"""

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

from hooks import architecture
from lllm.agents.calc import calc
from lllm.agents.tools import FACTS, lookup
from lllm.labs.factory import reshape as factory_reshape, tasks as factory_tasks
from lllm.labs.heldout import grammar as hg
from lllm.labs.factory.before_after import score as factory_score
from lllm.labs.factory.tasks import calc_split, make_suite
from lllm.predictors.contract import ScriptedPredictor
from lllm.agents.react import run_react

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODULE = "lllm.labs.heldout.grammar"
GOALS = hg.make_goals(per_family=60, seed=0)
SLOT_RE = re.compile(r"\{\w+\}")


# ---- the training grammar, read from the factory -------------------------------------------------

def training_templates() -> list[str]:
    """Every goal shape training can produce, as the factory enumerates them (slots left as {a},
    {b}, {t}, {w}, ...), and the shapes the trainer's structure noise adds (factory/reshape.py);
    checked below against goals the factory really makes."""
    return factory_tasks.templates() + factory_reshape.templates()


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", SLOT_RE.sub(" ", text.lower()))


def training_word_lists() -> list[list[str]]:
    """The training grammar as word sequences: templates, operator forms, topic names, echo words."""
    texts = (training_templates() + list(factory_tasks.LOOKUP_NAMES.values())
             + list(factory_tasks.ECHO_WORDS) + list(factory_tasks.MADE_UP_WORDS) + sorted(FACTS)
             + sorted(factory_tasks.NAMES)
             + list(factory_tasks.NAMES.values()) + list(factory_tasks.THINGS))
    return [words(t) for t in texts]


def frame(template: str) -> str:
    """A template with its slots blanked and case, spaces and punctuation dropped."""
    return " ".join(words(SLOT_RE.sub(" SLOT ", template)))


def in_training(phrase: str, word_lists) -> bool:
    """Does `phrase` occur, as whole consecutive words, anywhere in the training grammar?"""
    wanted = phrase.lower().split()
    return any(ws[i:i + len(wanted)] == wanted for ws in word_lists for i in range(len(ws)))


def training_regexes() -> list[re.Pattern]:
    """Each training template as a regex over whole goals: numbers in number slots, any text in a
    lookup topic, one word in a word slot."""
    slots = {"{a}": r"-?\d+", "{b}": r"-?\d+", "{n}": r"\d+", "{k}": r"\d+", "{t}": r".+",
             "{w}": r"\S+", "{who}": r"\w+", "{p}": r"\w+", "{x}": r"\w+"}
    patterns = []
    for template in training_templates():
        parts = re.split(r"(\{\w+\})", template)
        patterns.append(re.compile("".join(slots.get(p, re.escape(p)) for p in parts), re.I))
    return patterns


def overlaps(grammar: dict[str, list[tuple[str, str]]]) -> list[str]:
    """Every way `grammar` (family -> [(template, operation words)]) reuses the training grammar."""
    shapes, word_lists = {frame(t) for t in training_templates()}, training_word_lists()
    found = []
    for family, entries in grammar.items():
        for template, operation in entries:
            if frame(template) in shapes:
                found.append(f"{family}: {template!r} is a training template")
            for phrase in operation.split(", "):
                if in_training(phrase, word_lists):
                    found.append(f"{family}: operation word {phrase!r} is in the training grammar")
                if not in_training(phrase, [words(template)]):
                    found.append(f"{family}: operation word {phrase!r} is not in {template!r}")
    return found


def parsed_by_training(goals) -> list[str]:
    patterns = training_regexes()
    return [g.goal for g in goals if any(p.fullmatch(g.goal) for p in patterns)]


def test_no_template_or_operation_word_of_the_grammar_is_in_the_training_grammar():
    assert overlaps(hg.templates()) == []


def test_the_overlap_check_finds_a_planted_training_template_and_operation_word():
    planted = {"arithmetic": [("What is {a} plus {b}?", "plus")], "lookup": [("Tell me about {t}.", "how old")]}
    found = overlaps(planted)
    assert any("'What is {a} plus {b}?' is a training template" in f for f in found)
    assert any("operation word 'plus' is in the training grammar" in f for f in found)
    assert any("'how old' is not in" in f for f in found)          # a word the template never says


def test_no_word_to_echo_is_a_training_word():
    """The no-tool goals' words are new too: the model must copy them, not recall them."""
    word_lists = training_word_lists()
    assert [w for w in hg.NO_TOOL_WORDS if in_training(w, word_lists)] == []
    assert in_training(factory_tasks.MADE_UP_WORDS[0], word_lists)


def test_no_goal_can_be_produced_by_the_training_grammar():
    assert parsed_by_training(GOALS) == []


def test_the_training_grammar_regexes_parse_training_goals():
    import random
    rng = random.Random(0)
    seen = [factory_tasks.make_task(rng, "train") for _ in range(1000)]
    assert {t.family for t in seen} == set(factory_tasks.FAMILIES)
    assert parsed_by_training(seen) == [t.goal for t in seen]


def test_the_training_grammar_is_read_from_the_factory():
    """Not a copied list: a word added to the factory's tables becomes a training word here."""
    assert in_training("multiplied by", training_word_lists())
    assert not in_training("take away", training_word_lists())


# ---- training never imports the module -------------------------------------------------------------

def lllm_imports(path: pathlib.Path) -> set[str]:
    """The lllm modules a file outside the package imports (lazy imports too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return {name for name in found if name.split(".")[0] == "lllm"}


def reached(starts: set[str], graph) -> set[str]:
    """Every lllm module reachable from `starts` through the import graph."""
    todo, seen = [s for s in starts if s in graph], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += graph[name].imports
    return seen


def training_closure(graph, extra: set[str] = frozenset()) -> set[str]:
    starts = set(extra) | {"lllm.labs.factory.episodes", "lllm.labs.factory.tasks"}
    for path in sorted((ROOT / "export").glob("*.py")):
        starts |= lllm_imports(path)
    return reached(starts, graph)


def test_training_never_imports_the_module():
    graph = architecture.import_graph()
    closure = training_closure(graph)
    assert {"lllm.labs.factory.episodes", "lllm.labs.factory.tasks", "lllm.agents.react"} <= closure
    assert MODULE not in closure, sorted(closure)


def test_the_closure_check_finds_a_planted_import():
    graph = architecture.import_graph()
    graph["lllm.labs.factory.tasks"].imports.add(MODULE)     # as if the factory's tasks imported it
    assert MODULE in training_closure(graph)


def test_importing_the_trainer_does_not_load_the_module():
    code = ("import sys, export.agent_build, lllm.labs.factory.episodes, lllm.labs.factory.before_after\n"
            f"print({MODULE!r} in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# ---- the answers, checked with the real tools ----------------------------------------------------

def wrong_answers(goals) -> list[str]:
    """Goals whose oracle the real tools do not back: each accepted calc argument gives the answer
    (in calc and in Python) from numbers the goal or the fact states; a lookup detail is in the fact."""
    wrong = []
    for goal in goals:
        facts = [lookup(args[0]) for tool, args in goal.calls if tool == "lookup"]
        said = re.findall(r"\d+", goal.goal + " ".join(facts))
        for tool, accepted in goal.calls:
            if tool == "calc":
                for arg in accepted:
                    a, op, b = arg.split()
                    expected = {"+": int(a) + int(b), "-": int(a) - int(b), "*": int(a) * int(b)}[op]
                    if calc(arg) != goal.answer or str(expected) != goal.answer or not {a, b} <= set(said):
                        wrong.append(f"{goal.goal!r}: calc[{arg}] = {calc(arg)}, oracle {goal.answer}")
        if goal.family == "lookup":
            if not re.search(rf"(?<!\w){re.escape(goal.answer)}(?!\w)", facts[0], re.I):
                wrong.append(f"{goal.goal!r}: {goal.answer!r} is not in {facts[0]!r}")
        if goal.family == "no-tool" and goal.answer not in re.findall(r"[a-z]+", goal.goal):
            wrong.append(f"{goal.goal!r}: the goal never says {goal.answer!r}")
    return wrong


def test_every_answer_is_what_the_real_tools_give():
    assert wrong_answers(GOALS) == []


def test_the_answer_check_finds_wrong_oracles():
    from dataclasses import replace
    by_family = {g.family: g for g in GOALS}
    planted = [replace(by_family["arithmetic"], answer="-1"), replace(by_family["lookup"], answer="purple"),
               replace(by_family["multi-step"], answer="0")]
    assert len(wrong_answers(planted)) >= 3


def test_hand_checked_goals():
    """A few oracles worked out by hand, not by the module."""
    goals = {g.goal: g for g in hg.make_goals(per_family=60, seed=1)}
    tom = goals["How old is Tom?"]
    assert (tom.calls, tom.answer) == ((("lookup", ("tom",)),), "11")
    later = next(g for g in goals.values() if g.template == "How old will Tom be in {n} years?")
    n = int(re.search(r"\d+", later.goal).group())
    assert later.answer == str(11 + n) and later.calls[0] == ("lookup", ("tom",))
    taken = next(g for g in goals.values() if g.template.startswith("Take {b} away"))
    b, a = map(int, re.findall(r"\d+", taken.goal))
    assert taken.answer == str(a - b) and taken.calls == (("calc", (f"{a} - {b}",)),)


def test_calc_goals_draw_their_numbers_from_the_test_buckets():
    for goal in GOALS:
        if goal.family in ("arithmetic", "word problem"):
            a, op, b = goal.calls[0][1][0].split()
            assert calc_split(int(a), op, int(b)) == "test", goal.goal


def test_every_family_and_template_is_drawn():
    assert [g.family for g in GOALS] == sorted((g.family for g in GOALS), key=hg.FAMILIES.index)
    assert {g.family for g in GOALS} == set(hg.FAMILIES)
    assert len({g.goal for g in GOALS}) == len(GOALS)
    drawn = {g.template for g in GOALS}
    missing = [t for family in hg.templates().values() for t, _ in family if t not in drawn]
    assert missing == []


# ---- determinism -------------------------------------------------------------------------------

def test_the_same_seed_gives_the_same_goals_and_another_seed_others():
    assert hg.make_goals(20, seed=3) == hg.make_goals(20, seed=3)
    assert hg.make_goals(20, seed=3) != hg.make_goals(20, seed=4)


def test_the_goals_do_not_depend_on_the_process():
    code = ("from lllm.labs.heldout.grammar import make_goals\n"
            "print(repr([(g.goal, g.answer) for g in make_goals(10, seed=5)]))")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2")]
    assert runs[0] == runs[1] == repr([(g.goal, g.answer) for g in hg.make_goals(10, seed=5)]) + "\n"


# ---- scoring -----------------------------------------------------------------------------------

def run(goal, replies):
    return run_react(goal.goal, ScriptedPredictor(replies), max_steps=4, return_trajectory=True)


def test_score_wants_each_call_in_order_with_an_accepted_argument():
    goal = next(g for g in GOALS if g.family == "multi-step")
    (_, (topic,)), (_, (expression, *_)) = goal.calls
    right = run(goal, [f"Action: lookup[{topic}]", f"Action: calc[{expression}]", f"Final Answer: {goal.answer}"])
    assert hg.score(right, goal) == {"tool": 1.0, "args": 1.0, "exact": 1.0, "lenient": 1.0}
    swapped = run(goal, [f"Action: calc[{expression}]", f"Action: lookup[{topic}]", f"Final Answer: {goal.answer}"])
    assert hg.score(swapped, goal)["tool"] == 0.0
    wrong_args = run(goal, [f"Action: lookup[{topic}]", "Action: calc[1 + 1]", "Final Answer: 2"])
    assert hg.score(wrong_args, goal) == {"tool": 1.0, "args": 0.0, "exact": 0.0, "lenient": 0.0}


def test_score_of_a_no_tool_goal_has_no_arguments_and_wants_no_call():
    goal = next(g for g in GOALS if g.family == "no-tool")
    assert hg.score(run(goal, [f"Final Answer: {goal.answer}"]), goal) == {
        "tool": 1.0, "args": None, "exact": 1.0, "lenient": 1.0}
    assert hg.score(run(goal, ["Action: lookup[tom]", f"Final Answer: {goal.answer}"]), goal)["tool"] == 0.0


def test_seen_grammar_tasks_score_as_the_factory_scores_them():
    from lllm.predictors import RulePredictor
    for task in make_suite("test", per_group=3, seed=2):
        trajectory = run_react(task.goal, RulePredictor(), max_steps=4, return_trajectory=True)
        ours, theirs = hg.score(trajectory, hg.from_task(task)), factory_score(trajectory, task)
        assert ours["tool"] == theirs["tool"] and ours["exact"] == theirs["answer"], task.goal
        assert ours["args"] == (theirs["args"] if task.tool else None), task.goal


def test_the_family_table_has_a_row_per_family_and_overall():
    rows = [(g, {"tool": 1.0, "args": None if g.family == "no-tool" else 0.0, "exact": 0.0, "lenient": 1.0}, None)
            for g in hg.make_goals(2, seed=0)]
    table = hg.family_table({"held-out grammar": rows})
    assert len(table.splitlines()) == 1 + len(hg.FAMILIES) + 1
    assert re.search(r"no-tool\s+2\s+100\.0\s+-\s+0\.0\s+100\.0", table)
    assert re.search(r"all\s+10\s+100\.0\s+0\.0\s+0\.0\s+100\.0", table)


@pytest.mark.parametrize("family", hg.FAMILIES)
def test_the_rule_predictor_is_no_oracle_here(family):
    """The rule stand-in reads the training grammar's words; it should stumble on most of these
    goals, or the grammar is not as new as it claims."""
    from lllm.predictors import RulePredictor
    goals = [g for g in GOALS if g.family == family]
    rows = hg.evaluate(RulePredictor(), goals)
    fully = sum(1 for _, s, _ in rows if s["tool"] and s["args"] in (None, 1.0) and s["exact"])
    assert fully <= len(goals) // 2, (family, fully)


def test_calc_errors_tells_a_wrong_operator_from_a_wrong_number():
    goal = hg.Goal("What is 82 take 8?", "arithmetic", (("calc", ("82 - 8",)),), "74", "t")
    multi = next(g for g in GOALS if g.family == "multi-step")
    rows = []
    for reply in ("82 - 8", "82 + 8", "8 - 82", "82 - 9", "81 + 8"):
        trajectory = run(goal, [f"Action: calc[{reply}]", "Final Answer: 1"])
        rows.append((goal, hg.score(trajectory, goal), trajectory))
    no_call = run(goal, ["Final Answer: 74"])
    rows += [(goal, hg.score(no_call, goal), no_call), (multi, {"args": 0.0}, no_call)]
    assert hg.calc_errors(rows) == {"goals": 6, "wrong": 5, "operator": 1, "number": 1, "other": 3}
