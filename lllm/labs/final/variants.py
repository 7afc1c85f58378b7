"""Layer 4 · the final's templates: `VARIANTS[i](rng) -> question` and `exercise(rng)`, new numbers every seed.

Read `exam.py` next (it draws from the pool, calls these and grades). Each template takes a
`random.Random` and returns a question in the pool's shape (pool.json, written by
hooks/final_pool.py): `id`, `kind`, `prompt` (HTML), `teaches` (a page, an anchor, the heading's
words), and `choices` (each `html`, `correct`) or `answers` (normalised strings) or `number` with a
`tolerance`. The right answers are computed by the library itself where one exists — the observation
by `lllm.agents.calc.calc`, as the ReAct loop computes it — never typed by hand.

Usage:

    >>> import random
    >>> q = calc_observation(random.Random(1))
    >>> q["kind"], q["answers"] == [calc(q["expression"])]
    ('short', True)
    >>> sorted(exercise(random.Random(1)))
    ['prompt', 'rubric', 'stub', 'teaches', 'tests', 'unit']
"""

from __future__ import annotations

import html
import math

from lllm.agents.calc import calc

__all__ = ["VARIANTS", "UNITS", "exercise", "calc_observation", "own_observation", "greedy_pick", "cross_entropy",
           "majority_vote"]


def code(text) -> str:
    return f"<code>{html.escape(str(text))}</code>"


def teaches(page: str, anchor: str, title: str) -> dict:
    return {"page": page, "anchor": anchor, "title": title}


UNITS = {"agents/react.md": "ReAct and tools", "tinyllm/generation.md": "Next-token prediction",
         "tinyllm/training.md": "Training TinyLLM", "reasoning/index.md": "Reasoning frameworks",
         "agents/evaluator.md": "Measuring agents"}   # course.yml's title of the unit each page belongs to


# ---- tool outputs and traces -------------------------------------------------------------------------

def calc_observation(rng) -> dict:
    a, b, c = rng.randint(12, 49), rng.randint(3, 19), rng.randint(2, 90)
    expression = rng.choice([f"{a} * {b} + {c}", f"({a} + {c}) * {b}", f"{a} * {b} - {c}", f"{a * b} / {b} + {c}"])
    prompt = (f"<p>Asked a question, the model writes {code(f'Action: calc[{expression}]')}. The agent runs the "
              f"tool. What observation does it append to the trajectory? (Write the text after "
              f"{code('Observation: ')}.)</p>")
    return {"id": "final-calc-observation", "kind": "short", "prompt": prompt, "expression": expression,
            "answers": [calc(expression)], "teaches": teaches("agents/react.md", "the-loop", "The loop")}


def own_observation(rng) -> dict:
    """A reply with an action, the model's own observation and a final answer: the action, written
    first, counts; what the model wrote after `Observation:` is cut off, and the tool answers."""
    a, b = rng.randint(101, 899), rng.randint(11, 99)
    fake = str(a + b + rng.choice([-10, -1, 1, 10]))
    reply = f"Thought: add them\nAction: calc[{a} + {b}]\nObservation: {fake}\nFinal Answer: {fake}"
    prompt = (f"<p>The model's reply, whole:</p><pre><code>{html.escape(reply)}</code></pre>"
              f"<p>What does the agent append to the trajectory next?</p>")
    choices = [(f"Observation: {calc(f'{a} + {b}')}", True), (f"Observation: {fake}", False),
               ("Nothing: the final answer ends the run", False), ("Observation: error: two answers in one reply", False)]
    return {"id": "final-own-observation", "kind": "single", "prompt": prompt,
            "choices": [{"html": code(text) if text.startswith("Observation") else html.escape(text), "correct": right}
                        for text, right in choices],
            "teaches": teaches("agents/react.md", "the-parsers", "The parsers")}


# ---- the model's numbers -----------------------------------------------------------------------------

def greedy_pick(rng) -> dict:
    chars = rng.sample("aeiostnrl", 4)
    weights = rng.sample(range(5, 60), 4)
    probs = [w / sum(weights) for w in weights]
    table = "".join(f"<tr><td>{code(ch)}</td><td>{p:.3f}</td></tr>" for ch, p in zip(chars, probs))
    best = max(range(4), key=lambda i: probs[i])
    prompt = (f"<p>The model's probabilities for the next character:</p><table><tr><th>character</th>"
              f"<th>probability</th></tr>{table}</table><p>Which character does greedy decoding pick?</p>")
    return {"id": "final-greedy-pick", "kind": "single", "prompt": prompt,
            "choices": [{"html": code(ch), "correct": i == best} for i, ch in enumerate(chars)],
            "teaches": teaches("tinyllm/generation.md", "sampling-strategies", "Sampling strategies")}


def cross_entropy(rng) -> dict:
    p = rng.randint(5, 95) / 100
    prompt = (f"<p>At one position the model gives the right next character probability {p:.2f}. What is "
              f"the cross-entropy loss at that position, in nats? (Two decimals.)</p>")
    return {"id": "final-cross-entropy", "kind": "short", "prompt": prompt, "number": round(-math.log(p), 2),
            "tolerance": 0.006, "teaches": teaches("tinyllm/training.md", "the-loss", "The loss")}


def majority_vote(rng) -> dict:
    winner, *others = [str(n) for n in rng.sample(range(10, 99), 3)]
    votes = [winner] * 3 + [others[0]] * 2 + [others[1]]
    rng.shuffle(votes)
    prompt = (f"<p>Self-consistency samples six chains of thought; their final answers are "
              f"{', '.join(code(v) for v in votes)}. Which answer does it return?</p>")
    return {"id": "final-majority-vote", "kind": "short", "prompt": prompt, "answers": [winner],
            "teaches": teaches("reasoning/index.md", "self-consistency-cot-sc", "Self-consistency (CoT-SC)")}


VARIANTS = [calc_observation, own_observation, greedy_pick, cross_entropy, majority_vote]


# ---- the exercise: the evaluator's weighted total, with this seed's rubric ---------------------------

CRITERIA = ["format", "tool", "args", "answer", "efficiency", "grounded", "brief"]


def exercise(rng) -> dict:
    """A code question: `total(scores)` under a rubric of four criteria whose weights (tenths, summing
    to 1) are drawn here, so code written for another seed's rubric fails this one's checks."""
    names = rng.sample(CRITERIA, 4)
    cuts = sorted(rng.sample(range(1, 10), 3))
    tenths = [b - a for a, b in zip([0, *cuts], [*cuts, 10])]
    rubric = {name: t / 10 for name, t in zip(names, tenths)}
    some = {name: rng.choice([0.5, 1.0]) for name in rng.sample(names, 2)}
    extra = {rng.choice([c for c in CRITERIA if c not in rubric]): 1.0}

    def expect(scores):
        return round(sum(w * scores.get(n, 0.0) for n, w in rubric.items()), 6)
    tests = [f"assert abs(total({dict.fromkeys(names, 1.0)!r}) - 1.0) < 1e-9, 'a perfect run scores 1.0'",
             f"assert abs(total({some!r}) - {expect(some)!r}) < 1e-9, 'two criteria met, each weighed by the rubric'",
             "assert total({}) == 0, 'no criteria met: 0'",
             f"assert abs(total({extra!r})) < 1e-9, 'a criterion that is not in the rubric counts for nothing'"]
    for name in names:
        one = {name: 1.0}
        tests.append(f"assert abs(total({one!r}) - {rubric[name]!r}) < 1e-9, 'each criterion has its own weight'")
    stub = f"RUBRIC = {rubric!r}\n\n\ndef total(scores):\n    return sum(scores.values())\n"
    prompt = (f"<p>Write {code('total(scores)')}: the weighted sum of a dict of criterion scores under this "
              f"rubric: {', '.join(f'{n} {w}' for n, w in rubric.items())}. A criterion missing from "
              f"{code('scores')} counts as 0; a score for a criterion outside the rubric counts for nothing.</p>")
    return {"prompt": prompt, "stub": stub, "rubric": rubric, "tests": tests, "unit": UNITS["agents/evaluator.md"],
            "teaches": teaches("agents/evaluator.md", "usage-notes", "Usage notes")}
