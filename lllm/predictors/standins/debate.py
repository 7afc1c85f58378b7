"""Layer 2 · the debate's stand-ins: `DebateRulePredictor(role, seed, temperature)` is a Predictor.

Read `react.py` first (the ReAct stand-in); `lllm/labs/debate/panel.py` is the debate these play
in, and the formats they read and write are its prompts and `panel.show_proposals`.

These are not language models and do not pretend to be. Each reads only its prompt — the flat
chat template the native runtime renders (`lllm/runtimes/native/core/chat_format.py`) — and writes what `panel.py` asks
for, so the whole debate machinery (rounds, tools, the critic's strict verdict, the validated
synthesis) can be watched on a stand-in that behaves the same in CPython and in the page.

    specialist   propose: a careful specialist calls a tool (Action: calc[...] or lookup[...]);
                 a careless one — chance min(1, temperature / 2), drawn from Mulberry32(seed) —
                 answers without a tool and, for arithmetic, slips by a few units from what
                 `calculate` (the panel passes the calc tool's evaluator) makes of it; with no
                 `calculate` its guess is "I don't know". A fact in its memory block ("Things you
                 remember:") is used without a tool.
                 revise: keeps its answer when the others agree or it was checked with a tool;
                 otherwise it checks with the tool now.
    critic       checks the question with one tool call, then scores each proposal:
                 10/10 the checked value, 6/10 contains it, 1/10 "I don't know", 2/10 otherwise.
                 With nothing to check against it scores agreement (6/10 majority, 3/10 not).
    synthesizer  restates the best-scored proposal (the first of a tie).

A topic is one the prompt's lookup tool lists (`Topics: ...`): the stand-in knows no fact of its own.

Usage:

    >>> brain = DebateRulePredictor("specialist", seed=1, temperature=0.0)
    >>> brain("User: Question: What is 48 plus 17?\\nPropose an answer.\\nAssistant: ")
    'I will check with a tool.\\nAction: calc[48 + 17]'
    >>> brain("User: Question: What is 48 plus 17?\\nPropose an answer.\\nAssistant: Action: calc[48 + 17]\\nObservation: 65\\nAssistant: ")
    '<answer>65</answer> <reason>checked with a tool</reason>'
"""

from __future__ import annotations

import re
from typing import Callable

from lllm.model.sampling import Mulberry32, check_sampling
from lllm.predictors.standins.react import find_arithmetic, topics_in

__all__ = ["DebateRulePredictor", "ROLES", "CHECKED", "DONT_KNOW"]

ROLES = ("specialist", "critic", "synthesizer")
CHECKED = "checked with a tool"        # the reason a checked answer carries (revise reads it back)
DONT_KNOW = "I don't know"
PROPOSAL_LINE = re.compile(r"^- (\S+): (.*) \| (.*)$", re.M)      # panel.show_proposals writes these
SCORE_LINE = re.compile(r"^- (\S+): (\d+)/10$", re.M)              # panel.show_scores writes these


# ---- reading the prompt ----------------------------------------------------------------------

def _question(prompt: str) -> str:
    found = re.findall(r"Question: (.*)", prompt)
    return found[-1].strip() if found else ""


def _this_turn(prompt: str) -> str:
    """Everything after the last user turn: this turn's tool calls and observations."""
    return prompt[prompt.rfind("\nUser") + 1:] if "\nUser" in prompt else prompt


def _named_topics(question: str, prompt: str) -> list[str]:
    """The words of the question that the prompt's lookup tool lists among its topics, in order."""
    topics = set(topics_in(prompt))
    return [w for w in re.findall(r"[a-z]+", question.lower()) if w in topics]


def _tool_call(question: str, prompt: str) -> str | None:
    expression = find_arithmetic(question)
    if expression:
        return f"Action: calc[{expression}]"
    topic = next(iter(_named_topics(question, prompt)), None)
    return f"Action: lookup[{topic}]" if topic else None


def _remembered(question: str, prompt: str) -> str | None:
    """A remembered fact naming a word of the question (the memory block, see memory.py)."""
    block = prompt.partition("Things you remember:")[2]
    names = _named_topics(question, prompt)
    facts = re.findall(r"^- (.*)$", block.split("\nUser")[0], re.M)
    return next((f for f in facts for n in names if n in f.lower()), None)


def _same(a: str, b: str) -> bool:
    return a.strip().rstrip(".").lower() == b.strip().rstrip(".").lower()


def _answer(answer: str, reason: str) -> str:
    return f"<answer>{answer}</answer> <reason>{reason}</reason>"


# ---- the stand-in --------------------------------------------------------------------------------

class DebateRulePredictor:
    """A predictor for one debate role (see the module docstring); deterministic for a seed."""

    def __init__(self, role: str = "specialist", seed: int = 0, temperature: float = 0.0,
                 calculate: Callable[[str], str] | None = None):
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, got {role!r}")
        check_sampling(temperature, 0, 1.0)          # one rule for every temperature (sampling.py)
        self.role, self.temperature, self.rng = role, float(temperature), Mulberry32(seed)
        self.calculate = calculate

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        reply = getattr(self, self.role)(prompt)
        return reply if max_new_tokens is None else reply[:max_new_tokens]

    # ---- specialist -------------------------------------------------------------------------------

    def specialist(self, prompt: str) -> str:
        question, turn = _question(prompt), _this_turn(prompt)
        observed = re.findall(r"^Observation: (.*)$", turn, re.M)
        if observed:
            if observed[-1].startswith("Error"):
                return _answer(DONT_KNOW, "the tool could not help")
            return _answer(observed[-1], CHECKED)
        mine = re.search(r"^Your last answer: (.*) \| (.*)$", turn, re.M)
        if mine:                                                     # a revise turn
            others = [a for _, a, _ in PROPOSAL_LINE.findall(turn)]
            if all(_same(a, mine.group(1)) for a in others) or mine.group(2) == CHECKED:
                return _answer(mine.group(1), mine.group(2))
            return self._check(question, prompt, "the others disagree; ")
        fact = _remembered(question, prompt)
        if fact:
            return _answer(fact, "I remember it")
        if self.rng.uniform() < min(1.0, self.temperature / 2):      # careless this time
            return self._guess(question)
        return self._check(question, prompt, "")

    def _check(self, question: str, prompt: str, why: str) -> str:
        action = _tool_call(question, prompt)
        return f"{why}I will check with a tool.\n{action}" if action else _answer(DONT_KNOW, "no tool fits")

    def _guess(self, question: str) -> str:
        expression = find_arithmetic(question)
        if not expression or self.calculate is None:
            return _answer(DONT_KNOW, "a guess")
        try:                                             # the calc tool's CalcError is a ValueError
            exact = self.calculate(expression)
            slip = 1 + self.rng.next_u32() % 9
            return _answer(self.calculate(f"{exact} + {slip}"), "mental arithmetic, not checked")
        except ValueError:
            return _answer(DONT_KNOW, "a guess")

    # ---- critic and synthesizer --------------------------------------------------------------------

    def critic(self, prompt: str) -> str:
        question, turn = _question(prompt), _this_turn(prompt)
        proposals = PROPOSAL_LINE.findall(turn)
        observed = re.findall(r"^Observation: (.*)$", turn, re.M)
        action = _tool_call(question, prompt)
        if action and not observed:
            return f"I will check the question myself first.\n{action}"
        truth = observed[-1] if observed and not observed[-1].startswith("Error") else None
        lines = []
        for name, answer, _reason in proposals:
            if truth is None:
                agree = sum(_same(answer, a) for _, a, _ in proposals)
                score, why = (6, "agrees with the majority") if agree * 2 > len(proposals) else (3, "a minority answer")
            elif _same(answer, truth):
                score, why = 10, "matches my check"
            elif truth.lower() in answer.lower() or answer.lower() in truth.lower():
                score, why = 6, "contains my check"
            else:
                score, why = (1, "no answer") if _same(answer, DONT_KNOW) else (2, f"my check says {truth}")
            lines.append(f"SCORE {name}: {score}/10 {why}")
        return "\n".join(lines)

    def synthesizer(self, prompt: str) -> str:
        turn = _this_turn(prompt)
        answers = {name: answer for name, answer, _ in PROPOSAL_LINE.findall(turn)}
        scores = [(int(score), name) for name, score in SCORE_LINE.findall(turn) if name in answers]
        if not scores:
            return _answer(DONT_KNOW, "no scores to go on")
        best = max(scores, key=lambda s: s[0])                       # max keeps the first of a tie
        return _answer(answers[best[1]], f"{best[1]} scored highest ({best[0]}/10)")

    def __repr__(self) -> str:
        return f"DebateRulePredictor({self.role!r}, temperature={self.temperature})"
