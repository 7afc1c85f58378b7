"""Layer 3 · grounding: `ungrounded(goal, answer, observations) -> reasons` — does an answer rest on anything observed?

Read `react.py` first (its typed steps say which observations came from a tool that answered).
A ReAct agent is trusted because its answer rests on what its tools said. A small model can end a
run with a Final Answer that rests on nothing: asked "What is the capital of France?", the
agent-tuned TinyLLM writes "Thought: repeat capital / Final Answer: capital" — it copies a salient
word of the goal, as its training taught it for "Repeat the word apple." This module names such an
answer, with a typed reason, so the trace can say so instead of showing it as a plain answer.

The rule, in two clauses (either one flags the answer as *not grounded in any observation*):

    nothing observed   tools were available and none of them answered in the run (every step
                       before the answer was a thought, a repair, an unknown tool or a tool error)
    repeats the goal   every word of the answer is a word of the goal, and none of those words is
                       in an observation (so "12" for "What is 144 / 12?" after calc said 12 is
                       grounded; "17" after calc said 391 is not)

Words are lowercase runs of letters and digits. The flag says where an answer came from, not
whether it is right: "Repeat the word apple." answered "apple" is flagged too, and truly — the
answer rests on the goal, not on an observation. `react.grounding(trajectory)` applies the rule to
a run (the successful observations are its ACTION steps, by their typed outcome, never by text).

Usage:

    >>> ungrounded("What is the capital of France?", "capital", [])
    (<Ungrounded.NOTHING_OBSERVED: 'no tool answered'>, <Ungrounded.REPEATS_GOAL: 'the answer only repeats words of the goal'>)
    >>> ungrounded("What is 144 / 12?", "12", ["12"])
    ()
    >>> label(ungrounded("What is 17 * 23?", "17", ["391"]))
    'not grounded in any observation: the answer only repeats words of the goal'
"""

from __future__ import annotations

import enum
import re
from typing import Sequence

__all__ = ["Ungrounded", "LABEL", "ungrounded", "label", "words"]

LABEL = "not grounded in any observation"
WORD_RE = re.compile(r"[a-z0-9]+")


class Ungrounded(str, enum.Enum):
    """Why a final answer rests on nothing. A str, so JSON says "no tool answered", not a number."""

    NOTHING_OBSERVED = "no tool answered"
    REPEATS_GOAL = "the answer only repeats words of the goal"


def words(text: str) -> set[str]:
    """The lowercase words (letters and digits) of `text`."""
    return set(WORD_RE.findall(text.lower()))


# --8<-- [start:rule]
def ungrounded(goal: str, answer: str | None, observations: Sequence[str],
               tools_available: bool = True) -> tuple[Ungrounded, ...]:
    """Why `answer` is not grounded in `observations` (what tools said that answered); () when it
    is grounded, or when there is no answer to judge."""
    if answer is None:
        return ()
    reasons = []
    if tools_available and not observations:
        reasons.append(Ungrounded.NOTHING_OBSERVED)
    said, seen = words(answer), set().union(*map(words, observations))
    if said and said <= words(goal) and not said & seen:
        reasons.append(Ungrounded.REPEATS_GOAL)
    return tuple(reasons)
# --8<-- [end:rule]


def label(reasons: Sequence[Ungrounded]) -> str:
    """The trace's line for a flagged answer: the label, then its reasons; "" when there are none."""
    return f"{LABEL}: {'; '.join(r.value for r in reasons)}" if reasons else ""
