"""Layer 2 · the ReAct stand-in: `RulePredictor()(prompt) -> one ReAct step`, written by rules, not learned.

Read `lllm/predictors/contract.py` first; `lllm/predictors/specs.py` names it `--predictor rule`. A stand-in predictor lets every
agent and lab run, and be tested, without a trained model; the agents never know which
predictor they are talking to.

The RulePredictor is not a language model and does not pretend to be one. It reads the goal from
the prompt — the last `Question:` line — and the tool list, exactly as a model would have to, and
writes one step: `calc[...]` for arithmetic it can find in the goal ("that" meaning the last
answer when a memory block is in the prompt), `lookup[...]` for a topic the goal names, then
`Final Answer:` with the last observation. It never copies the tools' examples (the original
collection's stand-in did, and answered every question with 7), and it fails honestly on what its
rules do not cover (word problems), which the lab shows. `echo` is the original collection's
broken predictor, kept so the lab can be seen refusing to credit it.

Usage:

    >>> predictor = RulePredictor()
    >>> print(predictor("Tools:\\ncalc: arithmetic\\nQuestion: What is 6 times 7?\\n"))
    Thought: compute 6 * 7
    Action: calc[6 * 7]
    >>> print(predictor("Question: What is 6 times 7?\\nObservation: 42\\n"))
    Final Answer: 42
"""

from __future__ import annotations

import re

__all__ = ["RulePredictor", "echo", "find_arithmetic", "topics_in"]


# ---- the rule-based stand-in -------------------------------------------------------------------

WORD_OPERATORS = [  # rewrite number words into symbols before looking for arithmetic
    (r"\b(?:the )?sum of (\S+) and (\S+)", r"\1 + \2"),
    (r"\b(?:the )?product of (\S+) and (\S+)", r"\1 * \2"),
    (r"\b(?:the )?difference between (\S+) and (\S+)", r"\1 - \2"),
    (r"(\d) squared", r"\1 ** 2"),
    (r" (?:times|multiplied by) ", " * "),
    (r" plus ", " + "),
    (r" minus ", " - "),
    (r" divided by ", " / "),
    (r" to the power of ", " ** "),
]
ARITHMETIC_RE = re.compile(r"[\d(][\d\s.+\-*/%^()]*")
SAY_RE = re.compile(r"(?:please |just )?(?:say|repeat|echo|write|type)(?: back)?(?: the word)?:? ([A-Za-z]+)[.!]?", re.I)


def find_arithmetic(goal: str) -> str | None:
    """The longest stretch of the goal that is arithmetic (numbers joined by operators), or None.

    >>> find_arithmetic("What is the product of 12 and 12?")
    '12 * 12'
    """
    text = goal.lower()
    for pattern, replacement in WORD_OPERATORS:
        text = re.sub(pattern, replacement, text)
    spans = [m.group(0).strip().rstrip(" .+-*/%^") for m in ARITHMETIC_RE.finditer(text)]
    spans = [s for s in spans if re.search(r"\d\s*(\*\*|[-+*/%^])\s*[\d(]", s)]
    return max(spans, key=len) if spans else None


def topics_in(prompt: str) -> list[str]:
    """The topics the prompt's lookup tool lists (`Topics: a, b, c`), in order; [] if none.

    Every stand-in that looks things up learns the topics here, from its prompt, as a model would.

    >>> topics_in("lookup: a fact. Topics: mira, tom. Example: Action: lookup[mira]")
    ['mira', 'tom']
    """
    listed = re.search(r"Topics: ([^.\n]*)", prompt)
    return [t.strip() for t in listed.group(1).split(",") if t.strip()] if listed else []


def _goal_and_steps(prompt: str) -> tuple[str, str]:
    """(the last `Question:` line, everything after it) — what the predictor has to go on."""
    at = prompt.rfind("Question:")
    if at < 0:
        return "", ""
    line, _, after = prompt[at + len("Question:"):].partition("\n")
    return line.strip(), after


# --8<-- [start:rule-brain]
class RulePredictor:
    """A predictor that writes correct ReAct steps for simple goals by rules, not by learning."""

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        reply = self.reply(prompt)
        return reply if max_new_tokens is None else reply[:max_new_tokens]

    def reply(self, prompt: str) -> str:
        goal, steps = _goal_and_steps(prompt)
        observations = re.findall(r"^Observation: (.*)$", steps, re.M)
        if observations:                                   # a tool has answered: report it
            if observations[-1].startswith(("error", "no Action")):
                return "Thought: the tool could not help\nFinal Answer: I don't know"
            return f"Final Answer: {observations[-1]}"     # the answer right under its source
        said = SAY_RE.fullmatch(goal)
        if said:                                           # "Repeat the word X": no tool needed
            return f"Thought: repeat {said.group(1)}\nFinal Answer: {said.group(1)}"
        expression = find_arithmetic(self._recall(goal, prompt))
        if expression and "\ncalc:" in prompt:
            return f"Thought: compute {expression}\nAction: calc[{expression}]"
        topic = self._topic(goal, prompt)
        if topic:
            return f"Thought: look up {topic}\nAction: lookup[{topic}]"
        return "Thought: none of my rules fits this question\nFinal Answer: I don't know"

    @staticmethod
    def _recall(goal: str, prompt: str) -> str:
        """'that' or 'it' in the goal means the last numeric answer in the recent conversation
        (the memory block, see memory.py) — the one way this predictor uses memory."""
        answers = re.findall(r"^- user: .*\| agent: (.+)$", prompt, re.M)
        if answers and re.fullmatch(r"-?\d+(\.\d+)?", answers[-1].strip()):
            return re.sub(r"\b(that|it)\b", answers[-1].strip(), goal)
        return goal

    @staticmethod
    def _topic(goal: str, prompt: str) -> str | None:
        """The first word of the goal that the lookup tool lists among its topics."""
        topics = set(topics_in(prompt))
        return next((w for w in re.findall(r"[a-z]+", goal.lower()) if w in topics), None)

    def __repr__(self) -> str:
        return "RulePredictor()"


# --8<-- [end:rule-brain]
def echo(prompt: str, max_new_tokens: int | None = None) -> str:
    """The original collection's broken predictor: it hands back the prompt itself."""
    return prompt if max_new_tokens is None else prompt[:max_new_tokens]
