"""Layer 4 · time travel for a ReAct run: `travel(spec) -> record`, a tree of branches recomputed from inputs and edits.

Read `lllm/agents/react.py` first: this module drives its public step (`react_step`, `act`) and changes none of
it. A *run spec* is what a re-run needs — the inputs (goal, brain, seed, temperature, max steps,
script) and a list of *edits*. Branch 1 is the run itself; each edit makes one more branch: it takes
an earlier branch (`parent`), keeps its steps before `step` unchanged, replaces the thought, the
action or the observation of step `step` (or the goal: a whole new run; or a `prefix`, the first
characters of that step's model output, after which the model writes on: `prefixed`), and lets the
model go on from there. `travel` returns the *record*: the spec plus every branch's steps (the prompt each step
saw, the raw output, what was parsed, the tool call, the observation), which `trace_text` prints —
the page shows that text and `python -m lllm replay RUN.json` prints it too.

Determinism, exactly: step i (counted from 1) of any branch is asked of a predictor made fresh for
that step. The story model (`tinyllm`, the one brain that samples) is seeded with
`step_seed(seed, i) = (seed * 1000 + i) mod 2**32`, so a step's text depends only on its prompt, the
seed and its index — never on what an edited branch did before it; replaying a branch gives the
same text character for character. Scripted replies are per step too: step i gets reply i
(cycling). The greedy brains (rule, echo, the agent-tuned TinyLLM) need no seed. So branch 1 of a
greedy brain is exactly what `python -m lllm react GOAL --predictor BRAIN` prints; for the story
model it differs from `react --seed` (which carries one random stream across steps).

The run file (`record_json`) is versioned: `schema` "lllm-run", `version` 1 (see `runfile.py`).

Usage:

    >>> spec = {"inputs": {"goal": "What is 6 times 7?", "brain": "rule"},
    ...         "edits": [{"parent": 1, "step": 1, "observation": "40"}]}
    >>> record = travel(spec)
    >>> [b["answer"] for b in record["branches"]]
    ['42', '40']
    >>> first_difference(record["branches"][0], record["branches"][1])
    1
    >>> [line for line in trace_text(record).splitlines() if line.startswith("==")]
    ['== branch 1: the run', '== branch 2: from branch 1, step 1 edited (observation: "40")']
"""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from typing import Callable, Sequence

from lllm.agents.react import (FORCED_RE, Outcome, Step, Trajectory, act, build_prompt, grounding, parse_final,
                               react_step)
from lllm.agents.grounding import Ungrounded, label
from lllm.timetravel.runfile import SCHEMA, VERSION, check_spec, shown
from lllm.timetravel.runfile import first_difference as parted
from lllm.agents.tools import DEFAULT_TOOLS, Tool
from lllm.predictors.contract import ScriptedPredictor
from lllm.predictors.specs import make_predictor, parse_script

__all__ = ["step_seed", "step_brains", "timed", "go_on", "first_run", "edited_step", "branch", "travel", "first_difference",
           "trace_text", "trajectory_of", "sampling_text", "step_lines"]


# ---- a fresh predictor per step: the rule that makes a replay exact ------------------------------

SAMPLING = ("tinyllm", "tinygpt", "tinyllm-yours")     # the brains that sample, seeded per step

def step_seed(seed: int, index: int) -> int:
    """The sampling seed of step `index` (1-based) of every branch of a run with `seed`."""
    return (seed * 1000 + index) % 2 ** 32


def step_brains(brain: str, seed: int = 0, temperature: float = 0.8, script: str = "",
                models: dict | None = None) -> Callable[[int], object]:
    """`brain_for(i)`: the predictor that writes step i. Greedy brains are one object (they carry
    no state between calls); the story model is made fresh with `step_seed`; a script starts at reply i."""
    if brain == "scripted":
        replies = parse_script(script)
        if not replies:
            raise ValueError("the script has no replies: write one reply per block, blocks separated by --- lines")
        return lambda i: ScriptedPredictor(replies[(i - 1) % len(replies):] + replies[:(i - 1) % len(replies)], cycle=True)
    if brain in SAMPLING:             # the story model, TinyGPT, and one trained in the tab
        fresh = lambda i: make_predictor(brain, temperature=temperature, seed=step_seed(seed, i), models=models)  # noqa: E731
        if brain == "tinyllm-yours":      # only the page that trained it holds it: elsewhere, one sentence before any step
            fresh(1)
        return fresh
    greedy = make_predictor(brain, models=models)      # rule, echo, tinyllm-agent (temperature 0)
    return lambda i: greedy


# ---- the loop, from any prefix -------------------------------------------------------------------

def _stopped(trajectory: Trajectory) -> Trajectory:
    """Set answer and stop reason from the last step, as `run_react` does."""
    last = trajectory.steps[-1] if trajectory.steps else None
    if last is not None and last.outcome is Outcome.FINAL:
        trajectory.answer, trajectory.stop_reason = last.final, "final answer"
    elif last is not None and last.outcome is Outcome.PREDICTOR_ERROR:
        trajectory.stop_reason = "predictor error"
    return trajectory


# --8<-- [start:go-on]
def go_on(goal: str, steps: Sequence[Step], brain_for, tools: Sequence[Tool], max_steps: int,
          extra_context: str | None = None) -> Trajectory:
    """The ReAct loop (think, act, observe) continued after `steps`, which stay as they are."""
    trajectory = _stopped(Trajectory(goal=goal, steps=list(steps)))
    while len(trajectory.steps) < max_steps and not trajectory.stop_reason:
        index = len(trajectory.steps) + 1
        trajectory.steps.append(react_step(goal, brain_for(index), tools, trajectory.steps, extra_context))
        _stopped(trajectory)
    trajectory.stop_reason = trajectory.stop_reason or "max steps"
    return trajectory
# --8<-- [end:go-on]


def first_run(goal: str, brain_for, tools: Sequence[Tool] = DEFAULT_TOOLS, max_steps: int = 5,
              extra_context: str | None = None) -> Trajectory:
    """Branch 1: a whole run. A goal written as `tool[args]` is run once first (forced), as run_react does;
    `extra_context` (a memory block) goes into every prompt."""
    forced = FORCED_RE.fullmatch(goal)
    steps = []
    if forced and forced.group(1) in {t.name for t in tools}:
        steps.append(act(Step(action=(forced.group(1), forced.group(2).strip()), forced=True), tools))
    return go_on(goal, steps, brain_for, tools, max_steps, extra_context)


# ---- an edit: a new branch from a step of an earlier one -----------------------------------------

def edited_step(step: Step, edit: dict, tools: Sequence[Tool], where: str = "edit") -> Step:
    """`step` with the edit applied: the thought, then the action (its tool runs again, or it becomes
    a final answer), then the observation. The raw output and the prompt stay what the model saw."""
    if "thought" in edit:
        step = replace(step, thought=" ".join(edit["thought"].split()) or None)
    if "action" in edit:
        text, final = edit["action"].strip(), parse_final(edit["action"])
        call = FORCED_RE.fullmatch(text)
        if text.startswith("Final Answer:") and final is not None:
            step = replace(step, action=None, final=final, observation=None, outcome=Outcome.FINAL)
        elif call:
            step = act(replace(step, action=(call.group(1), call.group(2).strip()), final=None), tools)
        else:
            raise ValueError(f"{where}.action must be written as tool[input] or 'Final Answer: ...', got {shown(text)}")
    if "observation" in edit:
        if step.outcome in (Outcome.FINAL, Outcome.PREDICTOR_ERROR):
            raise ValueError(f"{where}.observation: step {edit['step']} has no observation to edit "
                             f"(it is a {step.outcome.value}); edit its action instead")
        step = replace(step, observation=" ".join(edit["observation"].split()))
    return step


def prefixed(brain_for, k: int, prefix: str):
    """`brain_for`, except that step k's output begins with `prefix` and the model writes on after it
    (reading the prompt and the prefix, with step k's seed)."""
    def for_step(i: int):
        model = brain_for(i)
        if i != k:
            return model

        def write(prompt: str, max_new_tokens: int | None = None):
            rest = model(prompt + prefix, None if max_new_tokens is None else max(1, max_new_tokens - len(prefix)))
            return prefix + rest if isinstance(rest, str) else rest
        return write
    return for_step


# --8<-- [start:branch]
def branch(parent: Trajectory, edit: dict, brain_for, tools: Sequence[Tool] = DEFAULT_TOOLS,
           max_steps: int = 5, where: str = "edit") -> Trajectory:
    """A new branch: `parent`'s steps before `edit["step"]` unchanged, that step edited, then the model
    again (`brain_for`: the branch's brain). An edit that only names a brain keeps the steps before
    `step` and lets that brain write from `step` on."""
    if "goal" in edit:
        return first_run(edit["goal"], brain_for, tools, max_steps)
    k = edit["step"]
    if k > len(parent.steps) + (set(edit) == {"parent", "step", "brain"}):
        raise ValueError(f"{where}.step is {k}, but branch {edit['parent']} has {len(parent.steps)} step(s)")
    if set(edit) == {"parent", "step", "brain"}:
        return go_on(parent.goal, parent.steps[:k - 1], brain_for, tools, max_steps)
    if "prefix" in edit:              # the step's model output starts with the prefix; the model writes on
        written = prefixed(brain_for, k, edit["prefix"])
        return go_on(parent.goal, parent.steps[:k - 1], written, tools, max_steps)
    steps = parent.steps[:k - 1] + [edited_step(parent.steps[k - 1], edit, tools, where)]
    return go_on(parent.goal, steps, brain_for, tools, max_steps)
# --8<-- [end:branch]


# ---- the whole tree, as data ---------------------------------------------------------------------

def step_record(step: Step, prompt: str | None) -> dict:
    """One step as the record keeps it: the Step's fields and the whole prompt it saw (None when forced)."""
    return asdict(step) | {"action": list(step.action) if step.action else None,     # as JSON has it
                           "outcome": step.outcome.value if step.outcome else None, "prompt": prompt}


def branch_record(number: int, edit: dict | None, trajectory: Trajectory, tools: Sequence[Tool]) -> dict:
    prompts = [None if s.forced else build_prompt(trajectory.goal, tools, trajectory.steps[:i])
               for i, s in enumerate(trajectory.steps)]
    return {"id": number, "parent": edit["parent"] if edit else None, "edit": edit, "goal": trajectory.goal,
            "steps": [step_record(s, p) for s, p in zip(trajectory.steps, prompts)],
            "answer": trajectory.answer, "stop_reason": trajectory.stop_reason,
            "ungrounded": [reason.value for reason in grounding(trajectory)]}


def trajectory_of(branch_dict: dict) -> Trajectory:
    """A recorded branch back as a Trajectory (the record's steps hold every field of Step)."""
    fields = set(Step.__dataclass_fields__)
    steps = [Step(**{k: v for k, v in s.items() if k in fields} | {
        "action": tuple(s["action"]) if s["action"] else None,
        "outcome": Outcome(s["outcome"]) if s["outcome"] else None}) for s in branch_dict["steps"]]
    return Trajectory(goal=branch_dict["goal"], steps=steps, answer=branch_dict["answer"],
                      stop_reason=branch_dict["stop_reason"])


def timed(brain_for, branch: int, timings: dict):
    """`brain_for`, each model call's milliseconds kept in timings[(branch, step)] (the run's timeline)."""
    def for_step(i: int):
        model = brain_for(i)

        def call(prompt: str, max_new_tokens: int | None = None):
            start = time.perf_counter()
            try:
                return model(prompt, max_new_tokens)
            finally:
                timings[(branch, i)] = round((time.perf_counter() - start) * 1000, 1)
        return call
    return for_step


def travel(spec: dict, models: dict | None = None, known: dict | None = None,
           tools: Sequence[Tool] = DEFAULT_TOOLS, timings: dict | None = None) -> dict:
    """The record of a run spec: every branch computed from the inputs and the edits. Branches of
    `known` (an earlier record with the same inputs and the same first edits) are reused, not re-run.
    `timings`, when given, gets each model call's milliseconds by (branch, step): kept apart from the
    record, which holds only what a replay recomputes exactly."""
    inputs, edits = check_spec(spec)
    brains = [inputs["brain"]]                      # each branch's brain: its edit's, else its parent's
    for edit in edits:
        brains.append(edit.get("brain", brains[edit["parent"] - 1]))
    made = {}

    def brain_for_branch(number: int):
        name = brains[number - 1]
        if name not in made:
            made[name] = step_brains(name, inputs["seed"], inputs["temperature"], inputs["script"], models)
        return made[name] if timings is None else timed(made[name], number, timings)
    reusable = 0
    if known and known.get("inputs") == inputs:
        old = known.get("edits", [])
        while reusable < min(len(old), len(edits)) and old[reusable] == edits[reusable]:
            reusable += 1
        reusable += 1                                   # branch 1 needs no edit
    branches = [trajectory_of(b) for b in (known or {}).get("branches", [])[:reusable]]
    if not branches:
        branches.append(first_run(inputs["goal"], brain_for_branch(1), tools, inputs["max_steps"]))
    for i, edit in enumerate(edits[len(branches) - 1:], start=len(branches) - 1):
        branches.append(branch(branches[edit["parent"] - 1], edit, brain_for_branch(i + 2), tools, inputs["max_steps"],
                               f"edits[{i}]"))
    records = [branch_record(n, edits[n - 2] if n > 1 else None, t, tools) for n, t in enumerate(branches, start=1)]
    for record, brain in zip(records, brains):
        if brain != inputs["brain"]:                # only where it differs, so files without a swap are unchanged
            record["brain"] = brain
    return {"schema": SCHEMA, "version": VERSION, "inputs": inputs, "edits": edits, "branches": records}


# ---- comparing, and the trace both the page and the terminal print ----------------------------------

STEP_KEYS = ("raw", "thought", "action", "final", "observation", "forced", "outcome")


def first_difference(a: dict, b: dict) -> int | None:
    """The first step (1-based) where two recorded branches differ, or None when they are the same (a
    different goal parts them at step 1)."""
    if a["goal"] != b["goal"] and (a["steps"] or b["steps"]):
        return 1
    return parted(a["steps"], b["steps"], lambda step: [step[k] for k in STEP_KEYS])


def _edit_text(edit: dict) -> str:
    if set(edit) == {"parent", "step", "brain"}:
        return f"from branch {edit['parent']}, {edit['brain']} writes from step {edit['step']} on"
    changed = ", ".join(f'{k}: {edit[k]!r}' if k == "prefix" else f'{k}: "{edit[k]}"'
                        for k in ("goal", "thought", "action", "observation", "prefix", "brain") if k in edit)
    where = "the goal edited" if "goal" in edit else f"step {edit['step']} edited"
    return f"from branch {edit['parent']}, {where} ({changed})"


def sampling_text(inputs: dict, sampled: Sequence[str] = ("tinyllm",)) -> str:
    """A trace's words for how its brain samples (temperature and seed), when the brain is one of `sampled`."""
    return f", temperature {inputs['temperature']}, seed {inputs['seed']}" if inputs["brain"] in sampled else ""


def step_lines(number: int, step: dict, edited: bool, raw: bool = True) -> list[str]:
    """A ReAct step's lines in a trace (a memory session's too; `raw`: a repair shows what the model wrote)."""
    lines = [f"Thought: {step['thought']}"] if step["thought"] else []
    if step["action"]:
        lines.append(f"Action: {step['action'][0]}[{step['action'][1]}]")
    if step["final"] is not None:
        lines.append(f"Final Answer: {step['final']}")
    if step["observation"] is not None:
        lines.append(f"Observation: {step['observation']}")
    if raw and step["outcome"] == Outcome.REPAIR.value and step["raw"].strip():
        lines.insert(0, f"(raw: {step['raw']!r})")        # what the model wrote that parsed as nothing
    mark = "forced" if step["forced"] else "edited" if edited else step["outcome"]
    head = f"  step {number} ({mark})"
    return [head] + [f"    {line}" for line in lines or ["(nothing)"]]


def trace_text(record: dict) -> str:
    """The run as text: the inputs, then each branch's steps, its end and where it came from. The
    page shows exactly this, and `python -m lllm replay RUN.json` prints it."""
    i = record["inputs"]
    out = [f"run: {i['goal']}", f"brain {i['brain']}{sampling_text(i, SAMPLING)}, max steps {i['max_steps']}"]
    for b in record["branches"]:
        out.append("== branch 1: the run" if b["edit"] is None else f"== branch {b['id']}: {_edit_text(b['edit'])}")
        out.append(f"Question: {b['goal']}")
        edited = b["edit"]["step"] if b["edit"] and not {"goal", "brain", "prefix"} & set(b["edit"]) else None
        for n, step in enumerate(b["steps"], start=1):
            out.extend(step_lines(n, step, n == edited))
        flag = label([Ungrounded(reason) for reason in b["ungrounded"]])
        end = f"answer: {b['answer']}" if b["answer"] is not None else f"no final answer ({b['stop_reason']})"
        out.append(end + (f" ({flag})" if flag else ""))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(trace_text(travel({"inputs": {"goal": "What is 17 * 23?", "brain": "rule"},
                             "edits": [{"parent": 1, "step": 1, "observation": "400"}]})), end="")
