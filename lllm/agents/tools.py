"""Layer 3 · tools: a Tool is a named function from argument text to observation text.

Read `calc.py` first. The ReAct agent (`react.py`) shows the model each tool's name and
description, and runs the one the model names. The town of Brookfield — the world of TinyLLM's
training story — gives the `lookup` tool its facts.

Usage:

    >>> lookup("Who is Pip?")
    "Pip is Mira's grey cat."
    >>> [tool.name for tool in DEFAULT_TOOLS]
    ['calc', 'lookup']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from lllm.agents.calc import calc

__all__ = ["Tool", "FACTS", "lookup", "DEFAULT_TOOLS"]


# ---- tools -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Tool:
    """A named function from argument text to observation text, described for the model."""

    name: str
    description: str
    fn: Callable[[str], str]


# --8<-- [start:facts]
FACTS = {  # the world of the training story (export/story.txt), one line per topic
    "brookfield": "Brookfield is a small town by a slow green river, under a tall grey hill.",
    "mira": "Mira is the baker. She lives above the bakery on Apple Street.",
    "tom": "Tom is 11 years old. He lives at the mill with his father, Owen.",
    "owen": "Owen is the miller, Tom's father. He lives at the mill by the river.",
    "lina": "Lina lives in the white house on Hill Road. She keeps 5 hens and 1 goat.",
    "hale": "Mr. Hale is the teacher. He lives in the school house on Mill Lane.",
    "pip": "Pip is Mira's grey cat.",
    "bram": "Bram is Lina's brown goat.",
    "dot": "Dot is Mr. Hale's small brown dog.",
    "bakery": "The bakery opens at 6:30. Mira bakes 12 loaves a day, 24 on Friday.",
    "mill": "The mill is by the river. Its wheel is blue.",
    "clock": "The old clock in the square is gold. It has 4 faces.",
    "market": "The market is in the square, next to the old clock, on Saturday.",
    "school": "There are 18 children in Mr. Hale's class.",
    "bread": "A loaf of bread costs 2 coins.",
}
# --8<-- [end:facts]


def lookup(topic: str) -> str:
    """The fact for `topic`: its name, or the one topic name the text mentions."""
    words = re.findall(r"[a-z]+", topic.lower())
    key = " ".join(words)
    if key in FACTS:
        return FACTS[key]
    mentioned = [name for name in FACTS if name in words]
    if len(mentioned) == 1:
        return FACTS[mentioned[0]]
    raise LookupError(f"no fact about {topic.strip()!r}; topics: {', '.join(FACTS)}")


DEFAULT_TOOLS = (
    # The examples are deliberately concrete: a stand-in predictor that copies them instead of reading
    # the goal answers every question with 7 (site/design.md, "Lessons"), and tests check that ours does not.
    Tool("calc", "arithmetic with + - * / ** and parentheses. Example: Action: calc[2 + 5]", calc),
    Tool("lookup", "a fact about the town of Brookfield. Topics: " + ", ".join(FACTS)
         + ". Example: Action: lookup[mira]", lookup),
)
