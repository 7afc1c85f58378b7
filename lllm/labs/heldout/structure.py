"""Layer 4 · goals held out by structure: `make_goals(per_family, seed) -> list[Goal]`, known words in new shapes.

Read `grammar.py` first. It holds out *words*: "remove", "less", "how old" never occur in
training, so a model trained from scratch cannot know what they mean. This module holds out only
*shapes*: every word of every goal here occurs in the training grammar (`lllm/labs/factory/tasks.py`), and
every operation is said with training's own operation words ("plus", "multiplied by", "reduced
by", "loses", "tell me about"), but no goal has a training sentence's shape. Six kinds of shape:

    order          "{a} minus {b} is what?"           the question last, or the operands reversed
    casing         "WHAT IS {a} MULTIPLIED BY {b}?"   upper or lower case where training has neither
    punctuation    "What is {a}*{b}?"                 symbols and marks training never writes
    embedded       "Can you tell me what {a} plus {b} is?"   the question inside a longer sentence
    distractor     "Kim has {k} kites. What is {a} plus {b}?"   a clause and a number in new places
    two sentences  "A shop had {a} {x}. It sold {b}. ..."     two sentences where training has one

The families, the number buckets (`calc_split`: test buckets only), the Goal record and the
scoring are `grammar.py`'s, and every answer comes from the real tools, so the two held-out
sets and the seen grammar's held-out rows are scored by one rule and can stand side by side
(`side_by_side`). tests/labs/test_heldout_structure.py checks every word against the training grammar
and every goal against its templates.

`known_operation(goal)` is the same idea run backwards, for a goal a reader types: the one
calculation the goal says in training's own operator forms ("48 plus 7", "the product of 6 and
3", "Deduct 9 from 57"), or None when it says none, or more than one; `judge` then scores a run
against it with the real `calc`.

Usage:

    >>> goals = make_goals(per_family=2, seed=0)
    >>> [g.family for g in goals][::2]
    ['arithmetic', 'word problem', 'lookup', 'multi-step', 'no-tool']
    >>> known_operation("Quick one: 48 PLUS 7?"), known_operation("How old is Tom?")
    ('48 + 7', None)
"""

from __future__ import annotations

import random
import re

from lllm.agents.calc import calc
from lllm.agents.react import Trajectory
from lllm.agents.tools import lookup
from lllm.labs.factory.tasks import ARITH_COMMANDS, ARITH_FORMS, ECHO_WORDS, LOOKUP_NAMES, NAMES, THINGS, calc_split
from lllm.labs.heldout import grammar
from lllm.labs.heldout.grammar import FAMILIES, Goal, score

__all__ = ["FAMILIES", "SHAPES", "ARITHMETIC", "WORD_PROBLEMS", "LOOKUPS", "MULTI_STEP", "NO_TOOL",
           "templates", "shape_of", "make_goals", "side_by_side", "shape_table", "known_operation", "judge"]

SHAPES = ("order", "casing", "punctuation", "embedded", "distractor", "two sentences")

# ---- the shapes: (template, its kind of shape); {k} is a distractor number -------------------------

# --8<-- [start:shapes]
ARITHMETIC = {   # {a} op {b} is the calc argument
    "+": [("WHAT IS {a} PLUS {b}?", "casing"), ("what is the sum of {a} and {b}", "casing"),
          ("{a} plus {b} is what?", "order"), ("The sum of {a} and {b}: what is it?", "order"),
          ("What is {a}+{b}??", "punctuation"), ("Can you tell me what {a} plus {b} is?", "embedded"),
          ("Kim has {k} kites. What is {a} plus {b}?", "distractor"),
          ("What is {a} plus {b}? This is question {k}.", "distractor"),
          ("This is {a}. What is it plus {b}?", "two sentences")],
    "-": [("WHAT IS {a} MINUS {b}?", "casing"), ("{a} minus {b} is what?", "order"),
          ("From {a}, deduct {b}.", "order"), ("By {b}, lower {a}.", "order"),
          ("What is {a}-{b}??", "punctuation"), ("I want to know what {a} reduced by {b} is.", "embedded"),
          ("Ben has {k} apples. What is {a} minus {b}?", "distractor"),
          ("This is {a}. What is it minus {b}?", "two sentences")],
    "*": [("WHAT IS {a} MULTIPLIED BY {b}?", "casing"), ("{a} times {b} is what?", "order"),
          ("By {b}, multiply {a}.", "order"), ("The product of {a} and {b}: what is it?", "order"),
          ("What is {a}*{b}??", "punctuation"), ("Can you tell me what the product of {a} and {b} is?", "embedded"),
          ("Zoe has {k} cards. What is {a} times {b}?", "distractor"),
          ("This is {a}. What is it times {b}?", "two sentences")],
}
WORD_PROBLEMS = {   # {who} a name, {p} its pronoun, {x} a thing, as the factory draws them
    "+": [("{who} finds {b} {x}. {who} had {a} {x} in the morning. How many {x} does {who} have now?", "order"),
          ("How many {x} does {who} have now? {who} has {a} {x}. {p} finds {b} {x}.", "order"),
          ("{who} has {a} {x}. {p} finds {b} {x}. {p} is {k}. How many {x} does {who} have now?", "distractor")],
    "-": [("{who} has {a} {x}. Then {q} loses {b} of them. How many {x} does {who} have now?", "two sentences"),
          ("A shop had {a} {x}. It sold {b}. How many {x} does the shop still have?", "two sentences"),
          ("How many {x} does the shop still have? It had {a} {x} and sold {b}.", "order")],
    "*": [("{who} buys {a} bags. There are {b} {x} in every bag. How many {x} does {who} buy?", "two sentences"),
          ("How many {x} are there? There are {a} tables with {b} {x} on every table.", "order"),
          ("{who} has {k} bags. {p} packs {a} boxes of {b} {x}. How many {x} does {who} pack?", "distractor")],
}
LOOKUPS = [("About {t}: what do you know?", "order"), ("{T}: tell me about it.", "order"),
           ("WHAT DO YOU KNOW ABOUT {T}?", "casing"), ("what do you know about {t}", "casing"),
           ("Tell me about {t}!!", "punctuation"), ("Can you tell me about {t}?", "embedded"),
           ("I want to know what you know about {t}.", "embedded"),
           ("Kim has {k} kites. Tell me about {t}.", "distractor"),
           ("I have a question about {t}. What do you know?", "two sentences")]
MULTI_STEP = [   # (topic, how its fact states the number, template, operator, shape)
    ("tom", r"(\d+) years old", "Tom's age plus {n}: what is it?", "+", "order"),
    ("tom", r"(\d+) years old", "What is {n} plus Tom's age?", "+", "order"),
    ("tom", r"(\d+) years old", "WHAT IS TOM'S AGE MINUS {n}?", "-", "casing"),
    ("tom", r"(\d+) years old", "Can you tell me what Tom's age times {n} is?", "*", "embedded"),
    ("bread", r"costs (\d+) coins", "The price of bread times {n}: what is it?", "*", "order"),
    ("school", r"(\d+) children", "Kim has {k} kites. What is the number of pupils at the school plus {n}?", "+", "distractor"),
    ("lina", r"(\d+) hens", "Look up Lina. What is the number of Lina's birds times {n}?", "*", "two sentences"),
]
NO_TOOL = [("say the word {w}", "casing"), ("The word {w}: repeat it.", "order"),
           ("{w}: say it back to me.", "order"), ("Say {w}!!", "punctuation"),
           ("Can you repeat the word {w} for me?", "embedded"),
           ("Kim has {k} kites. Say the word {w}.", "distractor"),
           ("I have a word for you. It is {w}. Say it.", "two sentences")]
# --8<-- [end:shapes]


def templates() -> dict[str, list[tuple[str, str]]]:
    """Every template with its kind of shape, per family."""
    return {"arithmetic": [t for op in ARITHMETIC.values() for t in op],
            "word problem": [t for op in WORD_PROBLEMS.values() for t in op],
            "lookup": list(LOOKUPS), "multi-step": [(m[2], m[4]) for m in MULTI_STEP], "no-tool": list(NO_TOOL)}


def shape_of(template: str) -> str:
    """The kind of shape of one of this module's templates."""
    return next(shape for family in templates().values() for t, shape in family if t == template)


# ---- making goals --------------------------------------------------------------------------------

def _accepted(a: int, op: str, b: int) -> tuple[str, ...]:
    return (f"{a} {op} {b}",) + ((f"{b} {op} {a}",) if op in "+*" else ())


def _number(rng: random.Random) -> int:
    digits = rng.choice((1, 2, 2, 3))        # as the factory's held-out goals draw them
    return rng.randrange(10 ** (digits - 1) if digits > 1 else 1, 10 ** digits)


def _calc_goal(rng: random.Random, family: str, table: dict, draw) -> Goal | None:
    """A goal whose operands, drawn by `draw`, are a pair of the factory's test buckets; None to draw again."""
    op = rng.choice(sorted(table))
    template, _ = rng.choice(table[op])
    a, b, k = draw(rng), draw(rng), rng.randrange(2, 30)
    a, b = (b, a) if op == "-" and a < b else (a, b)
    if calc_split(a, op, b) != "test" or k in (a, b):
        return None
    name = rng.choice(sorted(NAMES))
    goal = template.format(a=a, b=b, k=k, who=name, p=NAMES[name], q=NAMES[name].lower(), x=rng.choice(THINGS))
    return Goal(goal, family, (("calc", _accepted(a, op, b)),), calc(f"{a} {op} {b}"), template)


def _lookup(rng: random.Random) -> Goal:
    template, _ = rng.choice(LOOKUPS)
    topic = rng.choice(sorted(set(LOOKUP_NAMES) | {"tom", "owen", "mira", "lina", "pip", "bram", "dot"}))
    name = LOOKUP_NAMES.get(topic, topic.capitalize())
    goal = template.format(t=name, T=name[0].upper() + name[1:], k=rng.randrange(2, 30))
    if template.isupper():
        goal = goal.upper()
    return Goal(goal, "lookup", (("lookup", (topic,)),), lookup(topic), template)   # as training answers it


def _multi_step(rng: random.Random) -> Goal:
    topic, pattern, template, op, _ = rng.choice(MULTI_STEP)
    found = re.search(pattern, lookup(topic))
    if not found:
        raise RuntimeError(f"lookup[{topic}] has no number for {pattern!r}")  # a bug in the table
    x, n = int(found.group(1)), rng.randrange(2, 10 if op == "-" else 20)
    goal = template.format(n=n, k=rng.choice([k for k in range(2, 30) if k not in (x, n)]))
    return Goal(goal, "multi-step", (("lookup", (topic,)), ("calc", _accepted(x, op, n))),
                calc(f"{x} {op} {n}"), template)


def _no_tool(rng: random.Random) -> Goal:
    template, _ = rng.choice(NO_TOOL)
    word = rng.choice(ECHO_WORDS)            # a word training echoes: copying it is not the new part
    return Goal(template.format(w=word, k=rng.randrange(2, 30)), "no-tool", (), word, template)


MAKERS = {"arithmetic": lambda rng: _calc_goal(rng, "arithmetic", ARITHMETIC, _number),
          "word problem": lambda rng: _calc_goal(rng, "word problem", WORD_PROBLEMS, lambda r: r.randrange(2, 60)),
          "lookup": _lookup, "multi-step": _multi_step, "no-tool": _no_tool}


def make_goals(per_family: int = 20, seed: int = 0) -> list[Goal]:
    """Up to `per_family` distinct goals of each family, in FAMILIES order; the same for a seed."""
    return grammar.make_goals(per_family, seed, makers=MAKERS)


# ---- three held-out sets side by side ------------------------------------------------------------

def side_by_side(suites: dict[str, list], criterion: str = "lenient") -> str:
    """One row per family and one overall: per suite (name -> scored rows, as `grammar.evaluate`
    returns them) the percentage right by `criterion` and n."""
    names = list(suites)
    lines = [f"{'family':14s}" + "".join(f"{name:>24s}" for name in names)]
    for family in list(FAMILIES) + [None]:
        cells = []
        for name in names:
            values = [s[criterion] for g, s, _ in suites[name]
                      if family in (None, g.family) and s[criterion] is not None]
            cells.append(f"{100 * sum(values) / len(values):5.1f}% of {len(values):4d}" if values else "-")
        lines.append(f"{family or 'all':14s}" + "".join(f"{c:>24s}" for c in cells))
    return "\n".join(lines)


def shape_table(rows) -> str:
    """One row per kind of shape and one overall, over this module's scored goals: n, then right
    tool, right arguments and right answer (lenient), in percent."""
    lines = [f"{'shape':14s} {'n':>4s}  " + " ".join(f"{c:>7s}" for c in ("tool", "args", "lenient"))]
    for shape in list(SHAPES) + [None]:
        picked = [s for g, s, _ in rows if shape in (None, shape_of(g.template))]
        cells = []
        for c in ("tool", "args", "lenient"):
            values = [x[c] for x in picked if x[c] is not None]
            cells.append(f"{100 * sum(values) / len(values):7.1f}" if values else f"{'-':>7s}")
        lines.append(f"{shape or 'all':14s} {len(picked):4d}  " + " ".join(cells))
    return "\n".join(lines)


# ---- judging a goal a reader types: one operation in training's own words --------------------------

def _pattern(form: str) -> re.Pattern:
    """An operator form ("{a} plus {b}", "Deduct {b} from {a}.") as a regex that finds it in any goal."""
    form = form.rstrip(".")
    parts = re.split(r"(\{[ab]\})", form)
    body = "".join(rf"(?P<{p[1]}>\d+)" if p in ("{a}", "{b}") else re.escape(p).replace(r"\ ", r"\s*")
                   for p in parts)
    return re.compile(rf"(?<![\d.]){body}(?!\d|\.\d)", re.I)


OPERATIONS = [(op, _pattern(form)) for op, forms in ARITH_FORMS.items() for form in forms] + \
             [(op, _pattern(form)) for op, forms in ARITH_COMMANDS.items() for form in forms]


# --8<-- [start:judge]
def known_operation(goal: str) -> str | None:
    """The one calculation `goal` says in training's operator forms, as a calc argument; None if none or several."""
    found = {}                               # one calculation, however many forms say it
    for op, pattern in OPERATIONS:
        for m in pattern.finditer(goal):
            a, b = int(m["a"]), int(m["b"])
            found.setdefault((min(a, b), op, max(a, b)) if op in "+*" else (a, op, b), f"{a} {op} {b}")
    return next(iter(found.values())) if len(found) == 1 else None


def judge(goal: str, trajectory: Trajectory) -> dict:
    """Whether a run of a typed goal was right, where the page can know: the calculation it says
    (`known_operation`), its answer from the real calc, and `score`'s verdict; else judged False."""
    expression = known_operation(goal)
    if expression is None:
        return {"judged": False, "calc": None, "expected": None, "scores": None}
    a, op, b = expression.split()
    oracle = Goal(goal, "arithmetic", (("calc", _accepted(int(a), op, int(b))),), calc(expression), "typed")
    return {"judged": True, "calc": expression, "expected": oracle.answer, "scores": score(trajectory, oracle)}
# --8<-- [end:judge]
