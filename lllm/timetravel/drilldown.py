"""Layer 4 · from a character of a run to the numbers that chose it: one forward pass of the model that wrote it.

Read `lllm/timetravel/react.py` (a ReAct run's record: branches of steps, each with the prompt it
saw and the raw text the model wrote) and `lllm/model/inside.py` (every stage inside TinyLLM at one
position) first. A character is named by three numbers, all counted from 1 as the page shows them:
the branch, the step (the model call) and the character the model drew in that step, `"2:1:5"`
(after an edit's prefix, which the reader wrote; the agent-tuned model draws numbers as slots,
`#1` for the question's first number, and its characters are counted as it drew them).

`writer(record, branch, step)` says who wrote that step's raw text, by the run's own rules: the
steps before an edit are the parent's, an edited step keeps the raw text its parent's model wrote,
and from the edit on the branch's brain writes (a `prefix` edit: the reader wrote the first
characters, the brain the rest). `character(record, "B:S:C")` then reads the step's prompt (and
prefix) and the characters before C into that brain's model, one position at a time, and lays out
position P - 1 + C - 1 (P the length of what it read) as `python -m lllm inside --json` does: the embedding, the
gates and states (TinyLLM) or every head's attention (TinyGPT), the logits, the cut and the random
number of the step's seed that drew it. The draw must give the run's character; if it does not,
the run was made with another model file and the view says so instead of showing numbers that
did not choose it. The page computes the same view in JavaScript for all three brains
(site/assets/agents/drilldown.mjs and drill-brains.mjs);
`python -m lllm replay RUN.json --inside B:S:C --json` prints this one.

Usage:

    >>> where("2:1:5")
    (2, 1, 5)
    >>> record = {"inputs": {"brain": "tinyllm", "seed": 3, "temperature": 0.8},
    ...           "edits": [{"parent": 1, "step": 2, "brain": "tinyllm-agent"}],
    ...           "branches": [{"id": 1, "edit": None}, {"id": 2, "edit": {"parent": 1, "step": 2, "brain": "tinyllm-agent"}}]}
    >>> writer(record, 2, 1)["brain"], writer(record, 2, 1)["seed"], writer(record, 2, 2)["brain"]
    ('tinyllm', 3001, 'tinyllm-agent')

and on the models (after `make models`):

    view = character(travel(spec), "1:1:3")
    view["draw"]["char"] == view["drawn"][2]
"""

from __future__ import annotations

import re

from lllm.timetravel.react import SAMPLING, step_seed
from lllm.model.inside import INSIDE_AGENT_MODEL

__all__ = ["INSPECTABLE", "where", "writer", "character", "timeline", "timeline_text"]

INSPECTABLE = ("tinyllm", "tinyllm-agent", "tinygpt")     # brains with a model to look inside

_WHERE = re.compile(r"([1-9]\d{0,3}):([1-9]\d{0,3}):([1-9]\d{0,5})")


def where(text: str) -> tuple[int, int, int]:
    """"B:S:C" as three numbers (each from 1), or ValueError saying how to write it."""
    match = _WHERE.fullmatch(text.strip()) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"a character is named BRANCH:STEP:CHARACTER, each counted from 1 (e.g. 1:2:5), "
                         f"got {str(text)[:40]!r}")
    return tuple(int(n) for n in match.groups())


# --8<-- [start:writer]
def writer(record: dict, branch: int, step: int) -> dict:
    """Who wrote step `step` of branch `branch`: {brain, seed (None when greedy), temperature, prefix}."""
    inputs, edits = record["inputs"], record.get("edits", [])
    brains = [inputs["brain"]]
    for edit in edits:                                   # each branch's brain: its edit's, else its parent's
        brains.append(edit.get("brain", brains[edit["parent"] - 1]))
    prefix = ""
    while True:
        edit = record["branches"][branch - 1]["edit"]
        only_brain = edit is not None and set(edit) == {"parent", "step", "brain"}
        if edit is None or "goal" in edit or step > edit["step"] or (step == edit["step"] and (only_brain or "prefix" in edit)):
            prefix = edit["prefix"] if edit and step == edit["step"] and "prefix" in edit else ""
            break
        branch = edit["parent"]           # before the edit, or the edited step's raw text: the parent's
    brain = brains[branch - 1]
    sampled = brain in SAMPLING
    return {"brain": brain, "branch": branch, "seed": step_seed(inputs["seed"], step) if sampled else None,
            "temperature": inputs["temperature"] if sampled else 0.0, "prefix": prefix}
# --8<-- [end:writer]


def _lstm_view(prompt: str, given: str, seed: int, temperature: float) -> dict:
    """The story model: `given` read after the prompt in place of the draws; the view of its last character's draw."""
    from lllm.model.inside import INSIDE_MODEL, InsideModel, Trace, position_view
    model = InsideModel(INSIDE_MODEL)
    ids, dropped = model.tokenizer.encode_lossy(prompt)
    t = Trace(list(model.tokenizer.vocab), ids + model.tokenizer.encode_lossy(given)[0], len(ids), seed,
              temperature, 0, 1.0, dropped=dropped)
    state = None
    for position in range(len(t.ids) - 1):
        out = model.step(t.ids[position], state)
        state = out.pop("state")
        t.steps.append(out)
    return position_view(t, len(t.ids) - 2) | {"model_runs": model.runs}


def _agent_view(path: str, prompt: str, c: int, expected: str) -> dict:
    """The agent-tuned model (greedy, number slots): its own call replayed, the view of its c-th drawn character."""
    from lllm.model.inside import InsideModel, position_view, trace
    from lllm.predictors.specs import TINYLLM_AGENT_STOP
    model = InsideModel(path)
    t = trace(model, prompt, 400, 0, 0.0, stop=TINYLLM_AGENT_STOP)
    drawn = t.text[t.prompt_length:len(t.text) - len(t.stopped_by or "")]
    if t.completion != expected:
        raise ValueError(f"here the tinyllm-agent model writes {t.completion[:40]!r} where the run has {expected[:40]!r}: "
                         "the run was made with another tinyllm-agent model file")
    if c > len(drawn):
        raise ValueError(f"the model drew {len(drawn)} character(s) in this step (numbers as slots), not {c}")
    return position_view(t, t.prompt_length - 2 + c) | {"model_runs": model.runs, "drawn": drawn}


def _gpt_view(prompt: str, given: str, seed: int, temperature: float) -> dict:
    """TinyGPT: `given` read after the prompt (its key/value cache); every head's attention, the logits, the draw."""
    from lllm.model.gpt_backend import DEFAULT_GPT, GPTBackend
    from lllm.model.gpt_inside import position_view, read
    from lllm.model.inside import TOP, candidates_by_logit, draw_view
    from lllm.model.sampling import softmax
    backend = GPTBackend(DEFAULT_GPT)
    t, logits = read(backend, prompt, given)
    view = draw_view(logits, t.vocab, seed, len(t.ids) - t.prompt_length - 1, temperature)
    probs = softmax(logits, temperature) if temperature > 0 else [float(i == view["id"]) for i in range(len(logits))]
    return position_view(t, len(t.ids) - 2) | {
        "logits": list(logits), "probs": probs, "seed": seed, "temperature": temperature, "top_k": 0, "top_p": 1.0,
        "top": [[t.vocab[i], probs[i]] for i in candidates_by_logit(logits)[:TOP]], "draw": view, "model_runs": backend.fed}


def character(record: dict, at, agent_inside: str | None = None) -> dict:
    """The forward pass that drew character `at` ("B:S:C" or a tuple) of a ReAct record, as a view;
    ValueError (one sentence) when there is no such character or no model wrote it."""
    b, s, c = where(at) if isinstance(at, str) else at
    branches = record["branches"]
    if b > len(branches):
        raise ValueError(f"the run has {len(branches)} branch(es), not {b}")
    steps = branches[b - 1]["steps"]
    if s > len(steps):
        raise ValueError(f"branch {b} has {len(steps)} step(s), not {s}")
    step = steps[s - 1]
    if step.get("forced") or not step.get("prompt"):
        raise ValueError(f"step {s} of branch {b} was run from the goal (forced), not written by a model")
    raw = step["raw"]
    who = writer(record, b, s)
    if who["brain"] not in INSPECTABLE:
        raise ValueError(f"step {s} of branch {b} was written by {who['brain']}, which has no model to look inside "
                         f"(these have: {', '.join(INSPECTABLE)})")
    prefix = who["prefix"]
    drawn = raw[len(prefix):]                  # what the model drew (an edit's prefix is the reader's)
    prompt, seed = step["prompt"] + prefix, who["seed"] if who["seed"] is not None else 0
    if who["brain"] == "tinyllm-agent":
        view = _agent_view(agent_inside or INSIDE_AGENT_MODEL, prompt, c, drawn)
    elif c > len(drawn):
        raise ValueError(f"the model drew {len(drawn)} character(s) in step {s} of branch {b}"
                         + (" after the edit's prefix" if prefix else "") + f", not {c}")
    else:
        view = (_gpt_view if who["brain"] == "tinygpt" else _lstm_view)(prompt, drawn[:c], seed, who["temperature"])
        view["drawn"] = drawn
    if view["draw"]["char"] != view["drawn"][c - 1]:
        raise ValueError(f"here the {who['brain']} model draws {view['draw']['char']!r} where the run has "
                         f"{view['drawn'][c - 1]!r}: the run was made with another {who['brain']} model file")
    return view | {"branch": b, "step": s, "character": c, "brain": who["brain"], "written_in": who["branch"],
                   "raw": raw, "prefix": prefix, "prompt_chars": len(step["prompt"])}


# ---- the timeline: who wrote each step, how much, how long -----------------------------------------

def timeline(record: dict, timings: dict | None = None) -> list[list[dict]]:
    """Per branch, per step: {step, brain, chars, ms}. `brain` is who wrote the step's raw text
    ("forced" for a tool call run from the goal; a step kept from the parent says whose it was),
    `chars` what the model drew (after an edit's prefix), `ms` the call's time in this computation
    (None for a step kept as it was: its parent's row has it)."""
    rows = []
    for b, branch in enumerate(record["branches"], start=1):
        rows.append([])
        for s, step in enumerate(branch["steps"], start=1):
            if step.get("forced"):
                rows[-1].append({"step": s, "brain": "forced", "chars": 0, "ms": None})
                continue
            who = writer(record, b, s)
            ms = (timings or {}).get((b, s)) if who["branch"] == b else None
            rows[-1].append({"step": s, "brain": who["brain"], "chars": len(step["raw"]) - len(who["prefix"]),
                             "ms": ms, **({"kept_from": who["branch"]} if who["branch"] != b else {})})
    return rows


def timeline_text(record: dict, timings: dict | None = None) -> str:
    """The timeline as `python -m lllm replay --timeline` prints it, one line per step."""
    out = []
    for b, steps in enumerate(timeline(record, timings), start=1):
        out.append(f"== branch {b}")
        for row in steps:
            kept = f"branch {row['kept_from']}'s step" if "kept_from" in row else ""
            ms = f"{row['ms']:8.1f} ms" if row["ms"] is not None else f"{kept or '-':>11}"
            out.append(f"  step {row['step']:<2} {row['brain']:<14} {row['chars']:>4} chars  {ms}")
    return "\n".join(out) + "\n"
