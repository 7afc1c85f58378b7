"""Layer 3 · memory as extra context: `format_memories(short.get(), long.retrieve(context, k)) -> text`.

Read `react.py` first. An agent "remembers" only what is put back into its prompt. This module
keeps two plain stores and renders them into one text block; `run_react(..., extra_context=block)`
places the block above the question. The ReAct loop does not change at all.

- ShortTermMemory: the last `window` turns, oldest dropped first (a fixed-size window).
- LongTermMemory: every fact ever added; `retrieve(context, k)` returns the k facts sharing the
  most words with the context. Words are lower-case letters and digits, minus a few very common
  words; ties go to the fact added first, so retrieval is deterministic.

Usage:

    >>> short = ShortTermMemory(window=2)
    >>> short.add("user: What is 2 + 2? | agent: 4")
    >>> long = LongTermMemory(["Pip is Mira's grey cat.", "The mill wheel is blue."])
    >>> long.retrieve("What colour is the cat Pip?", k=1)
    ["Pip is Mira's grey cat."]
    >>> print(format_memories(short.get(), long.retrieve("Who is Pip?", k=1)))
    Recent conversation:
    - user: What is 2 + 2? | agent: 4
    Things you remember:
    - Pip is Mira's grey cat.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Iterable, Sequence

__all__ = ["ShortTermMemory", "LongTermMemory", "format_memories", "words"]

STOPWORDS = frozenset("a an and are at by do does for he her his how in is it of on or s she the "
                      "to was what where which who with".split())


def words(text: str) -> set[str]:
    """The content words of `text`: lower-case letters/digits, common words removed."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


# ---- short-term: a fixed window of recent turns ------------------------------------------------

class ShortTermMemory:
    """The last `window` turns, oldest first."""

    def __init__(self, window: int = 4):
        if not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be an integer >= 1, got {window!r}")
        self.turns: deque[str] = deque(maxlen=window)

    def add(self, turn: str) -> None:
        self.turns.append(turn)

    def get(self) -> list[str]:
        return list(self.turns)

    def clear(self) -> None:
        self.turns.clear()

    def __len__(self) -> int:
        return len(self.turns)


# ---- long-term: every fact, retrieved by word overlap -------------------------------------------

# --8<-- [start:retrieve]
class LongTermMemory:
    """Facts in the order they were added; retrieval by shared words."""

    def __init__(self, facts: Iterable[str] = ()):
        self.facts: list[str] = list(facts)

    def add(self, fact: str) -> None:
        self.facts.append(fact)

    def retrieve(self, context: str | Sequence[str], k: int = 3) -> list[str]:
        """Up to k facts sharing at least one word with `context`, most shared words first."""
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        query = words(context if isinstance(context, str) else " ".join(context))
        scored = [(len(query & words(fact)), i) for i, fact in enumerate(self.facts)]
        best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        return [self.facts[i] for _, i in best[:k]]
# --8<-- [end:retrieve]

    def __len__(self) -> int:
        return len(self.facts)


# ---- the block the prompt sees -----------------------------------------------------------------

def format_memories(short: Sequence[str], long: Sequence[str]) -> str:
    """Recent turns and retrieved facts as prompt text; empty sections are left out."""
    lines = []
    if short:
        lines += ["Recent conversation:"] + [f"- {turn}" for turn in short]
    if long:
        lines += ["Things you remember:"] + [f"- {fact}" for fact in long]
    return "\n".join(lines)
