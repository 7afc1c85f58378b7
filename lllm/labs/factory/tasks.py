"""Layer 4 · the factory's task families: `make_task(rng, split) -> Task` with a known right answer.

Read `react.py` first (the tools and their facts). A *task* is a goal the agent gets, plus the
oracle the factory checks it against: the tool it needs, the canonical argument, the answer.
Five families, from one compositional grammar (the tables below):

    arithmetic    "What is the sum of 48 and 17?"         calc[48 + 17]  -> 65
                  "Deduct 9 from 57."                     calc[57 - 9]   -> 48
    word problem  "Kim has 12 shells. She finds 5 shells. How many shells does Kim have now?"
                                                          calc[12 + 5]   -> 17
    lookup        "Tell me about Mr. Hale." / "What is Tom's age?"
                                                          lookup[tom]    -> the fact, word for word
    multi-step    "What is Tom's age plus 5?"             lookup[tom], then calc[11 + 5] -> 16
    no-tool       "Repeat the word apple."                no tool        -> apple

Arithmetic says each operation many ways (noun phrases inside 32 question prefixes, and
commands), operands in either order ("Deduct 9 from 57" is 57 - 9); any goal may open with a
lead-in of distractor words or a distractor number ("Question 4: ..."). Each task carries its
`plan`, the tool calls that solve it in order, so the factory's teacher (`factory.teacher`) can
demonstrate it and `verify` can check a run against it.

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
import re
import zlib
from dataclasses import asdict, dataclass

from lllm.agents.calc import calc
from lllm.agents.tools import FACTS, lookup

__all__ = ["Task", "FAMILIES", "SPLITS", "MIX", "make_task", "make_suite", "content_split", "templates",
           "ARITH_PREFIXES", "ARITH_FORMS", "ARITH_COMMANDS", "WORD_PROBLEMS", "NAMES", "THINGS",
           "LOOKUP_TEMPLATES", "LOOKUP_NAMES", "ATTRIBUTE_QUESTIONS", "MULTI_STEP", "ECHO_TEMPLATES",
           "ECHO_WORDS", "MADE_UP_WORDS", "LEAD_INS", "calc_split"]

SPLITS = ("train", "validation", "test")
FAMILIES = ("arithmetic", "word problem", "lookup", "multi-step", "no-tool")


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
    plan: tuple = ()   # the tool calls that solve it, in order: ((tool, args), ...); () = just (tool, args)

    @property
    def calls(self) -> tuple[tuple[str, str], ...]:
        """The tool calls that solve the task, in order (none for a no-tool task)."""
        return tuple(tuple(c) for c in self.plan) or (((self.tool, self.args),) if self.tool else ())

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
                  "What number is {e}?", "Tell me the value of {e}.",
                  "Can you work out {e}?", "Give me {e}."]          # the last two: new templates
ARITH_FORMS = {"+": ["{a} + {b}", "{a} plus {b}", "the sum of {a} and {b}", "{a} combined with {b}",
                     "{a} and {b} summed", "{a} raised by {b}"],
               "-": ["{a} - {b}", "{a} minus {b}", "the difference between {a} and {b}",
                     "{a} reduced by {b}", "{a} lowered by {b}", "{b} fewer than {a}"],
               "*": ["{a} * {b}", "{a} times {b}", "{a} multiplied by {b}", "the product of {a} and {b}",
                     "{a} sets of {b}", "{b} repeated {a} times"]}
NEW_ARITH_PREFIXES = 2
ARITH_COMMANDS = {"+": ["Sum {a} and {b}.", "Combine {a} with {b}.", "Raise {a} by {b}."],
                  "-": ["Deduct {b} from {a}.", "Lower {a} by {b}.", "Reduce {a} by {b}."],
                  "*": ["Multiply {a} by {b}.", "Multiply {b} by {a}, please.", "{a} by {b}: multiply them."]}
                                                                    # the last of each: new templates
WORD_PROBLEMS = {   # {who} a name, {p} its pronoun, {x} a thing; the last of each: new templates
    "+": ["{who} has {a} {x}. {p} finds {b} {x}. How many {x} does {who} have now?",
          "A shelf has {a} {x} and {b} {x} arrive. How many {x} are on the shelf now?",
          "{who} collects {a} {x} in the morning and {b} {x} in the evening. How many {x} does {who} collect?",
          "{who} gets {b} {x} from a friend and already had {a}. How many {x} does {who} have?"],
    "-": ["{who} has {a} {x} and loses {b} of them. How many {x} does {who} have now?",
          "A shop had {a} {x} and sold {b}. How many {x} does the shop still have?",
          "{who} had {a} {x}. Then {b} {x} broke. How many {x} are still fine?",
          "There were {a} {x} in a bag and {who} ate {b}. How many {x} are in the bag now?"],
    "*": ["{who} buys {a} bags with {b} {x} in every bag. How many {x} does {who} buy?",
          "There are {a} tables with {b} {x} on every table. How many {x} are there?",
          "{who} packs {a} boxes of {b} {x}. How many {x} does {who} pack?",
          "{who} reads {b} {x} a week for {a} weeks. How many {x} does {who} read?"]}
NAMES = {"Kim": "She", "Ravi": "He", "Zoe": "She", "Omar": "He", "Lea": "She", "Finn": "He",
         "Ada": "She", "Hugo": "He", "Nia": "She", "Ben": "He"}
THINGS = ("shells marbles pencils apples stickers cards beads books plums kites buttons "
          "peaches stamps").split()

LOOKUP_TEMPLATES = ["Tell me about {t}.", "What do you know about {t}?", "Look up {t}.",
                    "Describe {t}.", "I want to know about {t}.", "Give me a fact about {t}.",
                    "What can you tell me about {t}?", "Please look up {t}.",
                    "Who or what is {t}?", "Find out about {t}.", "Search for {t}.",
                    "Any facts about {t}?", "Say something about {t}."]   # the last two: new
LOOKUP_NAMES = {"brookfield": "Brookfield", "hale": "Mr. Hale", "bakery": "the bakery",
                "mill": "the mill", "clock": "the old clock", "market": "the market",
                "school": "the school", "bread": "the bread"}           # the rest: capitalised
ATTRIBUTE_QUESTIONS = {   # questions about one detail of a fact; the answer is the fact itself
    "tom": ["What is Tom's age?", "Who is Tom?", "Who is Tom's dad?", "Tell me Tom's age."],
    "owen": ["Who is Owen?", "What work does Owen do?", "Who is Owen's son?"],
    "mira": ["Who is Mira?", "What work does Mira do?", "Which shop is Mira's?"],
    "lina": ["Who is Lina?", "Which house is Lina's?", "How many birds does Lina have?"],
    "hale": ["Who is Mr. Hale?", "What work does Mr. Hale do?", "Which house is Mr. Hale's?"],
    "pip": ["Who is Pip?", "What is Pip?", "Which pet is Pip?"],
    "bram": ["What is Bram?", "Which pet is Bram?", "Who is Bram?"],
    "dot": ["What is Dot?", "Which pet is Dot?", "How big is Dot?"],
    "bakery": ["When does the bakery start?", "How much bread does the bakery make?"],
    "mill": ["What is the mill?", "What is next to the mill?"],
    "clock": ["What is the old clock?", "Which metal is the old clock?"],
    "market": ["When is the market?", "What is the market near?"],
    "school": ["How many pupils does the school have?", "How big is the school's class?"],
    "bread": ["What is the price of bread?", "What is the price of a loaf?"],
    "brookfield": ["What is Brookfield?", "What is Brookfield like?", "What is near Brookfield?"],
}
MULTI_STEP = [   # (topic, how its fact states the number, question, operator); the last: new
    ("tom", r"(\d+) years old", "What is Tom's age plus {n}?", "+"),
    ("tom", r"(\d+) years old", "What is Tom's age minus {n}?", "-"),
    ("tom", r"(\d+) years old", "What is Tom's age times {n}?", "*"),
    ("school", r"(\d+) children", "What is the number of pupils at the school plus {n}?", "+"),
    ("school", r"(\d+) children", "The school gets {n} new pupils. How many pupils does it have then?", "+"),
    ("lina", r"(\d+) hens", "What is the number of Lina's birds times {n}?", "*"),
    ("bread", r"costs (\d+) coins", "What is the price of bread times {n}?", "*"),
    ("bakery", r"(\d+) loaves a day", "What is the bakery's daily bread count times {n}?", "*"),
    ("tom", r"(\d+) years old", "Tom's age, reduced by {n}, is what?", "-"),
]

ECHO_TEMPLATES = ["Repeat the word {w}.", "Say the word {w}.", "Please repeat the word {w}.",
                  "Say {w}.", "Echo the word {w}.", "Say back {w}.", "Please say {w}.",
                  "Write the word {w}.", "Type the word {w}.", "Repeat {w}.", "Echo {w}.",
                  "Print the word {w}.", "Can you say {w}?", "Say {w} back to me.",
                  "The word is {w}. Say it.", "Just say {w}."]             # the last one: new
ECHO_WORDS = ("apple river stone cloud green bread window summer garden silver candle forest "
              "pencil orange rabbit yellow winter button dragon pocket carrot basket ladder "
              "kettle violet meadow island copper marble feather lantern honey rocket tiger "
              "castle planet mirror jacket pepper turtle wagon blanket puzzle cookie saddle "
              "thunder velvet walnut zebra").split()
# --8<-- [end:phrasings]


def _made_up_words(count: int = 2000, seed: int = 0) -> list[str]:
    """Pronounceable words of two or three syllables ("balen", "banfo"), the same in every
    process: words to copy, not to know, so the model learns to echo any word it is given."""
    rng, words = random.Random(seed), set()
    onsets, vowels, codas = "b d f g k l m n p r s t v z br dr fl gr pl st tr".split(), "aeiou", ["", "n", "r", "l", "s"]
    while len(words) < count:
        words.add("".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                          for _ in range(rng.choice((2, 2, 3)))))
    return sorted(words)


MADE_UP_WORDS = _made_up_words()
# --8<-- [start:lead-ins]
LEAD_INS = ["Hello.", "Hi there.", "Good morning.", "I have a question.", "Thanks in advance.",
            "This is question {k}.", "Question {k}:", "For my class:"]   # distractor words and numbers
# --8<-- [end:lead-ins]


def calc_split(a: int, op: str, b: int) -> str:
    """The split of the calculation a op b, whichever order a goal says its numbers in: 17 + 48
    and 48 + 17 are one content (subtraction's order matters)."""
    return content_split(f"{min(a, b)}{op}{max(a, b)}" if op in "+*" else f"{a}{op}{b}")


def _held_out(index: int, count: int, new: int) -> bool:
    return index >= count - new


def templates() -> list[str]:
    """Every goal shape the grammar can produce, with its slots: {a} {b} {n} {k} numbers, {t} a
    topic's name, {w} an echo word, {who} a name, {p} its pronoun, {x} a thing; and each shape
    again behind each lead-in."""
    forms = [f for op in ARITH_FORMS.values() for f in op]
    shapes = ([p.replace("{e}", f) for p in ARITH_PREFIXES for f in forms]
              + [c for op in ARITH_COMMANDS.values() for c in op]
              + [w for op in WORD_PROBLEMS.values() for w in op]
              + list(LOOKUP_TEMPLATES) + [q for qs in ATTRIBUTE_QUESTIONS.values() for q in qs]
              + [m[2] for m in MULTI_STEP] + list(ECHO_TEMPLATES))
    return shapes + [f"{lead} {shape}" for lead in LEAD_INS for shape in shapes]


def _lead_in(rng: random.Random, goal: str) -> str:
    """One goal in five opens with a lead-in: distractor words, or a distractor number."""
    if rng.random() >= 0.2:
        return goal
    return rng.choice(LEAD_INS).format(k=rng.randrange(1, 30)) + " " + goal


def _ordered(template: str, a: int, op: str, b: int) -> str:
    """The calc argument in the order the goal says the numbers, except where the order matters
    ("Deduct {b} from {a}" is a - b)."""
    if op in "+*" and template.index("{b}") < template.index("{a}"):
        return f"{b} {op} {a}"
    return f"{a} {op} {b}"


# ---- one task per family -----------------------------------------------------------------------

SAME_NUMBER = 0.05   # of training calculations that use one number twice ("What is 12 times 12?"): a
                     # number read twice is one slot (#1 * #1), a case random draws almost never make


def _number(rng: random.Random, split: str) -> int:
    """Held-out goals draw 1-, 2-, 2- and 3-digit operands alike; training draws more 3-digit ones,
    the hardest to copy."""
    digits = rng.choice((1, 2, 3, 3) if split == "train" else (1, 2, 2, 3))
    return rng.randrange(10 ** (digits - 1) if digits > 1 else 0, 10 ** digits)


def _arithmetic(rng: random.Random, split: str) -> Task | None:
    op = rng.choice("+-*")
    a, b = _number(rng, split), _number(rng, split)
    if split == "train" and rng.random() < SAME_NUMBER:
        b = a
    if calc_split(a, op, b) != split:
        return None
    if rng.random() < 0.25:                                # a command: "Deduct 9 from 57."
        c = rng.randrange(len(ARITH_COMMANDS[op]))
        template = ARITH_COMMANDS[op][c]
        phrasing = "new template" if _held_out(c, len(ARITH_COMMANDS[op]), 1) else "seen"
    else:
        p = rng.randrange(len(ARITH_PREFIXES))
        f = rng.randrange(len(ARITH_FORMS[op]))
        if _held_out(p, len(ARITH_PREFIXES), NEW_ARITH_PREFIXES):
            phrasing = "new template"
        elif (p + f + "+-*".index(op)) % 5 == 0:           # a pairing training never shows
            phrasing = "new combination"
        else:
            phrasing = "seen"
        template = ARITH_PREFIXES[p].replace("{e}", ARITH_FORMS[op][f])
    args = _ordered(template, a, op, b)
    goal = _lead_in(rng, template.format(a=a, b=b))
    return Task(goal, "arithmetic", "calc", args, calc(args), phrasing, split)


def _word_problem(rng: random.Random, split: str) -> Task | None:
    op = rng.choice("+-*")
    a, b = rng.randrange(2, 100 if op != "*" else 30), rng.randrange(2, 100 if op != "*" else 30)
    a, b = (b, a) if op == "-" and a < b else (a, b)
    if split == "train" and rng.random() < SAME_NUMBER:
        b = a
    if calc_split(a, op, b) != split:
        return None
    t = rng.randrange(len(WORD_PROBLEMS[op]))
    template = WORD_PROBLEMS[op][t]
    name = rng.choice(sorted(NAMES))
    args = _ordered(template, a, op, b)
    goal = template.format(a=a, b=b, who=name, p=NAMES[name], x=rng.choice(THINGS))
    phrasing = "new template" if _held_out(t, len(WORD_PROBLEMS[op]), 1) else "seen"
    return Task(_lead_in(rng, goal), "word problem", "calc", args, calc(args), phrasing, split)


def _lookup(rng: random.Random, split: str) -> Task | None:
    topic = rng.choice(sorted(FACTS))
    if rng.random() < 0.5:                                 # a question about one detail
        questions = ATTRIBUTE_QUESTIONS[topic]
        q = rng.randrange(len(questions))
        goal, content, phrasing = questions[q], f"{topic}?{q}", "seen"
        if content_split(content) != split:
            return None
    else:
        t = rng.randrange(len(LOOKUP_TEMPLATES))
        phrasing = "new template" if _held_out(t, len(LOOKUP_TEMPLATES), 2) else "seen"
        if content_split(f"{topic}/{t}", phrasing) != split:
            return None
        goal = LOOKUP_TEMPLATES[t].format(t=LOOKUP_NAMES.get(topic, topic.capitalize()))
    return Task(_lead_in(rng, goal), "lookup", "lookup", topic, FACTS[topic], phrasing, split)


def _multi_step(rng: random.Random, split: str) -> Task | None:
    m = rng.randrange(len(MULTI_STEP))
    topic, pattern, template, op = MULTI_STEP[m]
    x, n = int(re.search(pattern, lookup(topic)).group(1)), rng.randrange(2, 10 if op == "-" else 20)
    phrasing = "new template" if _held_out(m, len(MULTI_STEP), 1) else "seen"
    if content_split(f"{topic}{op}{n}/{m}", phrasing) != split:
        return None
    args = f"{x} {op} {n}"
    return Task(_lead_in(rng, template.format(n=n)), "multi-step", "calc", args, calc(args), phrasing,
                split, (("lookup", topic), ("calc", args)))


def _no_tool(rng: random.Random, split: str) -> Task | None:
    word = rng.choice(ECHO_WORDS if rng.random() < 0.5 else MADE_UP_WORDS)   # half made up: copy any word
    t = rng.randrange(len(ECHO_TEMPLATES))
    phrasing = "new template" if _held_out(t, len(ECHO_TEMPLATES), 1) else "seen"
    if content_split(f"{word}/{t}", phrasing) != split:
        return None
    return Task(_lead_in(rng, ECHO_TEMPLATES[t].format(w=word)), "no-tool", None, "", word, phrasing, split)


MAKERS = {"arithmetic": _arithmetic, "word problem": _word_problem, "lookup": _lookup,
          "multi-step": _multi_step, "no-tool": _no_tool}
MIX = (("arithmetic",) * 4 + ("word problem",) * 2 + ("lookup",) * 2 + ("multi-step",) * 2
       + ("no-tool",))                                  # copying numbers is the hard part


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
