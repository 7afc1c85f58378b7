"""Layer 4 · the native runtime's run files: `check_native_spec(data) -> (demo, inputs, edits)`, and the per-call predictor.

Read `lllm/timetravel/runfile.py` (the "lllm-run" schema) and `lllm/timetravel/react.py` (a fresh
predictor per step) first; `native_agent.py` (an Agent's run) and `tactic.py` (a Tactic's)
next. A native run file is version 2 of the same schema, with `demo` "native-agent" or
"native-tactic":

    {"schema": "lllm-run", "version": 2, "demo": "native-agent",
     "inputs": {"goal": "What is 17 * 23?",        the user's message (native-tactic: "task", the question)
                "system": "You answer ...",        the Agent's system prompt (native-agent only)
                "brain": "scripted",               rule | tinyllm | tinyllm-agent | scripted | echo
                "seed": 0, "temperature": 0.8,     tinyllm only: how the story model samples
                "max_steps": 3,                    native-agent only: tool rounds (max_interrupt_steps), 1 to 5
                "script": "Action: calc[17 * 23]\\n---\\nIt is 391."},   the scripted replies, blocks between --- lines
     "edits": [{"parent": 1, "step": 4, "content": "400"}],   branch 2, 3, ... in order
     "branches": [...]}                                        what was computed (the export has it; a link does not)

An Agent run's steps are the messages of its dialog (system, user, assistant, tool); an edit
replaces message `step`'s `content` (for the model's reply: the text as the model writes it,
`Action: calc[...]` lines included). A Tactic run's steps are its agents' model calls; an edit
replaces call `step`'s `reply`, or gives a new `task` alone with step 1 (a whole new run). Anything
else is refused with one sentence naming the field.

Every model call i of a branch (counted from 1 across the branch) is answered by the seam (`seam.Seam`):
the parent branch's recorded text when the call is kept, the edit, or a predictor made fresh for
that call by `step_brains` (the story model seeded with `step_seed(seed, i)`) — so a replay is exact.

Usage:

    >>> demo, inputs, edits = check_native_spec({"version": 2, "demo": "native-agent",
    ...                                          "inputs": {"goal": "What is 17 * 23?"}})
    >>> demo, inputs["brain"], inputs["max_steps"], edits
    ('native-agent', 'scripted', 3, [])
    >>> check_native_spec({"version": 2, "demo": "native-tactic", "inputs": {"task": "Hi"},
    ...                    "edits": [{"parent": 1, "step": 2}]})
    Traceback (most recent call last):
    ...
    ValueError: field edits[0] changes nothing: give it a reply, or a task alone with step 1
"""

from __future__ import annotations

from lllm.timetravel.runfile import (LATEST, MAX_SCRIPT, check_sampling, demo_of, edit_changes, edits_and_branches, int_field,
                                 key_name, shown, text_field)
from lllm.agents.tools import DEFAULT_TOOLS
from lllm.timetravel.seam import EDIT, RECORDED, Seam
from lllm.predictors.specs import parse_script
from lllm.runtimes.native.core.tools import Function

__all__ = ["NATIVE_DEMOS", "SYSTEM", "SCRIPTS", "MAX_NEW_TOKENS", "check_native_spec", "native_tools", "call_records"]

NATIVE_DEMOS = ("native-agent", "native-tactic")
SYSTEM = "You answer questions. Use a tool when it helps."
SCRIPTS = {  # the pages' default brain: scripted replies, as the Agent page's first cell
    "native-agent": "Action: calc[17 * 23]\n---\nIt is 391.",
    "native-tactic": "Action: calc[17 * 23]\n---\nIt is 391.\n---\n17 groups of 23 make 391.",
}
MAX_NEW_TOKENS = 80             # as the Agent page's TinyLLM cell
MAX_TOOL_ROUNDS = 5
EDIT_FIELDS = {"native-agent": ("content",), "native-tactic": ("reply", "task")}


# ---- checking a spec ------------------------------------------------------------------------------

def _inputs(demo: str, data) -> dict:
    goal = "goal" if demo == "native-agent" else "task"
    defaults = {"brain": "scripted", "seed": 0, "temperature": 0.8, "script": SCRIPTS[demo]}
    defaults |= {"system": SYSTEM, "max_steps": 3} if demo == "native-agent" else {}
    if not isinstance(data, dict):
        raise ValueError(f"field inputs must be an object with the {goal}, brain, seed..., got {shown(data)}")
    unknown = sorted(set(data) - {goal, *defaults})
    if unknown:
        raise ValueError(f"field inputs.{key_name(unknown[0])} is not part of a {demo} run's inputs")
    inputs = check_sampling({goal: text_field(data.get(goal), f"inputs.{goal}")} | {k: data.get(k, v) for k, v in defaults.items()})
    if "max_steps" in inputs:
        int_field(inputs["max_steps"], "inputs.max_steps", 1, MAX_TOOL_ROUNDS)
        text_field(inputs["system"], "inputs.system", limit=MAX_SCRIPT)
    if inputs["brain"] == "scripted" and not parse_script(text_field(inputs["script"], "inputs.script", empty_ok=True,
                                                                     limit=MAX_SCRIPT)):
        raise ValueError("field inputs.script must hold at least one reply when inputs.brain is scripted")
    return inputs


def _edit(demo: str, data, i: int) -> dict:
    name, fields = f"edits[{i}]", EDIT_FIELDS[demo]
    changed = edit_changes(data, i, fields, 1000, here="")
    if not changed:
        raise ValueError(f"field {name} changes nothing: give it a "
                         + ("content" if demo == "native-agent" else "reply, or a task alone with step 1"))
    if "task" in data and (len(changed) > 1 or data["step"] != 1):
        raise ValueError(f"field {name}.task starts a whole new run: give it alone, with step 1")
    for k in changed:
        text_field(data[k], f"{name}.{k}", empty_ok=k != "task", limit=MAX_SCRIPT)
    return {k: data[k] for k in ("parent", "step", *fields) if k in data}


def check_native_spec(data) -> tuple[str, dict, list[dict]]:
    """The demo, the inputs (defaults filled in) and the edits of a native run spec, or ValueError naming the field."""
    demo = demo_of(data)
    if demo not in NATIVE_DEMOS:
        raise ValueError(f"field demo must be one of {', '.join(NATIVE_DEMOS)} for a native run, got {shown(demo)}")
    edits = edits_and_branches(data)
    return demo, _inputs(demo, data.get("inputs")), [_edit(demo, e, i) for i, e in enumerate(edits)]


# ---- the tools and the predictor every branch uses ----------------------------------------------------

def native_tools() -> list[Function]:
    """The ReAct pages' tools (calc, lookup) as native Functions of one text argument."""
    return [Function(t.name, t.description, {"input": {"type": "string"}}, ["input"],
                     function=lambda input, fn=t.fn: fn(input)) for t in DEFAULT_TOOLS]


SOURCES = {EDIT: "edited", RECORDED: "kept"}      # a native step's `source`: who answered its call (else "model")


def call_records(seam: Seam) -> list[dict]:
    """The seam's model calls as a native run's steps hold them: the call's index, prompt, raw text and source."""
    return [{"call": c.number, "prompt": c.asked, "raw": c.said, "source": SOURCES.get(c.who, "model")} for c in seam.calls]


if __name__ == "__main__":
    print(check_native_spec({"version": LATEST, "demo": "native-agent", "inputs": {"goal": "What is 17 * 23?"}}))
