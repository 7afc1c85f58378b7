"""Layer 4 · goals held out by grammar: `make_goals(per_family, seed) -> list[Goal]`, in words training never uses.

Read `lllm/labs/factory/tasks.py` first. Its test split holds out *rows* of one small grammar — new
numbers, new pairings of prefix and operator form, two unseen templates — so a model can score
well there and still fail as soon as a goal is said differently. This module writes goals from a
grammar of its own: other verbs, other sentence shapes, questions about one detail of a fact.
Five families:

    arithmetic     "Take 9 away from 57. What is left?"                  calc[57 - 9]  -> 48
    word problem   "A box holds 12 eggs. How many eggs are in 3 boxes?"  calc[3 * 12]  -> 36
    lookup         "How old is Tom?"                                     lookup[tom]   -> 11
    multi-step     "How old will Tom be in 5 years?"      lookup[tom], then calc[11 + 5] -> 16
    no-tool        "Reply with pebble and nothing else."                 no tool       -> pebble

Only the words are new. The operations are the three training knows (+ - *), the number pairs
come from the factory's test buckets (`content_split`), and every answer comes from the real
tools: `calc` computes it, or it is read out of the `lookup` fact (a table entry the fact does not
back is a RuntimeError, not a wrong oracle). Each template names its *operation words* — the
words that say what to do ("away", "left"); tests/labs/test_heldout_grammar.py checks that none of them,
and no template, occurs in the training grammar, and that training never imports this module.

`score(trajectory, goal)` credits: tool (each expected tool called, in order; none for no-tool),
args (each expected call with an accepted argument; None where a goal has no tool), and the final
answer twice — exact (the whole answer, as the factory's evaluation scores) and lenient
(`answer_matches`' default: a fact copied whole still credits the detail asked for).
`calc_errors(rows)` says why one-calculation goals got wrong arguments: the operator or a number.

Usage:

    >>> goals = make_goals(per_family=2, seed=0)
    >>> [g.family for g in goals][::2]
    ['arithmetic', 'word problem', 'lookup', 'multi-step', 'no-tool']
    >>> ask = Goal("How old is Tom?", "lookup", (("lookup", ("tom",)),), "11", "How old is Tom?")
    >>> from lllm.predictors.contract import ScriptedPredictor
    >>> from lllm.agents.react import run_react
    >>> agent = ScriptedPredictor(["Action: lookup[tom]", "Final Answer: Tom is 11 years old."])
    >>> score(run_react(ask.goal, agent, return_trajectory=True), ask)
    {'tool': 1.0, 'args': 1.0, 'exact': 0.0, 'lenient': 1.0}
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Sequence

from lllm.agents.calc import calc
from lllm.agents.react import Trajectory, run_react
from lllm.agents.tools import lookup
from lllm.labs.factory.tasks import Task, calc_split
from lllm.labs.scoring import answer_matches, squash

__all__ = ["Goal", "FAMILIES", "ARITHMETIC", "WORD_PROBLEMS", "LOOKUPS", "MULTI_STEP", "NO_TOOL",
           "NO_TOOL_WORDS", "templates", "make_goals", "from_task", "score", "evaluate", "family_table",
           "is_failure", "gallery", "gallery_row", "gallery_markdown", "GALLERY_HEAD", "calc_errors"]

FAMILIES = ("arithmetic", "word problem", "lookup", "multi-step", "no-tool")


@dataclass(frozen=True)
class Goal:
    """A goal and its oracle: the tool calls it needs, in order, each with the arguments accepted
    for it (compared squashed), and the right final answer."""

    goal: str
    family: str
    calls: tuple[tuple[str, tuple[str, ...]], ...]
    answer: str
    template: str


# ---- the grammar: (template, its operation words) ------------------------------------------------

# --8<-- [start:grammar]
ARITHMETIC = {   # {a} op {b} is the calc argument; the sentence may name them in any order
    "+": [("Add {b} to {a}. What do you end up with?", "add, end"),
          ("What number is {b} more than {a}?", "more"),
          ("Increase {a} by {b}.", "increase"),
          ("{a} and {b} added together make what?", "added, together"),
          ("Put {a} and {b} together: how many altogether?", "together, altogether")],
    "-": [("Take {b} away from {a}. What is left?", "take, away, left"),
          ("Subtract {b} from {a}.", "subtract"),
          ("What is {b} less than {a}?", "less"),
          ("Decrease {a} by {b}.", "decrease"),
          ("If you remove {b} from {a}, what remains?", "remove, remains")],
    "*": [("What are {a} lots of {b}?", "lots"),
          ("{a} groups of {b} make how many?", "groups"),
          ("Scale {a} up by a factor of {b}.", "scale, factor"),
          ("{a} rows with {b} in each row: how many in all?", "rows, each, all")],
}
WORD_PROBLEMS = {
    "+": [("A jar holds {a} sweets. Someone puts in {b} more. How many sweets are in the jar?", "puts, more"),
          ("There are {a} ducks on a pond and {b} more fly in. How many ducks are there?", "more, fly"),
          ("Ann read {a} pages on Monday and {b} on Tuesday. How many pages did she read in total?", "total")],
    "-": [("A bus carries {a} people. At the stop, {b} get off. How many people stay on the bus?", "get off, stay"),
          ("Sam had {a} stamps and gave {b} away. How many stamps does Sam have left?", "gave, away, left"),
          ("A rope is {a} metres long and {b} metres are cut off. How long is the rope now?", "cut, off")],
    "*": [("A box holds {b} eggs. How many eggs are in {a} boxes?", "holds"),
          ("A crate has {a} rows of {b} bottles. How many bottles are in the crate?", "rows"),
          ("Each ticket costs {b} coins. What do {a} tickets cost?", "each, cost")],
}
LOOKUPS = [   # (topic, question, the detail of lookup(topic) that answers it, operation words)
    ("tom", "How old is Tom?", "11", "how old"),
    ("tom", "Who is Tom's father?", "Owen", "father"),
    ("tom", "Where does Tom live?", "the mill", "where, live"),
    ("owen", "What job does Owen do?", "miller", "job"),
    ("owen", "Whose father is Owen?", "Tom", "whose, father"),
    ("mira", "What job does Mira do?", "baker", "job"),
    ("mira", "On which street does Mira live?", "Apple Street", "street, live"),
    ("lina", "How many hens does Lina keep?", "5", "hens, keep"),
    ("lina", "Which road does Lina live on?", "Hill Road", "road, live"),
    ("hale", "What job does Mr. Hale do?", "teacher", "job"),
    ("pip", "Whose cat is Pip?", "Mira", "whose"),
    ("pip", "What colour is Pip?", "grey", "colour"),
    ("bram", "What kind of animal is Bram?", "goat", "kind, animal"),
    ("bram", "Who owns Bram?", "Lina", "owns"),
    ("dot", "What kind of animal is Dot?", "dog", "kind, animal"),
    ("dot", "Who owns Dot?", "Mr. Hale", "owns"),
    ("bakery", "What time does the bakery open?", "6:30", "time, open"),
    ("bakery", "How many loaves does the bakery bake on Friday?", "24", "loaves, bake"),
    ("mill", "What colour is the wheel of the mill?", "blue", "colour, wheel"),
    ("clock", "How many faces does the old clock have?", "4", "faces"),
    ("clock", "What colour is the old clock?", "gold", "colour"),
    ("market", "On which day is the market held?", "Saturday", "day, held"),
    ("school", "How many children are in the school's class?", "18", "children"),
    ("bread", "What does a loaf of bread cost?", "2", "cost"),
    ("brookfield", "What flows past Brookfield?", "river", "flows, past"),
]
MULTI_STEP = [   # (topic, how its fact states the number, question, operator, operation words)
    ("tom", r"(\d+) years old", "How old will Tom be in {n} years?", "+", "how old, will"),
    ("tom", r"(\d+) years old", "How old was Tom {n} years ago?", "-", "how old, ago"),
    ("lina", r"(\d+) hens", "Each of Lina's hens lays {n} eggs. How many eggs is that?", "*", "lays"),
    ("bread", r"costs (\d+) coins", "How many coins do {n} loaves of bread cost?", "*", "coins, cost"),
    ("school", r"(\d+) children", "If {n} new children join the school, how many children will it have?", "+", "join"),
    ("clock", r"has (\d+) faces", "How many faces do {n} clocks like the old clock have?", "*", "faces"),
    ("bakery", r"(\d+) loaves a day", "How many loaves does the bakery bake in {n} ordinary days?", "*", "loaves, days"),
]
NO_TOOL = [("Reply with {w} and nothing else.", "reply, nothing"), ("Copy this back to me: {w}", "copy"),
           ("Your whole answer should be {w}.", "answer, whole"), ("Respond with {w}, please.", "respond"),
           ("Answer with one word only: {w}", "answer, only")]
NO_TOOL_WORDS = ("pebble harbor lemon tulip anchor basil comet dune ember fern glacier hammock igloo "
                 "jasmine kayak lagoon magnet nectar oyster parrot quilt raisin sapling trumpet umbrella "
                 "vessel willow acorn bucket cactus").split()
# --8<-- [end:grammar]


def templates() -> dict[str, list[tuple[str, str]]]:
    """Every template of the grammar with its operation words, per family."""
    return {"arithmetic": [t for op in ARITHMETIC.values() for t in op],
            "word problem": [t for op in WORD_PROBLEMS.values() for t in op],
            "lookup": [(q, words) for _, q, _, words in LOOKUPS],
            "multi-step": [(q, words) for _, _, q, _, words in MULTI_STEP],
            "no-tool": list(NO_TOOL)}


# ---- making goals --------------------------------------------------------------------------------

def _accepted(a: int, op: str, b: int) -> tuple[str, ...]:
    """The calc arguments credited: `a op b`, and `b op a` when the operator commutes."""
    return (f"{a} {op} {b}",) + ((f"{b} {op} {a}",) if op in "+*" else ())


def _number(rng: random.Random) -> int:
    digits = rng.choice((1, 2, 2, 3))        # as the factory's held-out goals draw them
    return rng.randrange(10 ** (digits - 1) if digits > 1 else 1, 10 ** digits)


def _small(rng: random.Random) -> int:
    return rng.randrange(2, 60)              # eggs, ducks and stamps come in small numbers


def _calc_goal(rng: random.Random, family: str, table: dict, draw) -> Goal | None:
    """A goal from `table` (operator -> templates) whose operands, drawn by `draw`, are a pair of
    the factory's test buckets (a >= b for -); None to draw again."""
    op = rng.choice(sorted(table))
    template, _ = rng.choice(table[op])
    a, b = draw(rng), draw(rng)
    a, b = (b, a) if op == "-" and a < b else (a, b)
    if calc_split(a, op, b) != "test":
        return None
    return Goal(template.format(a=a, b=b), family, (("calc", _accepted(a, op, b)),),
                calc(f"{a} {op} {b}"), template)


def _in_fact(detail: str, fact: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(detail)}(?!\w)", fact, re.I) is not None


def _lookup(rng: random.Random) -> Goal:
    topic, question, detail, _ = rng.choice(LOOKUPS)
    if not _in_fact(detail, lookup(topic)):
        raise RuntimeError(f"lookup[{topic}] does not say {detail!r}")     # a bug in the table
    return Goal(question, "lookup", (("lookup", (topic,)),), detail, question)


def _multi_step(rng: random.Random) -> Goal:
    topic, pattern, template, op, _ = rng.choice(MULTI_STEP)
    found = re.search(pattern, lookup(topic))
    if not found:
        raise RuntimeError(f"lookup[{topic}] has no number for {pattern!r}")  # a bug in the table
    x, n = int(found.group(1)), rng.randrange(2, 10 if op == "-" else 20)
    return Goal(template.format(n=n), "multi-step", (("lookup", (topic,)), ("calc", _accepted(x, op, n))),
                calc(f"{x} {op} {n}"), template)


def _no_tool(rng: random.Random) -> Goal:
    template, _ = rng.choice(NO_TOOL)
    word = rng.choice(NO_TOOL_WORDS)
    return Goal(template.format(w=word), "no-tool", (), word, template)


MAKERS = {"arithmetic": lambda rng: _calc_goal(rng, "arithmetic", ARITHMETIC, _number),
          "word problem": lambda rng: _calc_goal(rng, "word problem", WORD_PROBLEMS, _small),
          "lookup": _lookup, "multi-step": _multi_step, "no-tool": _no_tool}


def make_goals(per_family: int = 20, seed: int = 0, makers: dict | None = None) -> list[Goal]:
    """Up to `per_family` distinct goals of each family, in FAMILIES order; the same for a seed.
    `makers` (family -> maker(rng) -> Goal or None) defaults to this grammar's; structure.py
    passes its own."""
    rng, goals, makers = random.Random(seed), [], makers or MAKERS
    for family in FAMILIES:
        found: dict[str, Goal] = {}
        for _ in range(200 * per_family):
            goal = makers[family](rng)
            if goal is not None:
                found.setdefault(goal.goal, goal)
            if len(found) >= per_family:
                break
        goals += found.values()
    return goals


def from_task(task: Task) -> Goal:
    """A factory task as a Goal, so the seen grammar is scored by the same rules."""
    calls = ((task.tool, (task.args,)),) if task.tool else ()
    return Goal(task.goal, task.family, calls, task.answer, task.phrasing)


# ---- scoring -------------------------------------------------------------------------------------

# --8<-- [start:score]
def score(trajectory: Trajectory, goal: Goal) -> dict[str, float | None]:
    """tool, args (None for a goal without tools), exact and lenient answer: 1.0 right, 0.0 wrong."""
    calls = trajectory.tool_calls()
    if not goal.calls:
        tool, args = float(not calls and trajectory.answer is not None), None
    else:
        names, wanted = iter(name for name, _ in calls), [name for name, _ in goal.calls]
        tool = float(all(name in names for name in wanted))            # in order, others allowed
        args = float(all(any(name == want and squash(a) in {squash(x) for x in accepted}
                             for name, a in calls) for want, accepted in goal.calls))
    return {"tool": tool, "args": args, "exact": float(answer_matches(trajectory.answer, goal.answer, exact=True)),
            "lenient": float(answer_matches(trajectory.answer, goal.answer))}
# --8<-- [end:score]


def evaluate(predictor, goals: Sequence[Goal], max_steps: int = 4) -> list[tuple[Goal, dict, Trajectory]]:
    """Run each goal once through run_react (no forcing: goals are questions) and score it."""
    rows = []
    for goal in goals:
        trajectory = run_react(goal.goal, predictor, max_steps=max_steps, return_trajectory=True)
        rows.append((goal, score(trajectory, goal), trajectory))
    return rows


def family_table(suites: dict[str, list[tuple[Goal, dict, Trajectory]]]) -> str:
    """One row per (suite, family) and per suite overall: n, then each criterion in percent."""
    criteria = ("tool", "args", "exact", "lenient")
    lines = [f"{'suite':22s} {'family':14s} {'n':>4s}  " + " ".join(f"{c:>7s}" for c in criteria)]
    for name, rows in suites.items():
        order = {f: i for i, f in enumerate(FAMILIES)}
        families = sorted({g.family for g, _, _ in rows}, key=lambda f: (order.get(f, len(order)), f))
        for family in families + [None]:
            picked = [s for g, s, _ in rows if family in (None, g.family)]
            cells = []
            for c in criteria:
                values = [s[c] for s in picked if s[c] is not None]
                cells.append(f"{100 * sum(values) / len(values):7.1f}" if values else f"{'-':>7s}")
            lines.append(f"{name:22s} {family or 'all':14s} {len(picked):4d}  " + " ".join(cells))
    return "\n".join(lines)


# ---- the gallery: real failures, as a table a page can include -----------------------------------

GALLERY_HEAD = "| family | goal | the model called | it answered | right |\n|---|---|---|---|---|"


def _cell(text: str) -> str:
    return (text or "").replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ") or "(nothing)"


def gallery_row(goal: Goal, trajectory: Trajectory) -> str:
    """One markdown row: the goal, the tool calls the model made, its final answer, and the oracle."""
    called = ", ".join(f"`{name}[{args}]`" for name, args in trajectory.tool_calls()) or "no tool"
    answer = "(no final answer)" if trajectory.answer is None else _cell(trajectory.answer)
    right = ", then ".join(f"`{name}[{accepted[0]}]`" for name, accepted in goal.calls) or "no tool"
    return f"| {goal.family} | {_cell(goal.goal)} | {called} | {answer} | {right} → {_cell(goal.answer)} |"


def is_failure(scores: dict) -> bool:
    """A run whose answer is wrong even leniently, or whose tool calls are wrong."""
    return not scores["lenient"] or not scores["tool"] or scores["args"] == 0.0


def gallery(rows, per_family: int = 3) -> list[tuple[Goal, Trajectory]]:
    """The first `per_family` failures (`is_failure`) of each family, in the order the goals were run."""
    picked, counts = [], {}
    for goal, scores, trajectory in rows:
        if is_failure(scores) and counts.get(goal.family, 0) < per_family:
            counts[goal.family] = counts.get(goal.family, 0) + 1
            picked.append((goal, trajectory))
    return picked


def gallery_markdown(rows, per_family: int = 3) -> str:
    """The gallery as a markdown table (GALLERY_HEAD, then one gallery_row per failure)."""
    return "\n".join([GALLERY_HEAD] + [gallery_row(g, t) for g, t in gallery(rows, per_family)]) + "\n"


# ---- why a calculation went wrong: the operator, or the numbers ---------------------------------

_CALC = re.compile(r"^\s*(-?\d+)\s*([-+*])\s*(-?\d+)\s*$")


def calc_errors(rows) -> dict[str, int]:
    """Of the one-calculation goals (arithmetic, word problems) whose arguments were wrong: how many
    had both numbers right and the wrong operator ("operator"), the right operator and a wrong
    number ("number"), or anything else ("other": both wrong, a subtraction's operands swapped, no
    calc). "goals" counts the one-calculation goals, "wrong" those with wrong arguments."""
    counts = {"goals": 0, "wrong": 0, "operator": 0, "number": 0, "other": 0}
    for goal, scores, trajectory in rows:
        if len(goal.calls) != 1 or goal.calls[0][0] != "calc" or not _CALC.match(goal.calls[0][1][0]):
            continue                        # a two-step goal has two calls, a two-operation story two operators
        counts["goals"] += 1
        if scores["args"]:
            continue
        counts["wrong"] += 1
        want = _CALC.match(goal.calls[0][1][0])
        made = [args for name, args in trajectory.tool_calls() if name == "calc"]
        got = _CALC.match(made[0]) if made else None
        same_numbers = bool(got) and sorted((want[1], want[3])) == sorted((got[1], got[3]))
        if same_numbers and got[2] != want[2]:
            counts["operator"] += 1
        elif got and got[2] == want[2] and not same_numbers:
            counts["number"] += 1
        else:
            counts["other"] += 1
    return counts
