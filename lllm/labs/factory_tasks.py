"""Layer 4 · the factory's task families: `make_task(rng, split) -> Task` with a known right answer.

Read `react.py` first (the tools and their facts). A *task* is a goal the agent gets, plus the
oracle the factory checks it against: the tool it needs, the canonical argument, the answer.
Three families:

    arithmetic   "What is the sum of 48 and 17?"   calc[48 + 17]  -> 65
    lookup       "Tell me about Mr. Hale."         lookup[hale]   -> the fact, word for word
    no-tool      "Repeat the word apple."          no tool        -> apple

The held-out rule. Every task has a *content* (the numbers and operator, the topic with its
template, the word) and a *phrasing* (the template). The content is hashed (crc32, the same in
CPython and Pyodide) into 100 buckets: 0-79 train, 80-89 validation, 90-99 test. Some phrasings
are held out too: whole templates never used in training ("new template"), and pairings of a
seen prefix with a seen operator form that training never combines ("new combination"). A
training task has train content and a seen phrasing, so no test goal, and no test number
combination, can ever appear in training.

Usage:

    >>> import random
    >>> task = make_task(random.Random(1), "train", family="arithmetic")
    >>> task.split, task.tool, task.phrasing
    ('train', 'calc', 'seen')
    >>> content_split("48+17")
    'train'
"""

from __future__ import annotations

import random
import zlib
from dataclasses import asdict, dataclass

from lllm.agents.calc import calc
from lllm.agents.tools import FACTS

__all__ = ["Task", "FAMILIES", "SPLITS", "make_task", "make_suite", "content_split",
           "ARITH_PREFIXES", "ARITH_FORMS", "LOOKUP_TEMPLATES", "ECHO_TEMPLATES", "ECHO_WORDS"]

SPLITS = ("train", "validation", "test")
FAMILIES = ("arithmetic", "lookup", "no-tool")


@dataclass(frozen=True)
class Task:
    """A goal and its oracle: the tool it needs (None: no tool), the argument, the right answer."""

    goal: str
    family: str
    tool: str | None
    args: str
    answer: str
    phrasing: str      # "seen", "new combination" or "new template"
    split: str

    def to_dict(self) -> dict:
        return asdict(self)


def content_split(content: str, phrasing: str = "seen") -> str:
    """Which split a task content belongs to: a stable hash, never a random draw.

    A content with a new phrasing never reaches training whatever its bucket, so for the small
    families (15 topics, 50 words) its training buckets are shared between validation and test.
    """
    bucket = zlib.crc32(content.encode()) % 100
    if phrasing != "seen" and bucket < 80:
        return "validation" if bucket < 40 else "test"
    return "train" if bucket < 80 else "validation" if bucket < 90 else "test"


# ---- phrasings ---------------------------------------------------------------------------------

# --8<-- [start:phrasings]
ARITH_PREFIXES = ["What is {e}?", "Compute {e}.", "Calculate {e}", "How much is {e}?",
                  "Work out {e}.", "Please compute {e}.", "Find {e}.", "What do you get for {e}?",
                  "Tell me {e}.", "I need {e}.", "What's {e}?", "Solve {e}.",
                  "Evaluate {e}.", "Quick question: what is {e}?", "Hi! What is {e}?",
                  "Help me with {e}.", "What does {e} come to?", "Figure out {e}.",
                  "Determine {e}.", "Show me {e}.", "Please find {e}.", "So, what is {e}?",
                  "Now calculate {e}.", "I want to know {e}.", "Do the math: {e}.",
                  "Work this out: {e}", "Hey, how much is {e}?", "Result of {e}?",
                  "Can you work out {e}?", "Give me {e}."]          # the last two: new templates
ARITH_FORMS = {"+": ["{a} + {b}", "{a} plus {b}", "the sum of {a} and {b}"],
               "-": ["{a} - {b}", "{a} minus {b}", "the difference between {a} and {b}"],
               "*": ["{a} * {b}", "{a} times {b}", "{a} multiplied by {b}", "the product of {a} and {b}"]}
NEW_ARITH_PREFIXES = 2

LOOKUP_TEMPLATES = ["Tell me about {t}.", "What do you know about {t}?", "Look up {t}.",
                    "Describe {t}.", "I want to know about {t}.", "Give me a fact about {t}.",
                    "What can you tell me about {t}?", "Please look up {t}.",
                    "Any facts about {t}?", "Say something about {t}."]   # the last two: new
LOOKUP_NAMES = {"brookfield": "Brookfield", "hale": "Mr. Hale", "bakery": "the bakery",
                "mill": "the mill", "clock": "the old clock", "market": "the market",
                "school": "the school", "bread": "the bread"}           # the rest: capitalised

ECHO_TEMPLATES = ["Repeat the word {w}.", "Say the word {w}.", "Please repeat the word {w}.",
                  "Say {w}.", "Echo the word {w}.", "Say back {w}.", "Please say {w}.",
                  "Write the word {w}.", "Type the word {w}.", "Repeat {w}.",
                  "Just say {w}."]                                        # the last one: new
ECHO_WORDS = ("apple river stone cloud green bread window summer garden silver candle forest "
              "pencil orange rabbit yellow winter button dragon pocket carrot basket ladder "
              "kettle violet meadow island copper marble feather lantern honey rocket tiger "
              "castle planet mirror jacket pepper turtle wagon blanket puzzle cookie saddle "
              "thunder velvet walnut zebra").split()
# --8<-- [end:phrasings]


def _held_out(index: int, count: int, new: int) -> bool:
    return index >= count - new


# ---- one task per family -----------------------------------------------------------------------

def _number(rng: random.Random, split: str) -> int:
    """Held-out goals draw 1-, 2-, 2- and 3-digit operands alike; training draws more 3-digit ones,
    the hardest to copy."""
    digits = rng.choice((1, 2, 3, 3) if split == "train" else (1, 2, 2, 3))
    return rng.randrange(10 ** (digits - 1) if digits > 1 else 0, 10 ** digits)


def _arithmetic(rng: random.Random, split: str) -> Task | None:
    op = rng.choice("+-*")
    a, b = _number(rng, split), _number(rng, split)
    if content_split(f"{a}{op}{b}") != split:
        return None
    p = rng.randrange(len(ARITH_PREFIXES))
    f = rng.randrange(len(ARITH_FORMS[op]))
    if _held_out(p, len(ARITH_PREFIXES), NEW_ARITH_PREFIXES):
        phrasing = "new template"
    elif (p + f + "+-*".index(op)) % 5 == 0:               # a pairing training never shows
        phrasing = "new combination"
    else:
        phrasing = "seen"
    goal = ARITH_PREFIXES[p].format(e=ARITH_FORMS[op][f].format(a=a, b=b))
    args = f"{a} {op} {b}"
    return Task(goal, "arithmetic", "calc", args, calc(args), phrasing, split)


def _lookup(rng: random.Random, split: str) -> Task | None:
    topic = rng.choice(sorted(FACTS))
    t = rng.randrange(len(LOOKUP_TEMPLATES))
    phrasing = "new template" if _held_out(t, len(LOOKUP_TEMPLATES), 2) else "seen"
    if content_split(f"{topic}/{t}", phrasing) != split:
        return None
    goal = LOOKUP_TEMPLATES[t].format(t=LOOKUP_NAMES.get(topic, topic.capitalize()))
    return Task(goal, "lookup", "lookup", topic, FACTS[topic], phrasing, split)


def _no_tool(rng: random.Random, split: str) -> Task | None:
    word = rng.choice(ECHO_WORDS)
    t = rng.randrange(len(ECHO_TEMPLATES))
    phrasing = "new template" if _held_out(t, len(ECHO_TEMPLATES), 1) else "seen"
    if content_split(f"{word}/{t}", phrasing) != split:
        return None
    return Task(ECHO_TEMPLATES[t].format(w=word), "no-tool", None, "", word, phrasing, split)


MAKERS = {"arithmetic": _arithmetic, "lookup": _lookup, "no-tool": _no_tool}
MIX = ("arithmetic",) * 7 + ("lookup",) * 2 + ("no-tool",)     # copying numbers is the hard part


def make_task(rng: random.Random, split: str = "train", family: str | None = None) -> Task:
    """A random task of `family` (default: drawn from MIX) that belongs to `split`.

    Training tasks always have a seen phrasing; validation and test tasks may have any.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    if family is not None and family not in MAKERS:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    for _ in range(10_000):
        task = MAKERS[family or rng.choice(MIX)](rng, split)
        if task is not None and (split != "train" or task.phrasing == "seen"):
            return task
    raise RuntimeError(f"no {family} task found for split {split!r}")      # a bug in the tables


def make_suite(split: str = "test", per_group: int = 20, seed: int = 0) -> list[Task]:
    """A fixed held-out suite: up to `per_group` distinct goals per (family, phrasing) group."""
    rng, suite, seen = random.Random(seed), [], set()
    groups = {(f, p): 0 for f in FAMILIES for p in ("seen", "new combination", "new template")
              if not (f != "arithmetic" and p == "new combination")}
    for _ in range(200 * per_group * len(groups)):
        family = rng.choice(FAMILIES)
        task = MAKERS[family](rng, split)
        if task is None or task.goal in seen or groups[(family, task.phrasing)] >= per_group:
            continue
        seen.add(task.goal)
        groups[(family, task.phrasing)] += 1
        suite.append(task)
        if all(n >= per_group for n in groups.values()):
            break
    return suite
