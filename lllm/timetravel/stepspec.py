"""Layer 4 · the labs' stepped run files: `check_stepped_spec(data, demo) -> (inputs, edits)`, each demo's fields.

Read `lllm/timetravel/runfile.py` (the "lllm-run" schema and its generic checks) and
`lllm/timetravel/steps.py` (the engine these demos share) first. Three demos are made of steps:
each step of a branch is a list of named fields, and an edit gives new text for some of those
fields (`{"parent": 1, "step": 3, "answer": "70"}`):

    "workflow"    the typed workflow: inputs as a ReAct run; an edit's field is `text` (the step's
                  goal, thought, action, observation, answer or malformed output)
    "oversight"   human-in-the-loop: inputs as a ReAct run plus `decisions`, the human's decisions in
                  order ("approve", "edit calc[6 * 8]", "inject 40", "skip", "quit"; approve after
                  them); an edit's fields are `thought` and `proposal` (a proposal step) or `decision`
    "debate"      the debate: inputs `question`, `rounds` (1 to 5), `seed`, `brain` ("rule"); an
                  edit's fields are `answer` and `reason` (a debater's turn or the synthesis) or
                  `verdict` (the critic's SCORE lines, the one field that may hold several lines)

This is the labs' knowledge of their own demos; `runfile.py` only checks what every run file
shares, and takes the fields an edit may give from here (`runfile.step_edits`).

Usage:

    >>> check_stepped_spec({"version": 2, "demo": "debate", "inputs": {"question": "What is 48 plus 17?"},
    ...                     "edits": [{"parent": 1, "step": 7, "verdict": "SCORE agent-0: 2/10"}]})[1]
    [{'parent': 1, 'step': 7, 'verdict': 'SCORE agent-0: 2/10'}]
    >>> check_stepped_spec({"version": 2, "demo": "oversight", "inputs": {"goal": "Hi", "decisions": ["dance"]}})
    Traceback (most recent call last):
    ...
    ValueError: field inputs.decisions[0] must be one line starting with one of approve, edit, inject, skip, quit, got 'dance'
"""

from __future__ import annotations

from lllm.timetravel.runfile import (MAX_STEPS_LIMIT, demo_of, int_field, key_name, react_inputs, shown, step_edits,
                                 text_field)

__all__ = ["STEPPED", "MULTILINE", "DECISIONS", "DEBATE_BRAINS", "check_stepped_spec"]

STEPPED = {"workflow": ("text",), "oversight": ("thought", "proposal", "decision"),     # demo -> the fields
           "debate": ("answer", "reason", "verdict")}                                  # an edit may give
MULTILINE = ("verdict",)        # a critic's verdict is one SCORE line per proposal
DECISIONS = ("approve", "edit", "inject", "skip", "quit")      # the overseer's, as `lllm oversee` takes them
DEBATE_BRAINS = ("rule",)       # the stand-ins: the debate's steps run in a moment in the page


def _decisions(value) -> list:
    if not isinstance(value, list) or len(value) > MAX_STEPS_LIMIT:
        raise ValueError(f"field inputs.decisions must be a list of at most {MAX_STEPS_LIMIT} decisions, got {shown(value)}")
    for i, decision in enumerate(value):
        if not isinstance(decision, str) or decision.split(" ", 1)[0] not in DECISIONS or "\n" in decision:
            raise ValueError(f"field inputs.decisions[{i}] must be one line starting with one of {', '.join(DECISIONS)}, "
                             f"got {shown(decision)}")
    return value


def _debate_inputs(data) -> dict:
    if not isinstance(data, dict):
        raise ValueError(f"field inputs must be an object with the question, rounds, seed and brain, got {shown(data)}")
    unknown = sorted(set(data) - {"question", "rounds", "seed", "brain"})
    if unknown:
        raise ValueError(f"field inputs.{key_name(unknown[0])} is not part of a debate's inputs (question, rounds, seed, brain)")
    inputs = {"question": text_field(data.get("question"), "inputs.question"), "rounds": data.get("rounds", 1),
              "seed": data.get("seed", 0), "brain": data.get("brain", "rule")}
    if "\n" in inputs["question"]:
        raise ValueError("field inputs.question must be one line")
    int_field(inputs["rounds"], "inputs.rounds", 1, 5)
    int_field(inputs["seed"], "inputs.seed", 0, 2 ** 31 - 1)
    if inputs["brain"] not in DEBATE_BRAINS:
        raise ValueError(f"field inputs.brain must be one of {', '.join(DEBATE_BRAINS)} for a debate, got {shown(inputs['brain'])}")
    return inputs


def check_stepped_spec(data, demo: str | None = None) -> tuple[dict, list[dict]]:
    """A workflow, oversight or debate run's inputs (defaults filled in) and edits, or ValueError naming the field."""
    found = demo_of(data)
    if found not in tuple(STEPPED) or found != (demo or found):
        raise ValueError(f"field demo must be {demo or ' or '.join(STEPPED)} here, got {shown(data.get('demo'))}")
    demo, raw = found, data.get("inputs")
    if demo == "debate":
        inputs = _debate_inputs(raw)
    else:
        decisions = raw.get("decisions", []) if isinstance(raw, dict) and demo == "oversight" else None
        inputs = react_inputs({k: v for k, v in raw.items() if k != "decisions"} if decisions is not None else raw)
        if "\n" in inputs["goal"]:
            raise ValueError("field inputs.goal must be one line")
        if decisions is not None:
            inputs["decisions"] = _decisions(decisions)
    return inputs, step_edits(data, STEPPED[demo], MULTILINE)
