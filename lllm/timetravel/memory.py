"""Layer 4 · time travel for the memory explainer: `travel_memory(spec) -> record`, a session's branches.

Read `memory_explainer.py` (the session) and `lllm/timetravel/react.py` (time travel for one ReAct
run) first. A memory session runs several goals in turn; before each goal, short-term memory (the
turns so far) and long-term memory (facts retrieved for them) are injected into the prompt. Time
travel here counts the steps across the whole session (step 1, 2, ... over every goal), and an edit
of step k — its thought, action or observation — keeps everything before it, re-runs the rest of
that goal, then every later goal *with the memory the new answers make*. So you can see an edited
observation in goal 1 travel, through memory, into goal 2's prompt and answer.

Same rules as the ReAct time travel, reused: step i of the session is written by a predictor made
fresh for it (`step_brains`: the story model seeded with `step_seed(seed, i)`), so a replay is exact;
the run file is schema "lllm-run" version 2 with `"demo": "memory"` (`runfile.check_memory_spec`).
Branch 1 of a greedy brain is the session `python -m lllm explain-memory GOAL ...` prints.

Usage:

    >>> spec = {"version": 2, "demo": "memory",
    ...         "inputs": {"goals": ["What is 17 * 23?", "What is that plus 9?"]},
    ...         "edits": [{"parent": 1, "step": 1, "observation": "400"}]}
    >>> record = travel_memory(spec)
    >>> [[t["answer"] for t in b["turns"]] for b in record["branches"]]
    [['391', '400'], ['400', '409']]
    >>> record["branches"][1]["turns"][1]["memory"]
    'Recent conversation:\\n- user: What is 17 * 23? | agent: 400'
    >>> first_difference(record["branches"][0], record["branches"][1])
    1
"""

from __future__ import annotations

from typing import Sequence

from lllm.agents.grounding import Ungrounded, label
from lllm.agents.memory import LongTermMemory, ShortTermMemory, format_memories
from lllm.agents.react import Step, Trajectory, build_prompt, grounding
from lllm.timetravel.runfile import check_memory_spec, run_record
from lllm.timetravel.react import (edited_step, first_difference, first_run, go_on, sampling_text, step_brains, step_lines,
                                    step_record)
from lllm.agents.tools import DEFAULT_TOOLS, FACTS, Tool

__all__ = ["WINDOW", "K", "travel_memory", "memory_trace_text", "first_difference"]

WINDOW, K = 4, 2            # as explain_memory: the last 4 turns, the 2 best facts


def _turn(goal: str, steps: list[Step], block: str, first_index: int, brain_for, tools, max_steps: int) -> Trajectory:
    """One goal's ReAct loop, continued after `steps`, with the memory block as extra context; its
    step i is step `first_index + i - 1` of the session (the step's seed)."""
    brain = lambda index: brain_for(first_index + index - 1)  # noqa: E731
    return go_on(goal, steps, brain, tools, max_steps, block) if steps else first_run(goal, brain, tools, max_steps, block)


# --8<-- [start:session]
def session(goals: Sequence[str], brain_for, kept: list[list[Step]], tools: Sequence[Tool] = DEFAULT_TOOLS,
            max_steps: int = 4) -> list[tuple[str, Trajectory]]:
    """The explainer's session, each goal's first steps given by `kept` (the rest is the model's):
    memory is rebuilt from the answers as they come, so an edit early changes every later prompt."""
    short, long = ShortTermMemory(WINDOW), LongTermMemory(FACTS.values())
    turns, index = [], 1
    for n, goal in enumerate(goals):
        block = format_memories(short.get(), long.retrieve(short.get() + [goal], k=K))
        trajectory = _turn(goal, kept[n] if n < len(kept) else [], block, index, brain_for, tools, max_steps)
        short.add(f"user: {goal} | agent: {trajectory.answer}")
        turns.append((block, trajectory))
        index += len(trajectory.steps)
    return turns
# --8<-- [end:session]


def _kept_for_edit(parent: list[tuple[str, Trajectory]], edit: dict, tools, where: str) -> list[list[Step]]:
    """The parent's steps before the edited one, the edited step, and nothing after (the model goes on)."""
    k, kept = edit["step"], []
    for _, trajectory in parent:
        if k <= len(trajectory.steps):
            return kept + [trajectory.steps[:k - 1] + [edited_step(trajectory.steps[k - 1], edit, tools, where)]]
        kept.append(trajectory.steps)
        k -= len(trajectory.steps)
    total = sum(len(t.steps) for _, t in parent)
    raise ValueError(f"{where}.step is {edit['step']}, but branch {edit['parent']} has {total} step(s)")


def _branch_record(turns, tools) -> dict:
    steps, out = [], []
    for n, (block, t) in enumerate(turns, start=1):
        for i, s in enumerate(t.steps):
            prompt = None if s.forced else build_prompt(t.goal, tools, t.steps[:i], block)
            steps.append(step_record(s, prompt) | {"turn": n})
        out.append({"goal": t.goal, "memory": block, "answer": t.answer, "stop_reason": t.stop_reason,
                    "ungrounded": [reason.value for reason in grounding(t)]})
    return {"goal": out[0]["goal"], "turns": out, "steps": steps, "answer": out[-1]["answer"], "stop_reason": out[-1]["stop_reason"]}


def travel_memory(spec: dict, models: dict | None = None, tools: Sequence[Tool] = DEFAULT_TOOLS) -> dict:
    """The record of a memory session spec: branch 1 and one branch per edit, all recomputed."""
    inputs, edits = check_memory_spec(spec)
    brain_for = step_brains(inputs["brain"], inputs["seed"], inputs["temperature"], inputs["script"], models)
    run = lambda kept: session(inputs["goals"], brain_for, kept, tools, inputs["max_steps"])  # noqa: E731
    branches = [run([])]
    for i, edit in enumerate(edits):
        branches.append(run(_kept_for_edit(branches[edit["parent"] - 1], edit, tools, f"edits[{i}]")))
    return run_record("memory", inputs, edits, [_branch_record(turns, tools) for turns in branches])


def memory_trace_text(record: dict) -> str:
    """The session as text, as the page shows it and `python -m lllm replay` prints it."""
    i = record["inputs"]
    out = [f"memory session: {len(i['goals'])} goal(s)", f"brain {i['brain']}{sampling_text(i)}, max steps {i['max_steps']} per goal"]
    for b in record["branches"]:
        e = b["edit"]
        if e is None:
            out.append("== branch 1: the session")
        else:
            changed = ", ".join(f'{k}: "{e[k]}"' for k in ("thought", "action", "observation") if k in e)
            out.append(f"== branch {b['id']}: from branch {e['parent']}, step {e['step']} edited ({changed})")
        for n, turn in enumerate(b["turns"], start=1):
            out += [f"-- goal {n}: {turn['goal']}", "  memory injected:"]
            out += [f"    {line}" for line in (turn["memory"] or "(empty)").splitlines()]
            for number, step in enumerate(b["steps"], start=1):
                if step["turn"] == n:
                    out += step_lines(number, step, e is not None and number == e["step"], raw=False)
            flag = label([Ungrounded(reason) for reason in turn["ungrounded"]])
            end = f"answer: {turn['answer']}" if turn["answer"] is not None else f"no final answer ({turn['stop_reason']})"
            out.append("  " + end + (f" ({flag})" if flag else ""))
    return "\n".join(out) + "\n"

