"""Layer 4 · time travel for the typed workflow: `travel_workflow(spec) -> record`, its typed steps as branches.

Read `typed_workflow.py` (the run) and `lllm/timetravel/steps.py` (the engine) first. Every typed
step is a step of the timeline: the goal, each thought, action, observation, final answer or
malformed output (ERROR). Editing one keeps the steps before it and re-runs the rest:

    GOAL         a whole new run for the edited goal
    THOUGHT      the turn keeps its action; the model's next turn sees the new thought
    ACTION       the tool runs again (`calc[6 * 8]`), or it becomes `Final Answer: ...`
    OBSERVATION  what the tool said; the model goes on from there
    FINAL        the answer the run ends with
    ERROR        what the model should have written: `tool[input]` or `Final Answer: ...`

Each edit goes through `timetravel.edited_step`, the ReAct time travel's, and every new typed step
through `TypedTrajectory.append`, so the transition table still holds. Turn t of every branch is
asked of a predictor made fresh for it (`step_brains`), so a replay is exact; branch 1 of a greedy
brain is what `python -m lllm workflow GOAL --predictor BRAIN` prints.

Usage:

    >>> spec = {"version": 2, "demo": "workflow", "inputs": {"goal": "What is 6 times 7?"},
    ...         "edits": [{"parent": 1, "step": 3, "text": "calc[6 * 8]"}]}
    >>> record = travel_workflow(spec)
    >>> [b["answer"] for b in record["branches"]]
    ['42', '48']
    >>> [s["title"] for s in record["branches"][1]["steps"]]
    ['GOAL', 'THOUGHT (turn 1)', 'ACTION (turn 1)', 'OBSERVATION (turn 1)', 'FINAL (turn 2)']
"""

from __future__ import annotations

from typing import Sequence

from lllm.agents.react import Outcome, build_prompt, react_step
from lllm.timetravel.runfile import shown
from lllm.timetravel.steps import steps_trace, travel_steps
from lllm.timetravel.react import edited_step, sampling_text, step_brains
from lllm.agents.tools import DEFAULT_TOOLS, Tool
from lllm.labs.typed_workflow import StepKind, TypedStep, TypedTrajectory, react_steps, typed_steps
from lllm.timetravel.stepspec import check_stepped_spec

__all__ = ["travel_workflow", "workflow_trace_text"]

K = StepKind


def _as_edit(kind: StepKind, text: str) -> dict:
    """A typed step's new text as an edit of the ReAct step behind it (`timetravel.edited_step`)."""
    if kind is K.THOUGHT:
        return {"thought": text}
    if kind is K.OBSERVATION:
        return {"observation": text}
    return {"action": f"Final Answer: {text}" if kind is K.FINAL else text}      # ACTION, ERROR


def _edited(step, kind: StepKind, text: str, number: int, tools, where: str):
    try:
        return edited_step(step, _as_edit(kind, text) | {"step": number}, tools, where)
    except ValueError:          # the one way it fails: an action that is not tool[input] nor an answer
        raise ValueError(f"field {where}.text of step {number} ({kind.name}) must be written tool[input] "
                         f"or 'Final Answer: ...', got {shown(text)}") from None


def _record(typed: TypedStep, turn: int, raw: str | None, prompt: str | None) -> dict:
    """A typed step as the timeline shows it; the model's raw reply sits on the first step of its turn."""
    return {"kind": typed.kind.value, "title": typed.kind.name + (f" (turn {turn})" if turn else ""),
            "fields": {"text": typed.show()}, "editable": ["text"],
            "context": {} if raw is None else {"model's raw reply": raw}, "prompt": prompt}


def simulate(inputs: dict, overrides: dict, where: str = "inputs", models: dict | None = None,
             tools: Sequence[Tool] = DEFAULT_TOOLS) -> dict:
    """One branch: `run_typed`'s loop, with the steps in `overrides` (number -> {"text": ...}) replaced."""
    brain_for = step_brains(inputs["brain"], inputs["seed"], inputs["temperature"], inputs["script"], models)
    goal = " ".join(overrides.get(1, {}).get("text", inputs["goal"]).split())
    if not goal:
        raise ValueError(f"field {where}.text: the goal cannot be empty")
    run = TypedTrajectory().append(TypedStep(K.GOAL, goal))
    steps = [_record(run.steps[0], 0, None, None)]
    for turn in range(1, inputs["max_steps"] + 1):
        prompt = build_prompt(goal, tools, react_steps(run))
        step = react_step(goal, brain_for(turn), tools, react_steps(run))
        position = 0
        while position < len(typed := typed_steps(step)):       # an edit can change what follows in the turn
            number, edit = len(run.steps) + position + 1, overrides.get(len(run.steps) + position + 1)
            if edit is not None:
                step = _edited(step, typed[position].kind, edit["text"], number, tools, where)
            position += 1
        for position, typed_step in enumerate(typed_steps(step)):
            run = run.append(typed_step)
            steps.append(_record(typed_step, turn, None if position else step.raw, prompt))
        if step.outcome in (Outcome.FINAL, Outcome.PREDICTOR_ERROR):
            break
    stop = "final answer" if run.completed else "predictor error" if step.outcome is Outcome.PREDICTOR_ERROR else "max turns"
    return {"steps": steps, "answer": run.answer, "stop_reason": stop}


def travel_workflow(spec: dict, models: dict | None = None, known: dict | None = None) -> dict:
    """The record of a workflow run spec: branch 1 and one recomputed branch per edit."""
    inputs, edits = check_stepped_spec(spec, "workflow")
    return travel_steps("workflow", inputs, edits, lambda i, o, where: simulate(i, o, where, models))


def workflow_trace_text(record: dict) -> str:
    """The run as text, as the page shows it and `python -m lllm replay` prints it."""
    i = record["inputs"]
    return steps_trace(record, [f"typed workflow: {i['goal']}", f"brain {i['brain']}{sampling_text(i)}, max turns {i['max_steps']}"])


if __name__ == "__main__":
    print(workflow_trace_text(travel_workflow({"version": 2, "demo": "workflow", "inputs": {"goal": "What is 17 * 23?"},
                                               "edits": [{"parent": 1, "step": 4, "text": "400"}]})), end="")
