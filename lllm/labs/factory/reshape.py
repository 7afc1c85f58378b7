"""Layer 4 · structure noise for training goals: `reshape(task, rng) -> Task`, the same task said in another shape.

Read `tasks.py` first. Its grammar says every goal in a fixed sentence shape: the question
first or a command, one sentence or a fixed story, a lead-in only at the start. A model trained on
it learns where, in those shapes, the numbers and the operation word stand, and fails when they
stand elsewhere (site/agents/agent-model.md, "held-out structure"). `reshape` moves them: it keeps
a training task's oracle (tool, arguments, answer) and changes only how its goal is said, in one
of ten ways, composed from clause-level parts:

    case          "WHAT IS 48 PLUS 17?" / "what is 48 plus 17?"
    symbols       "What is 48+17?!"             operator symbols without spaces, other end marks
    trailing      "What is 48 plus 17? It is week 4."     a distractor clause after the question
    inserted      "Ravi has 12 shells. Zoe buys 7 kites. He finds 5 shells. How many ..."  a
                                                distractor sentence (the leading pool) between two
                                                of the goal's sentences
    leading       "Ravi finds 9 plums. What is 48 plus 17?"   a distractor sentence, often with a
                                                number, before any goal: the first number read
                                                is not always an operand
    question first  "How many shells does Kim have now? Kim has 12 shells. She finds 5 shells."
    expression first  "48 plus 17: what do you get?" / "9 times the price of bread comes to how
                  much?"                        the operation before the question words; a
                                                multi-step goal's operands either way round
    embedded      "I wonder what 48 plus 17 is."   the operation inside a longer sentence
    it reference  "My number is 48. Work out it plus 17."   an operand named in one sentence
                                                and referred to in the next
    topic first   "The mill? Look it up."  /  "Pepper? Echo it."  /  "My word is pepper. Please
                  say it back."                 the topic or the word before the request

Every word these add is new to the grammar, and none of its shapes is one of the held-out
structure set's templates (`lllm/labs/heldout/structure.py`, which training never imports):
tests/labs/test_factory_reshape.py draws reshaped training goals and checks their frames against
that set's. Casing and symbols are noise the held-out set's "casing" and "punctuation" kinds
also use, and the agent-model page says so beside their figures.

Usage:

    >>> import random
    >>> from lllm.labs.factory.tasks import make_task
    >>> task = make_task(random.Random(3), "train", family="arithmetic")
    >>> shaped = reshape(task, random.Random(0), share=1.0)
    >>> (shaped.args, shaped.answer) == (task.args, task.answer), shaped.goal != task.goal
    (True, True)
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

from lllm.labs.factory.tasks import (ARITH_FORMS, ARITH_PREFIXES, LOOKUP_NAMES, MULTI_STEP, NAMES, THINGS,
                                     WORD_PROBLEMS, Task)

__all__ = ["KINDS", "SHARE", "DISTRACTORS", "LEADING", "EXPRESSION_FIRST", "EMBEDDED", "IT_FIRST", "TOPIC_FIRST",
           "ECHO_FIRST", "QUESTION_FIRST", "templates", "reshape"]

SHARE = 0.5         # of training goals reshaped; the rest keep the grammar's own shapes
KINDS = ("case", "symbols", "trailing", "inserted", "leading", "question first", "expression first",
         "embedded", "it reference", "topic first")
WEIGHTS = {"question first": 3, "expression first": 3, "topic first": 3, "leading": 3,
           "it reference": 2, "embedded": 2}                # the order and distractor shapes fail most

# --8<-- [start:pools]
DISTRACTORS = ["{who} likes {x}.", "It is week {k}.", "I have {k} {x} too.", "My desk is number {k}.",
               "{who} is at home.", "This is page {k}.", "We met at {k}.", "Room {k} is free."]
EXPRESSION_FIRST = ["{e}: what do you get?", "{e} comes to how much?", "{e}, please work it out.",
                    "{e}? Find the result.", "{e} equals what number?", "{e}, so what is the result?"]
LEADING = DISTRACTORS + ["{who} finds {k} {x}.", "A shelf had {k} {x}.", "{who} buys {k} {x}.",
                         "{who} is {k}.", "There were {k} {x} in a bag.", "{who} reads {k} {x} a week."]
EMBEDDED = ["I wonder what {e} is.", "Please tell me what {e} comes to.", "Do you know what {e} is?",
            "I would like to know what {e} is."]
IT_FIRST = ["My number is {a}.", "Start from {a}.", "Here is a number: {a}.", "Begin with {a}."]
TOPIC_FIRST = ["{T}? Look it up.", "{T}, please: any facts?", "{T} - give me a fact.",
               "On {t}, what can you find?"]
ECHO_FIRST = ["{w}? Echo it.", "{w} - please repeat it.", "{w}, just say that.",
              "My word is {w}. Please say it back.", "Here is a word: {w}. Repeat it.",
              "{w} is the word. Echo it.", "Could you echo {w} for me?"]
QUESTION_FIRST = "Tell me: "    # opens a word problem's question, moved before its story
# --8<-- [end:pools]

WORD_PROBLEM = Task("", "word problem", "calc", "", "", "seen", "train")   # what templates() reshapes
_SENTENCES = re.compile(r"[^.?!]+[.?!]+")
_ARGS = re.compile(r"^(\d+) ([-+*]) (\d+)$")
_MULTI = re.compile(r"^What is (.+) (plus|minus|times) (\d+)\?$")   # a multi-step question: quantity op n
_IT_PREFIXES = [p for p in ARITH_PREFIXES if p != "What is {e}?"]
_A_FIRST = {op: [f for f in forms if f.index("{a}") < f.index("{b}")] for op, forms in ARITH_FORMS.items()}


def templates() -> list[str]:
    """Every shape these add, with its slots ({e} an operation as ARITH_FORMS says it): what the
    held-out checks read as training text beside `tasks.templates()`."""
    forms = [f for op in ARITH_FORMS.values() for f in op]
    moved = [_question_first(WORD_PROBLEM, t, None) for op in WORD_PROBLEMS.values() for t in op]
    quantities = dict.fromkeys(m.group(1) for m in (_MULTI.match(q.format(n=0)) for _, _, q, _ in MULTI_STEP) if m)
    multi = [f"{q} {w} {{n}}" for q in quantities for w in ("plus", "minus", "times")]
    multi += [f"{{n}} {w} {q}" for q in quantities for w in ("plus", "times")]
    referred = [f"{first} {_capital(p.replace('{e}', f.replace('{a}', 'it')))}"
                for first in IT_FIRST for p in _IT_PREFIXES for op in _A_FIRST.values() for f in op]
    return (list(LEADING) + [_capital(e.replace("{e}", f)) for e in EXPRESSION_FIRST + EMBEDDED for f in forms + multi]
            + referred + list(TOPIC_FIRST) + list(ECHO_FIRST) + moved)


def _fill(rng: random.Random, text: str, goal: str) -> str:
    """A distractor clause whose name, pronoun and thing are not the goal's, so it never changes
    what the goal asks ("Kim has 12 shells. Kim finds 9 shells." would)."""
    words = set(re.findall(r"[A-Za-z]+", goal))
    taken = {NAMES[n] for n in words & NAMES.keys()}      # nor a pronoun of the goal's ("He finds 5")
    return text.format(who=rng.choice([n for n in sorted(NAMES) if n not in words and NAMES[n] not in taken]),
                       x=rng.choice([x for x in THINGS if x not in words]), k=rng.randrange(2, 30))


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
    return goal + " " + _fill(rng, rng.choice(DISTRACTORS), goal)


def _inserted(task, goal, rng):
    sentences = _SENTENCES.findall(goal)
    if len(sentences) < 2:
        return None
    at = rng.randrange(1, len(sentences))
    clause = " " + _fill(rng, rng.choice(LEADING), goal)
    return "".join(sentences[:at]) + clause + "".join(sentences[at:])


def _question_first(task, goal, rng):
    sentences = [s.strip() for s in _SENTENCES.findall(goal)]
    if len(sentences) < 2 or not sentences[-1].endswith("?") or task.family != "word problem":
        return None
    return " ".join([QUESTION_FIRST + sentences[-1][0].lower() + sentences[-1][1:]] + sentences[:-1])


def _expression(task, goal, rng) -> str | None:
    """The task's operation as an expression a sentence can hold: an arithmetic task's operands in
    one of training's forms (in the args' order), or a multi-step question's quantity and number,
    either way round where the order does not matter ("9 times the price of bread")."""
    found = _ARGS.match(task.args)
    if task.family == "arithmetic" and found:
        a, op, b = found.groups()
        form = rng.choice(ARITH_FORMS[op])
        if op in "+*" and form.index("{b}") < form.index("{a}"):   # the args' order is the goal's
            a, b = b, a
        return form.format(a=a, b=b)
    found = _MULTI.match(goal) if task.family == "multi-step" else None
    if not found:
        return None
    quantity, word, n = found.groups()
    if word != "minus" and rng.random() < 0.5:
        return f"{n} {word} {quantity}"
    return f"{quantity} {word} {n}"


def _expression_first(task, goal, rng):
    e = _expression(task, goal, rng)
    return None if e is None else _capital(rng.choice(EXPRESSION_FIRST).format(e=e))


def _embedded(task, goal, rng):
    e = _expression(task, goal, rng)
    return None if e is None else rng.choice(EMBEDDED).format(e=e)


def _leading(task, goal, rng):
    return _fill(rng, rng.choice(LEADING), goal) + " " + goal


def _it_reference(task, goal, rng):
    found = _ARGS.match(task.args)
    if task.family != "arithmetic" or not found:
        return None
    a, op, b = found.groups()                  # the goal names a first, then refers to it
    form = rng.choice(_A_FIRST[op]).replace("{a}", "it").format(b=b)
    return rng.choice(IT_FIRST).format(a=a) + " " + _capital(rng.choice(_IT_PREFIXES).format(e=form))


def _topic_first(task, goal, rng):
    if task.family == "lookup":
        name = LOOKUP_NAMES.get(task.args, task.args.capitalize())
        return rng.choice(TOPIC_FIRST).format(t=name, T=_capital(name))
    if task.family == "no-tool":
        return rng.choice(ECHO_FIRST).format(w=task.answer)
    return None


_RESHAPERS = {"case": _case, "symbols": _symbols, "trailing": _trailing, "inserted": _inserted,
              "leading": _leading, "question first": _question_first, "expression first": _expression_first,
              "embedded": _embedded, "it reference": _it_reference, "topic first": _topic_first}


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
