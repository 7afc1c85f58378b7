"""Layer 4 · the run file: `check_spec(data) -> (inputs, edits)`, the versioned schema of a time-travel run, checked.

Read `react.py` for what a run spec means. A run file (what the page exports, what
`python -m lllm replay` reads) and a run link (the page's URL fragment) carry the same JSON:

    {"schema": "lllm-run", "version": 1,
     "inputs": {"goal": "What is 17 * 23?",      a question, or a tool call such as calc[2 + 2]
                "brain": "tinyllm-agent",         rule | tinyllm | tinyllm-agent | tinygpt | scripted | echo | tinyllm-yours
                "seed": 0,                        integer >= 0; only tinyllm, tinygpt and tinyllm-yours sample
                "temperature": 0.8,               0 to 5; those three only
                "max_steps": 5,                   1 to 10
                "script": ""},                    the scripted replies, blocks between --- lines
     "edits": [{"parent": 1, "step": 1, "observation": "400"}],   branch 2, 3, ... in order
     "branches": [...]}                           what was computed (the export has it; a link does not)

An edit names an earlier branch (`parent`, 1 = the run), a step of it (`step`, from 1), and one or
more of `thought`, `action` (`tool[input]` or `Final Answer: ...`), `observation`; or only a new
`goal` (then `step` is 1: a whole new run); or a `prefix`, the first characters of that step's model
output (the step's model writes on from them; with a brain, that brain); or a `brain` (one of BRAINS): alone, the steps before
`step` are kept and that brain writes from `step` on; beside an edit, it writes after the edited
step. A branch that names no brain has its parent's. Only `inputs.goal` is required; the
rest have the defaults above. Anything else is refused with one sentence naming the field, so
a malformed file or link changes nothing.

Version 2 adds one field, `demo`: "react" (the run above) or "memory" (the memory explainer's
session, read by `check_memory_spec`: `inputs.goals`, a list of goals run in turn with memory
injected, instead of `inputs.goal`; an edit names a step counted across the whole session and
cannot change a goal), or another demo's name. Which names a file may give is not this module's to
know: the caller that dispatches on it passes them (`demo_of(data, names)`; the one table of demos is
in the labs, `lllm/timetravel/demos.py`), and each demo's own checker reads its inputs and
edits with the helpers here (`react_inputs`, `check_sampling`, `edit_changes`, `step_edits`, `edits_and_branches`)
and writes its record with `run_record`. The native runtime's runs ("native-agent",
"native-tactic") are read by `lllm/timetravel/native_spec.py`. Version 1 files have no `demo`
field and are ReAct runs; they stay valid.

Usage:

    >>> check_spec({"inputs": {"goal": "Who is Pip?"}})[0]
    {'goal': 'Who is Pip?', 'brain': 'rule', 'seed': 0, 'temperature': 0.8, 'max_steps': 5, 'script': ''}
    >>> check_spec({"schema": "lllm-run", "version": 1, "inputs": {"goal": "Who is Pip?", "seed": -1}})
    Traceback (most recent call last):
    ...
    ValueError: field inputs.seed must be an integer >= 0, got -1
    >>> check_memory_spec({"version": 2, "demo": "memory", "inputs": {"goals": ["What is 2 + 2?"]}})[0]["goals"]
    ['What is 2 + 2?']
"""

from __future__ import annotations

import json
import reprlib

__all__ = ["SCHEMA", "VERSION", "LATEST", "BRAINS", "MAX_STEPS_LIMIT", "MAX_STEP_NUMBER", "MAX_EDITS", "EDIT_FIELDS",
           "MAX_TEXT", "MAX_SCRIPT", "MAX_FILE_BYTES", "demo_of", "int_field", "text_field", "shown", "key_name",
           "check_sampling", "react_inputs", "edits_and_branches", "edit_changes", "step_edits", "run_record", "check_spec",
           "check_memory_spec", "first_difference", "differing_branch"]

SCHEMA, VERSION = "lllm-run", 1
LATEST = 2                      # version 2 = version 1 + the `demo` field
MAX_STEP_NUMBER = 40            # a branch made of steps (lllm/timetravel/steps.py): the most steps an edit may name
MAX_GOALS = 8                   # a memory session: a few goals, as the page's demo
BRAINS = ("rule", "tinyllm", "tinyllm-agent", "tinygpt", "scripted", "echo", "tinyllm-yours")   # -yours: trained in a tab
MAX_STEPS_LIMIT = 10            # as the page's demos: a typo must not start a long run
MAX_EDITS = 50                  # a link or file cannot ask for an endless tree
EDIT_FIELDS = ("goal", "thought", "action", "observation")
MAX_TEXT = 2_000                # characters in a goal or an edited field: bounded before any work
MAX_SCRIPT = 20_000             # characters in a script or a system prompt (many lines)
MAX_FILE_BYTES = 8 * 2 ** 20    # a run file: 50 edits of 10 steps, each with its prompt, fit in 2 MB
_SHOWN = reprlib.Repr()        # Python 3.11's Repr takes no arguments: its limits are set below
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlist, _SHOWN.maxdict, _SHOWN.maxlong = 2, 40, 40, 3, 3, 40
DEFAULTS = {"brain": "rule", "seed": 0, "temperature": 0.8, "max_steps": 5, "script": ""}


def int_field(value, name: str, low: int, high: int) -> int:
    """`value` if it is an integer in [low, high], else one sentence naming the field."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        bounds = f">= {low}" if high >= 2 ** 31 else f"between {low} and {high}"
        raise ValueError(f"field {name} must be an integer {bounds}, got {shown(value)}")
    return value


def shown(value) -> str:
    """`value` as an error message quotes it: a few dozen characters at most, however large or deep it is."""
    text = _SHOWN.repr(value)
    return text if not isinstance(value, (str, list, dict)) or len(value) < 40 else f"{text} ({len(value):,} long)"


def key_name(key: str) -> str:
    """An unknown key as an error message names it: the first few dozen characters."""
    return key if len(key) <= 40 else f"{key[:37]}..."


def text_field(value, name: str, empty_ok: bool = False, limit: int = MAX_TEXT) -> str:
    """`value` if it is text (non-empty unless `empty_ok`) of at most `limit` characters, else one sentence naming the field."""
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise ValueError(f"field {name} must be {'text' if empty_ok else 'non-empty text'}, got {shown(value)}")
    if len(value) > limit:
        raise ValueError(f"field {name} is {len(value):,} characters long; a run allows at most {limit:,}")
    return value


def check_sampling(inputs: dict) -> dict:
    """`inputs` if its brain, seed and temperature are ones a run takes, else one sentence naming the field."""
    if inputs["brain"] not in BRAINS:
        raise ValueError(f"field inputs.brain must be one of {', '.join(BRAINS)}, got {shown(inputs['brain'])}")
    int_field(inputs["seed"], "inputs.seed", 0, 2 ** 32 - 1)
    t = inputs["temperature"]
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 5:
        raise ValueError(f"field inputs.temperature must be a number between 0 and 5, got {shown(t)}")
    return inputs


def react_inputs(data) -> dict:
    """A ReAct run's inputs (goal, brain, seed, temperature, max_steps, script; defaults filled in), or ValueError."""
    if not isinstance(data, dict):
        raise ValueError(f"field inputs must be an object with the goal, brain, seed..., got {shown(data)}")
    unknown = sorted(set(data) - {"goal", *DEFAULTS})
    if unknown:
        raise ValueError(f"field inputs.{key_name(unknown[0])} is not part of a run's inputs (version {VERSION})")
    inputs = check_sampling({"goal": text_field(data.get("goal"), "inputs.goal")}
                            | {k: data.get(k, v) for k, v in DEFAULTS.items()})
    int_field(inputs["max_steps"], "inputs.max_steps", 1, MAX_STEPS_LIMIT)
    text_field(inputs["script"], "inputs.script", empty_ok=True, limit=MAX_SCRIPT)
    return inputs


def _edit(data, i: int) -> dict:
    name = f"edits[{i}]"
    if not isinstance(data, dict):
        raise ValueError(f"field {name} must be an object like {{\"parent\": 1, \"step\": 1, \"observation\": \"...\"}}")
    unknown = sorted(set(data) - {"parent", "step", "brain", "prefix", *EDIT_FIELDS})
    if unknown:
        raise ValueError(f"field {name}.{key_name(unknown[0])} is not something an edit can change "
                         f"({', '.join(EDIT_FIELDS)}, prefix, brain)")
    int_field(data.get("parent"), f"{name}.parent", 1, i + 1)    # branch i + 2 may start from branches 1 .. i + 1
    int_field(data.get("step"), f"{name}.step", 1, MAX_STEPS_LIMIT)
    changed = [k for k in EDIT_FIELDS if k in data]
    if "prefix" in data:
        text_field(data["prefix"], f"{name}.prefix")
        if changed:
            raise ValueError(f"field {name}.prefix rewrites the model's output from its start: give it alone (or with a brain), "
                             f"not with {changed[0]}")
    elif not changed and "brain" not in data:
        raise ValueError(f"field {name} changes nothing: give it a thought, an action, an observation, a goal, a prefix or a brain")
    if "goal" in data and (len(changed) > 1 or data["step"] != 1 or "brain" in data):
        raise ValueError(f"field {name}.goal starts a whole new run: give it alone, with step 1")
    if "brain" in data and data["brain"] not in BRAINS:
        raise ValueError(f"field {name}.brain must be one of {', '.join(BRAINS)}, got {shown(data['brain'])}")
    for k in changed:
        text_field(data[k], f"{name}.{k}", empty_ok=k != "goal")
        if "\n" in data[k]:
            raise ValueError(f"field {name}.{k} must be one line")
    return {k: data[k] for k in ("parent", "step", *EDIT_FIELDS, "prefix", "brain") if k in data}


def demo_of(data, names=None) -> str:
    """Which demo a run file is for: "react" for version 1, the `demo` field for version 2 (one of
    `names`, when the caller gives the names it knows; else whatever the field holds, for the demo's
    own checker to refuse)."""
    if not isinstance(data, dict):
        raise ValueError(f"a run must be a JSON object with schema, version, inputs and edits, got {type(data).__name__}")
    if data.get("schema", SCHEMA) != SCHEMA:
        raise ValueError(f"field schema must be {SCHEMA!r}, got {shown(data.get('schema'))}")
    version = data.get("version", VERSION)
    if version not in (VERSION, LATEST) or isinstance(version, bool):
        raise ValueError(f"field version must be {VERSION} or {LATEST} (the versions this code reads), got {shown(version)}")
    if version == VERSION:
        if "demo" in data:
            raise ValueError(f"field demo is part of version {LATEST}; a version {VERSION} file is a ReAct run")
        return "react"
    if names is not None and data.get("demo") not in names:
        raise ValueError(f"field demo must be one of {', '.join(names)} in a version {LATEST} file, got {shown(data.get('demo'))}")
    return data.get("demo")


def edits_and_branches(data) -> list:
    """A run file's edits, once its `edits` and `branches` are lists of a bounded length (else ValueError)."""
    edits = data.get("edits", [])
    if not isinstance(edits, list) or len(edits) > MAX_EDITS:
        raise ValueError(f"field edits must be a list of at most {MAX_EDITS} edits, got {type(edits).__name__}")
    if not isinstance(data.get("branches", []), list):
        raise ValueError("field branches must be a list (the branches the run file recorded)")
    return edits


def check_memory_spec(data) -> tuple[dict, list[dict]]:
    """A memory session's inputs (goals, brain, ...) and edits, or ValueError naming the field."""
    if demo_of(data) != "memory":
        raise ValueError(f"field demo must be 'memory' for a memory session, got {shown(data.get('demo'))}")
    raw = data.get("inputs")
    goals = raw.get("goals") if isinstance(raw, dict) else None
    if not isinstance(goals, list) or not 1 <= len(goals) <= MAX_GOALS:
        raise ValueError(f"field inputs.goals must be a list of 1 to {MAX_GOALS} goals, got {shown(goals)}")
    if "goal" in raw:
        raise ValueError("field inputs.goal is not part of a memory session's inputs: it has inputs.goals")
    for i, goal in enumerate(goals):
        if "\n" in text_field(goal, f"inputs.goals[{i}]"):
            raise ValueError(f"field inputs.goals[{i}] must be one line")
    inputs = {"goals": goals} | react_inputs({"goal": goals[0]} | {k: v for k, v in raw.items() if k != "goals"})
    del inputs["goal"]
    edits = [_edit(e, i) for i, e in enumerate(edits_and_branches(data))]
    for i, edit in enumerate(edits):
        if "goal" in edit:
            raise ValueError(f"field edits[{i}].goal: a memory session's goals are its inputs; edit inputs.goals instead")
        if "brain" in edit:
            raise ValueError(f"field edits[{i}].brain: a memory session has one brain, its inputs.brain")
        if "prefix" in edit:
            raise ValueError(f"field edits[{i}].prefix: a memory session's steps are edited by their thought, action or observation")
    return inputs, edits


def check_spec(data) -> tuple[dict, list[dict]]:
    """The inputs (defaults filled in) and the edits of a run spec, or ValueError naming the field."""
    if demo_of(data) != "react":
        raise ValueError(f"field demo must be 'react' for a ReAct run, got {shown(data.get('demo'))}")
    edits = edits_and_branches(data)
    return react_inputs(data.get("inputs")), [_edit(e, i) for i, e in enumerate(edits)]


# ---- demos made of steps (lllm/timetravel/steps.py): the edits, the fields their caller names ----------

def step_edits(data, fields: tuple, multiline: tuple = ()) -> list[dict]:
    """The edits of a run made of steps, each giving new text for some of `fields` (one line each, but
    those in `multiline`), or ValueError naming the field."""
    return [_step_edit(e, i, fields, multiline) for i, e in enumerate(edits_and_branches(data))]


def edit_changes(data, i: int, fields: tuple, most_steps: int, here: str = " here") -> list[str]:
    """Which of `fields` edit i changes, once it is an object of `parent`, `step` and those fields only,
    its parent an earlier branch and its step at most `most_steps` (else ValueError naming the field)."""
    name = f"edits[{i}]"
    if not isinstance(data, dict):
        raise ValueError(f"field {name} must be an object like {{\"parent\": 1, \"step\": 2, \"{fields[0]}\": \"...\"}}")
    unknown = sorted(set(data) - {"parent", "step", *fields})
    if unknown:
        raise ValueError(f"field {name}.{key_name(unknown[0])} is not something an edit can change{here} ({', '.join(fields)})")
    int_field(data.get("parent"), f"{name}.parent", 1, i + 1)       # branch i + 2 may start from branches 1 .. i + 1
    int_field(data.get("step"), f"{name}.step", 1, most_steps)
    return [k for k in fields if k in data]


def _step_edit(data, i: int, fields: tuple, multiline: tuple) -> dict:
    name, changed = f"edits[{i}]", edit_changes(data, i, fields, MAX_STEP_NUMBER)
    if not changed:
        raise ValueError(f"field {name} changes nothing: give it one of {', '.join(fields)}")
    for k in changed:
        if "\n" in text_field(data[k], f"{name}.{k}", empty_ok=True) and k not in multiline:
            raise ValueError(f"field {name}.{k} must be one line")
    return {k: data[k] for k in ("parent", "step", *fields) if k in data}


# ---- the record every demo writes ------------------------------------------------------------------------

def run_record(demo: str, inputs: dict, edits: list, branches: list[dict], **more) -> dict:
    """A run's record, as a run file holds it: the inputs, the edits, `more` (a demo's own keys), then
    the branches, each opening with its id, its parent and the edit that made it."""
    return {"schema": SCHEMA, "version": LATEST, "demo": demo, "inputs": inputs, "edits": edits} | more | {
        "branches": [{"id": n, "parent": edits[n - 2]["parent"] if n > 1 else None, "edit": edits[n - 2] if n > 1 else None}
                     | b for n, b in enumerate(branches, start=1)]}


# ---- comparing: where two runs part, and a file's recorded branches against the replay ---------------------

def first_difference(a: list, b: list, shown=lambda step: step) -> int | None:
    """The first step or call (1-based) where two runs differ in what `shown` picks of each, or None.
    Every demo compares with it; each says only what of a step counts (`react.STEP_KEYS`, ...)."""
    for i in range(max(len(a), len(b))):
        if i >= len(a) or i >= len(b) or shown(a[i]) != shown(b[i]):
            return i + 1
    return None


def differing_branch(recorded, computed: list) -> int | None:
    """The first branch (its number) where a file's recorded branches differ from a replay's in any
    field, or None when every one is the same. Every demo's record is plain JSON, so the comparison
    is of the whole branch: a hand edit anywhere in it is found."""
    if not isinstance(recorded, list):
        return 1
    computed = json.loads(json.dumps(computed))          # as a file holds it: tuples are lists
    for n, (a, b) in enumerate(zip(recorded, computed), start=1):
        if a != b:
            return n
    return None if len(recorded) == len(computed) else min(len(recorded), len(computed)) + 1
