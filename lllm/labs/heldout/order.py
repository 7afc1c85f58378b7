"""Layer 4 · goals held out by order: `make_goals(per_family, seed) -> list[Goal]`, stories not told in reading order.

Read `grammar.py` (held out by words) and `structure.py` (held out by shape) first. An LSTM reads
left to right and keeps one fixed-size state; a model that has learned "the first number I read is
the first operand" answers a training sentence right and this one wrong:

    "Kim gave away 9 shells after lunch. Before lunch she had 57 shells. How many are left?"
    reading order: calc[9 - 57]      the story's order: calc[57 - 9] -> 48

Five families, each a grammar of its own (no template is the factory's, `grammar.py`'s or
`structure.py`'s; tests/labs/test_heldout_order.py checks it):

    out of order      the later event told first, the earlier amount after it
    question first    the question, then the facts it asks about
    irrelevant number a number in the story that the sum does not use
    two operations    one story, two operations: a + b - c, a - b + c, a * b - c
    new positions     names and the calculator in places training never puts them

Each template carries its *expression*, written with the story's letters in the story's meaning
("{a} - {b}": what there was, less what went); the oracle is `calc` of it, and the test checks each
answer again by plain integer arithmetic. Numbers come from the factory's test buckets where a goal
has two of them (`calc_split`), and no answer is negative. `wilson(k, n)` is the 95% interval a
table of rates shows beside each family; `order_table(suites)` prints brains side by side.

Usage:

    >>> goals = make_goals(per_family=2, seed=0)
    >>> sorted({g.family for g in goals}) == sorted(FAMILIES)
    True
    >>> [g.answer == str(evaluate_expression(g)) for g in goals] == [True] * len(goals)
    True
    >>> wilson(9, 10)
    (0.596, 0.982)
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

from lllm.agents.calc import calc
from lllm.labs.factory.tasks import NAMES, THINGS, calc_split
from lllm.labs.heldout.grammar import Goal

__all__ = ["FAMILIES", "TEMPLATES", "Template", "templates", "make_goals", "evaluate_expression", "wilson",
           "rates", "order_table"]

FAMILIES = ("out of order", "question first", "irrelevant number", "two operations", "new positions")


@dataclass(frozen=True)
class Template:
    text: str           # {who} a name, {p} its pronoun ({q} in lower case), {x} a thing, {a} {b} {c} numbers, {k} a number that does not count
    expression: str     # the calc argument, in the story's meaning: "{a} - {b}"


T = Template
# --8<-- [start:order]
TEMPLATES = {
    "out of order": [
        T("{who} found {b} more {x} in the afternoon. In the morning {who} had {a} {x}. How many {x} did {who} end the day with?", "{a} + {b}"),
        T("{who} gave away {b} {x} after lunch. Before lunch, {who} had {a} {x}. How many {x} were left after lunch?", "{a} - {b}"),
        T("At the end of the sale {b} {x} had been sold. The shop began the sale with {a} {x}. How many {x} did it keep?", "{a} - {b}"),
        T("Then {who} was given {b} {x}. Before that, {who} owned {a} {x}. How many {x} does {who} own now?", "{a} + {b}"),
        T("{b} {x} fell off the table last. {a} {x} had been on it first. How many {x} are still on the table?", "{a} - {b}"),
    ],
    "question first": [
        T("How many {x} are left? {who} had {a} {x} and then ate {b} of them.", "{a} - {b}"),
        T("What is the total cost? {who} paid {a} coins for a hat and {b} coins for a coat.", "{a} + {b}"),
        T("How many {x} in all? There are {a} boxes, and every box holds {b} {x}.", "{a} * {b}"),
        T("Can you work out how many {x} {who} still has? {p} started with {a} and lent {b} to a friend.", "{a} - {b}"),
        T("How many {x} altogether, if {who} picks {a} {x} and a friend picks {b} {x}?", "{a} + {b}"),
    ],
    "irrelevant number": [
        T("{who} is {k} years old. {p} had {a} {x} and lost {b} of them. How many {x} does {who} have?", "{a} - {b}"),
        T("On day {k} of the trip, {who} collected {a} {x} and then {b} more. How many {x} were collected that day?", "{a} + {b}"),
        T("{who} had {a} {x}. {k} friends came round, and {who} gave {b} {x} to them. How many {x} are left?", "{a} - {b}"),
        T("A class of {k} children packed {a} bags with {b} {x} in each bag. How many {x} were packed?", "{a} * {b}"),
        T("In week {k}, a shelf held {a} {x}. Someone added {b} {x}. How many {x} are on the shelf?", "{a} + {b}"),
    ],
    "two operations": [
        T("{who} had {a} {x}. {p} found {b} more and then lost {c}. How many {x} does {who} have now?", "{a} + {b} - {c}"),
        T("A shop had {a} {x}. It sold {b} and then got {c} new ones. How many {x} does it have now?", "{a} - {b} + {c}"),
        T("{who} buys {a} bags of {b} {x} and gives away {c} {x}. How many {x} does {who} keep?", "{a} * {b} - {c}"),
        T("There were {a} {x} in a jar. {who} took out {b} and put back {c}. How many {x} are in the jar?", "{a} - {b} + {c}"),
    ],
    "new positions": [
        T("Tell me, {who}: what do {a} and {b} add up to?", "{a} + {b}"),
        T("With the calculator, {who} works out {a} multiplied by {b}. What does {q} get?", "{a} * {b}"),
        T("{a} take away {b}, says {who}. What is the answer?", "{a} - {b}"),
        T("Use calc for this one: the sum of {a} and {b}, please.", "{a} + {b}"),
        T("To {a} {x}, {who} adds another {b}. How many {x} is that?", "{a} + {b}"),
    ],
}
# --8<-- [end:order]


def templates() -> dict[str, list[str]]:
    """Every template's text, per family."""
    return {family: [t.text for t in rows] for family, rows in TEMPLATES.items()}


def _numbers(rng: random.Random, expression: str) -> dict | None:
    """Numbers for `expression`: a and b a pair of the factory's test buckets, c smaller; None to draw again."""
    op = re.search(r"\{a\} ([-+*]) \{b\}", expression).group(1)
    a, b = rng.randrange(2, 100), rng.randrange(2, 100 if op != "*" else 13)
    if op == "-" and a <= b:
        a, b = b, a
    if a == b or calc_split(a, op, b) != "test":
        return None
    c = rng.randrange(1, 20)
    k = rng.choice([n for n in range(3, 40) if n not in (a, b, c)])
    values = {"a": a, "b": b, "c": c, "k": k}
    return values if _value(expression.format(**values)) >= 0 else None


def _value(text: str) -> int:
    """An expression of integers, + - * and spaces, by plain integer arithmetic (left to right, * first)."""
    terms, sign, total = re.findall(r"[-+]|[\d\s*]+", text.replace(" ", "")), 1, 0
    for term in terms:
        if term in "+-":
            sign = 1 if term == "+" else -1
        else:
            total += sign * math.prod(int(n) for n in term.split("*"))
    return total


def evaluate_expression(goal: Goal) -> int:
    """A goal's answer recomputed by plain integer arithmetic from its first accepted calc argument (the check
    that the oracle, which comes from `calc`, is right)."""
    return _value(goal.calls[0][1][0])


def _accepted(expression: str) -> tuple[str, ...]:
    """The calc arguments credited: the expression, and its two operands swapped where the first operation commutes."""
    a, op, rest = re.match(r"(\d+) ([-+*]) (\d+.*)", expression).groups()
    b, _, tail = rest.partition(" ")
    swapped = f"{b} {op} {a}" + (f" {tail}" if tail else "")
    return (expression,) + ((swapped,) if op in "+*" and swapped != expression else ())


def _goal(rng: random.Random, family: str) -> Goal | None:
    template = rng.choice(TEMPLATES[family])
    values = _numbers(rng, template.expression)
    if values is None:
        return None
    name = rng.choice(sorted(NAMES))
    text = template.text.format(who=name, p=NAMES[name], q=NAMES[name].lower(), x=rng.choice(THINGS), **values)
    expression = template.expression.format(**values)
    return Goal(text, family, (("calc", _accepted(expression)),), calc(expression), template.text)


def make_goals(per_family: int = 30, seed: int = 0) -> list[Goal]:
    """`per_family` distinct goals of each family, in FAMILIES order; the same for a seed."""
    rng, goals = random.Random(seed), []
    for family in FAMILIES:
        found: dict[str, Goal] = {}
        while len(found) < per_family:
            goal = _goal(rng, family)
            if goal is not None:
                found.setdefault(goal.goal, goal)
        goals += found.values()
    return goals


# ---- rates with their intervals, brains side by side -----------------------------------------------

def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score 95% interval of k successes in n trials, rounded to 3 places ((0, 0) for n = 0)."""
    if n == 0:
        return (0.0, 0.0)
    p, spread = k / n, z * z / n
    middle, half = p + spread / 2, z * math.sqrt(p * (1 - p) / n + spread / (4 * n))
    return (round(max(0.0, (middle - half) / (1 + spread)), 3), round(min(1.0, (middle + half) / (1 + spread)), 3))


def rates(rows, families=FAMILIES, criterion: str = "exact") -> dict[str, tuple[int, int]]:
    """Per family (and "all"), (right, n) by `criterion`, over rows scored by `grammar.evaluate`."""
    out = {}
    for family in list(families) + ["all"]:
        values = [s[criterion] for g, s, _ in rows if family in ("all", g.family) and s[criterion] is not None]
        out[family] = (int(sum(values)), len(values))
    return out


def order_table(suites: dict[str, list], families=FAMILIES, criterion: str = "exact") -> str:
    """One row per family and one overall; per brain (name -> scored rows) the rate right and its 95% interval."""
    counted = {name: rates(rows, families, criterion) for name, rows in suites.items()}
    lines = [f"{'family':18s}" + "".join(f"{name:>34s}" for name in suites)]
    for family in list(families) + ["all"]:
        cells = []
        for name in suites:
            k, n = counted[name][family]
            low, high = wilson(k, n)
            cells.append(f"{k:3d}/{n:<3d} {100 * k / n:5.1f}% [{100 * low:4.1f}, {100 * high:5.1f}]" if n else "-")
        lines.append(f"{family:18s}" + "".join(f"{c:>34s}" for c in cells))
    return "\n".join(lines)
