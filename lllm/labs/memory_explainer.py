"""Layer 4 · the memory explainer: `explain_memory(predictor, goals) -> list of turns`, shown step by step.

Read `memory.py` and `react.py` first. This composes the layers and makes each one visible:
a Predictor (any brain), the ReAct loop, short-term memory (the conversation so far) and
long-term memory (facts about the story's town). For every goal it prints the memory block that
is injected into the prompt, runs the agent verbosely, then remembers the turn — so you can watch
short-term memory grow and see the second goal ("that plus 9") depend on the first one's answer.

Usage:

    >>> from lllm.predictors import RulePredictor
    >>> turns = explain_memory(RulePredictor(), ["What is 17 * 23?", "What is that plus 9?"], verbose=False)
    >>> [turn.answer for turn in turns]
    ['391', '400']
    >>> turns[1].memory_block
    'Recent conversation:\\n- user: What is 17 * 23? | agent: 391'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from lllm.agents.memory import LongTermMemory, ShortTermMemory, format_memories
from lllm.agents.react import Trajectory, run_react
from lllm.agents.tools import DEFAULT_TOOLS, FACTS

__all__ = ["DEMO_GOALS", "Turn", "explain_memory"]

DEMO_GOALS = ["What is 17 * 23?", "What is that plus 9?", "Who is Pip?", "Where does Lina live?"]


@dataclass
class Turn:
    """One goal of the session: what memory injected, and what the agent did with it."""

    goal: str
    memory_block: str
    answer: str | None
    trajectory: Trajectory


# --8<-- [start:explain-memory]
def explain_memory(predictor, goals: Sequence[str] = DEMO_GOALS, verbose: bool = True,
                   window: int = 4, k: int = 2, max_steps: int = 4) -> list[Turn]:
    """Run each goal with memory injected as extra context; remember each turn afterwards."""
    short, long = ShortTermMemory(window), LongTermMemory(FACTS.values())
    turns = []
    for number, goal in enumerate(goals, 1):
        facts = long.retrieve(short.get() + [goal], k=k)          # what long-term memory offers
        block = format_memories(short.get(), facts)
        _show(verbose, f"\n=== goal {number}: {goal}", "[MEMORY] injected block:", block or "(empty)")
        trajectory = run_react(goal, predictor, DEFAULT_TOOLS, max_steps=max_steps, verbose=verbose,
                               extra_context=block, return_trajectory=True)
        short.add(f"user: {goal} | agent: {trajectory.answer}")  # remember the turn
        _show(verbose, f"[MEMORY] short-term now holds {len(short)} turn(s): {short.get()}")
        turns.append(Turn(goal, block, trajectory.answer, trajectory))
    return turns
# --8<-- [end:explain-memory]


def _show(verbose: bool, *lines: str) -> None:
    if verbose:
        print("\n".join(lines))


if __name__ == "__main__":
    from lllm.predictors import RulePredictor

    explain_memory(RulePredictor())
