"""Layer 4 · time travel for any demo made of steps: `travel_steps(demo, inputs, edits, simulate) -> record`.

Read `react.py` (time travel for a ReAct run) and `runfile.py` (the run file) first. The typed
workflow, human-in-the-loop oversight and the debate share this engine; each says only how to run
itself (`simulate`). A *step* is plain data the page draws without knowing the demo:

    {"kind": "proposal", "title": "agent-1, round 0",     what the step is, for the timeline
     "fields": {"answer": "65", "reason": "..."},        what the model (or the human) said
     "editable": ["answer", "reason"],                    which of those fields an edit may change
     "context": {"error": ""}, "prompt": "..." | None}    read-only: what the step saw or caused

`simulate(inputs, overrides, where)` runs the demo from the start and returns
`{"steps": [...], "answer": ..., "stop_reason": ...}`; `overrides` maps a step number to the fields
that replace what that step would have said. A branch is its parent's overrides before the edited
step plus the edit; everything is recomputed from the start. That is exact because each demo asks
the model for step i with a predictor made fresh for that step (`timetravel.step_seed`), so the
steps before the edit come back as they were, character for character.

Usage:

    >>> def count(inputs, overrides, where="run"):
    ...     steps, n = [], inputs["start"]
    ...     for i in range(1, 4):
    ...         n = int(overrides.get(i, {}).get("n", n + 1))
    ...         steps.append({"kind": "count", "title": f"count {i}", "fields": {"n": str(n)},
    ...                       "editable": ["n"], "context": {}, "prompt": None})
    ...     return {"steps": steps, "answer": str(n), "stop_reason": "done"}
    >>> record = travel_steps("count", {"start": 0}, [{"parent": 1, "step": 2, "n": "10"}], count)
    >>> [b["answer"] for b in record["branches"]], first_difference(*record["branches"])
    (['3', '11'], 2)
"""

from __future__ import annotations

from typing import Callable, Sequence

from lllm.timetravel.runfile import first_difference as parted, run_record

__all__ = ["travel_steps", "first_difference", "steps_trace"]


# ---- the tree: branch 1, then one branch per edit ------------------------------------------------

def _overrides(parent: dict, overrides: dict, edit: dict, where: str) -> dict:
    """The edited branch's overrides: the parent's before the step, then the edited step's fields."""
    k, steps = edit["step"], parent["steps"]
    if k > len(steps):
        raise ValueError(f"field {where}.step is {k}, but branch {edit['parent']} has {len(steps)} step(s)")
    step = steps[k - 1]
    changed = {name: value for name, value in edit.items() if name not in ("parent", "step")}
    fixed = sorted(set(changed) - set(step["editable"]))
    if fixed:
        can = ", ".join(step["editable"]) or "nothing (it is read-only)"
        raise ValueError(f"field {where}.{fixed[0]} cannot be edited on step {k} ({step['title']}); it can edit {can}")
    return {i: o for i, o in overrides.items() if i < k} | {k: step["fields"] | changed}


def travel_steps(demo: str, inputs: dict, edits: Sequence[dict], simulate: Callable) -> dict:
    """The record of a stepped run: branch 1 (no overrides) and one recomputed branch per edit."""
    branches, overrides = [simulate(inputs, {}, "inputs")], [{}]
    for i, edit in enumerate(edits):
        parent = edit["parent"] - 1
        overrides.append(_overrides(branches[parent], overrides[parent], edit, f"edits[{i}]"))
        branches.append(simulate(inputs, overrides[-1], f"edits[{i}]"))
    return run_record(demo, inputs, list(edits), branches)


# ---- comparing ----------------------------------------------------------------------------------

def _shown(step: dict) -> tuple:
    """What a comparison looks at: everything but the prompt (it repeats earlier steps)."""
    return step["kind"], step["title"], step["fields"], step["context"]


def first_difference(a: dict, b: dict) -> int | None:
    """The first step (1-based) where two recorded branches differ, or None when they are the same."""
    return parted(a["steps"], b["steps"], _shown)




# ---- the trace both the page and `python -m lllm replay` print -------------------------------------

def _edit_text(edit: dict) -> str:
    changed = ", ".join(f"{k}: {v!r}" for k, v in edit.items() if k not in ("parent", "step"))
    return f"from branch {edit['parent']}, step {edit['step']} edited ({changed})"


def _lines(label: str, text: str) -> list[str]:
    first, *rest = (text if text != "" else "(empty)").splitlines() or [""]
    return [f"    {label}: {first}"] + [f"      {line}" for line in rest]


def steps_trace(record: dict, header: Sequence[str]) -> str:
    """The run as text: `header` (the demo's inputs), then each branch's steps and its end."""
    out = list(header)
    for b in record["branches"]:
        out.append("== branch 1: the run" if b["edit"] is None else f"== branch {b['id']}: {_edit_text(b['edit'])}")
        edited = b["edit"]["step"] if b["edit"] else None
        for n, step in enumerate(b["steps"], start=1):
            out.append(f"  step {n}: {step['title']}" + (" (edited)" if n == edited else ""))
            for label, text in list(step["fields"].items()) + list(step["context"].items()):
                out += _lines(label, text)
        answer = f"answer: {b['answer']}" if b["answer"] is not None else "no answer"
        out.append(f"{answer} ({b['stop_reason']})")
    return "\n".join(out) + "\n"
