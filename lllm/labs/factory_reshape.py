"""Layer 4 · structure noise for training goals: `reshape(task, rng) -> Task`, the same task said in another shape.

Read `factory_tasks.py` first. Its grammar says every goal in a fixed sentence shape: the question
first or a command, one sentence or a fixed story, a lead-in only at the start. A model trained on
it learns where, in those shapes, the numbers and the operation word stand, and fails when they
stand elsewhere (site/agents/agent-model.md, "held-out structure"). `reshape` moves them: it keeps
a training task's oracle (tool, arguments, answer) and changes only how its goal is said, in one
of seven ways:

    case          "WHAT IS 48 PLUS 17?" / "what is 48 plus 17?"
    symbols       "What is 48+17?!"             operator symbols without spaces, other end marks
    trailing      "What is 48 plus 17? It is week 4."     a distractor clause after the question
    inserted      "Ravi has 12 shells. Ravi likes plums. He finds 5 shells. How many ..."
    question first  "How many shells does Kim have now? Kim has 12 shells. She finds 5 shells."
    expression first  "48 plus 17: what do you get?"   the operation before the question words
    topic first   "The mill? Look it up."  /  "Pepper? Echo it."

Every word these add is new to the grammar, and none of its shapes is one of the held-out
structure set's templates (`heldout_structure.py`, which training never imports):
tests/test_factory_reshape.py draws reshaped training goals and checks their frames against
that set's. Casing and symbols are noise the held-out set's "casing" and "punctuation" kinds
also use, and the agent-model page says so beside their figures.

Usage:

    >>> import random
    >>> from lllm.labs.factory_tasks import make_task
    >>> task = make_task(random.Random(3), "train", family="arithmetic")
    >>> shaped = reshape(task, random.Random(0), share=1.0)
    >>> (shaped.args, shaped.answer) == (task.args, task.answer), shaped.goal != task.goal
    (True, True)
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

from lllm.labs.factory_tasks import ARITH_FORMS, LOOKUP_NAMES, NAMES, THINGS, WORD_PROBLEMS, Task

__all__ = ["KINDS", "SHARE", "DISTRACTORS", "EXPRESSION_FIRST", "TOPIC_FIRST", "ECHO_FIRST", "QUESTION_FIRST",
           "templates", "reshape"]

SHARE = 0.4         # of training goals reshaped; the rest keep the grammar's own shapes
KINDS = ("case", "symbols", "trailing", "inserted", "question first", "expression first", "topic first")
WEIGHTS = {"question first": 3, "expression first": 3, "topic first": 3}   # the order shapes fail most

# --8<-- [start:pools]
DISTRACTORS = ["{who} likes {x}.", "It is week {k}.", "I have {k} {x} too.", "My desk is number {k}.",
               "{who} is at home.", "This is page {k}.", "We met at {k}.", "Room {k} is free."]
EXPRESSION_FIRST = ["{e}: what do you get?", "{e} comes to how much?", "{e}, please work it out.",
                    "{e}? Find the result.", "{e} equals what number?", "{e}, so what is the result?"]
TOPIC_FIRST = ["{T}? Look it up.", "{T}, please: any facts?", "{T} - give me a fact.",
               "On {t}, what can you find?"]
ECHO_FIRST = ["{w}? Echo it.", "{w} - please repeat it.", "{w}, just say that."]
QUESTION_FIRST = "Tell me: "    # opens a word problem's question, moved before its story
# --8<-- [end:pools]

WORD_PROBLEM = Task("", "word problem", "calc", "", "", "seen", "train")   # what templates() reshapes
_SENTENCES = re.compile(r"[^.?!]+[.?!]+")
_ARGS = re.compile(r"^(\d+) ([-+*]) (\d+)$")


def templates() -> list[str]:
    """Every shape these add, with its slots ({e} an operation as ARITH_FORMS says it): what the
    held-out checks read as training text beside `factory_tasks.templates()`."""
    forms = [f for op in ARITH_FORMS.values() for f in op]
    moved = [_question_first(WORD_PROBLEM, t, None) for op in WORD_PROBLEMS.values() for t in op]
    return (list(DISTRACTORS) + [_capital(e.replace("{e}", f)) for e in EXPRESSION_FIRST for f in forms]
            + list(TOPIC_FIRST) + list(ECHO_FIRST) + moved)


def _fill(rng: random.Random, text: str) -> str:
    return text.format(who=rng.choice(sorted(NAMES)), x=rng.choice(THINGS), k=rng.randrange(2, 30))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _case(task, goal, rng):
    if task.family == "no-tool" or rng.random() < 0.5:    # an echo word is copied as written: never upper
        return goal.lower()
    return goal.upper()


def _symbols(task, goal, rng):
    goal = re.sub(r"(\d) ([-+*]) (\d)", r"\1\2\3", goal)
    end = rng.choice(["??", "?!", "!", "!!", ""]) if goal.endswith("?") else rng.choice(["!", "!!", "", "..."])
    return goal.rstrip(".?!") + end


def _trailing(task, goal, rng):
    return goal + " " + _fill(rng, rng.choice(DISTRACTORS))


def _inserted(task, goal, rng):
    sentences = _SENTENCES.findall(goal)
    if len(sentences) < 2:
        return None
    at = rng.randrange(1, len(sentences))
    clause = " " + _fill(rng, rng.choice(DISTRACTORS))
    return "".join(sentences[:at]) + clause + "".join(sentences[at:])


def _question_first(task, goal, rng):
    sentences = [s.strip() for s in _SENTENCES.findall(goal)]
    if len(sentences) < 2 or not sentences[-1].endswith("?") or task.family != "word problem":
        return None
    return " ".join([QUESTION_FIRST + sentences[-1][0].lower() + sentences[-1][1:]] + sentences[:-1])


def _expression_first(task, goal, rng):
    found = _ARGS.match(task.args)
    if task.family != "arithmetic" or not found:
        return None
    a, op, b = found.groups()
    form = rng.choice(ARITH_FORMS[op])
    if op in "+*" and form.index("{b}") < form.index("{a}"):   # the args' order is the goal's
        a, b = b, a
    return _capital(rng.choice(EXPRESSION_FIRST).format(e=form.format(a=a, b=b)))


def _topic_first(task, goal, rng):
    if task.family == "lookup":
        name = LOOKUP_NAMES.get(task.args, task.args.capitalize())
        return rng.choice(TOPIC_FIRST).format(t=name, T=_capital(name))
    if task.family == "no-tool":
        return rng.choice(ECHO_FIRST).format(w=task.answer)
    return None


_RESHAPERS = {"case": _case, "symbols": _symbols, "trailing": _trailing, "inserted": _inserted,
              "question first": _question_first, "expression first": _expression_first,
              "topic first": _topic_first}


def reshape(task: Task, rng: random.Random, share: float = SHARE) -> Task:
    """With probability `share`, the task with its goal said in another shape (one kind, drawn
    from those that fit it, sometimes followed by case or symbols); otherwise the task itself.
    The oracle never changes: only words and marks that carry no operand are moved or added."""
    if rng.random() >= share:
        return task
    goal = task.goal
    kinds = [kind for kind in KINDS for _ in range(WEIGHTS.get(kind, 1))]
    rng.shuffle(kinds)
    for kind in dict.fromkeys(kinds):
        shaped = _RESHAPERS[kind](task, goal, rng)
        if shaped is not None and shaped != goal:
            if kind not in ("case", "symbols") and rng.random() < 0.25:
                shaped = _RESHAPERS[rng.choice(("case", "symbols"))](task, shaped, rng)
            return replace(task, goal=shaped)
    return task
