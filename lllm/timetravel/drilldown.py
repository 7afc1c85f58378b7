"""Layer 3 · from a character of a run to the numbers that chose it: one forward pass of the model that wrote it.

Read `lllm/agents/timetravel.py` (a ReAct run's record: branches of steps, each with the prompt it
saw and the raw text the model wrote) and `lllm/model/inside.py` (every stage inside TinyLLM at one
position) first. A character is named by three numbers, all counted from 1 as the page shows them:
the branch, the step (the model call) and the character of that step's raw output, `"2:1:5"`.

`writer(record, branch, step)` says who wrote that step's raw text, by the run's own rules: the
steps before an edit are the parent's, an edited step keeps the raw text its parent's model wrote,
and from the edit on the branch's brain writes (a `prefix` edit: the reader wrote the first
characters, the brain the rest). `character(record, "B:S:C")` then reads the step's prompt and the
characters before C into that brain's model, one position at a time, and lays out position
P - 1 + C - 1 (P the prompt's length) as `python -m lllm inside --json` does: the embedding, the
gates and states (TinyLLM) or every head's attention (TinyGPT), the logits, the cut and the random
number of the step's seed that drew it. The draw must give the run's character; if it does not,
the run was made with another model file and the view says so instead of showing numbers that
did not choose it. The page computes the same view in JavaScript (site/assets/agents/drilldown.mjs);
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
    view["draw"]["char"] == view["raw"][2]
"""

from __future__ import annotations

import os
import re

__all__ = ["INSPECTABLE", "where", "writer", "character"]

INSPECTABLE = ("tinyllm", "tinyllm-agent", "tinygpt")     # brains with a model to look inside
SAMPLING = ("tinyllm", "tinyllm-yours", "tinygpt")        # the brains seeded per step (the rest are greedy)
AGENT_INSIDE_MODEL = os.path.join("build", "model", "tinyllm-agent-inside.onnx")   # `make models` writes it
_WHERE = re.compile(r"([1-9]\d{0,3}):([1-9]\d{0,3}):([1-9]\d{0,5})")


def where(text: str) -> tuple[int, int, int]:
    """"B:S:C" as three numbers (each from 1), or ValueError saying how to write it."""
    match = _WHERE.fullmatch(text.strip()) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"a character is named BRANCH:STEP:CHARACTER, each counted from 1 (e.g. 1:2:5), "
                         f"got {str(text)[:40]!r}")
    return tuple(int(n) for n in match.groups())


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
    from lllm.agents.timetravel import step_seed
    sampled = brain in SAMPLING
    return {"brain": brain, "branch": branch, "seed": step_seed(inputs["seed"], step) if sampled else None,
            "temperature": inputs["temperature"] if sampled else 0.0, "prefix": prefix}


def _lstm_view(path: str | None, prompt: str, given: str, seed: int, temperature: float) -> dict:
    from lllm.model.inside import INSIDE_MODEL, InsideModel, Trace, position_view
    model = InsideModel(path or INSIDE_MODEL)
    ids, dropped = model.tokenizer.encode_lossy(prompt)
    t = Trace(list(model.tokenizer.vocab), ids + model.tokenizer.encode_lossy(given)[0], len(ids), seed,
              temperature, 0, 1.0, dropped=dropped)
    state = None
    for position in range(len(t.ids)):
        out = model.step(t.ids[position], state)
        state = out.pop("state")
        t.steps.append(out)
    return position_view(t, len(t.ids) - 2) | {"model_runs": model.runs}


def _gpt_view(prompt: str, given: str, seed: int, temperature: float) -> dict:
    from lllm.model.gpt_backend import DEFAULT_GPT, GPTBackend
    from lllm.model.gpt_inside import position_view, read
    from lllm.model.inside import candidates_by_logit, draw, uniform_of_draw
    from lllm.model.sampling import softmax
    backend = GPTBackend(DEFAULT_GPT)
    t, logits = read(backend, prompt, given)
    index = len(t.ids) - t.prompt_length - 1
    u = None if temperature == 0 else uniform_of_draw(seed, index)
    d = draw(logits, temperature, 0, 1.0, u)
    vocab = t.vocab
    probs = softmax(logits, temperature) if temperature > 0 else [float(i == d["id"]) for i in range(len(logits))]
    return position_view(t, len(t.ids) - 2) | {
        "logits": list(logits), "probs": probs, "seed": seed, "temperature": temperature, "top_k": 0, "top_p": 1.0,
        "top": [[vocab[i], probs[i]] for i in candidates_by_logit(logits)[:5]],
        "draw": {"index": index, "uniform": u, "target": d["target"], "total": d["total"],
                 "kept": [[vocab[i], w / d["total"]] for i, w in zip(d["kept"], d["weights"])],
                 "id": d["id"], "char": vocab[d["id"]]}, "model_runs": backend.fed}


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
    if c > len(raw):
        raise ValueError(f"step {s} of branch {b} wrote {len(raw)} character(s), not {c}")
    who = writer(record, b, s)
    if who["brain"] not in INSPECTABLE:
        raise ValueError(f"step {s} of branch {b} was written by {who['brain']}, which has no model to look inside "
                         f"(these have: {', '.join(INSPECTABLE)})")
    prefix = who["prefix"]
    if c <= len(prefix):
        raise ValueError(f"character {c} of step {s} was written by the edit that made branch {b}, not drawn; "
                         f"open it in branch {branches[b - 1]['edit']['parent']}")
    prompt, given = step["prompt"] + prefix, raw[len(prefix):c]
    seed = who["seed"] if who["seed"] is not None else 0
    if who["brain"] == "tinygpt":
        view = _gpt_view(prompt, given, seed, who["temperature"])
    else:
        path = (agent_inside or AGENT_INSIDE_MODEL) if who["brain"] == "tinyllm-agent" else None
        view = _lstm_view(path, prompt, given, seed, who["temperature"])
    if view["draw"]["char"] != raw[c - 1]:
        raise ValueError(f"here the {who['brain']} model draws {view['draw']['char']!r} where the run has "
                         f"{raw[c - 1]!r}: the run was made with another {who['brain']} model file")
    return view | {"branch": b, "step": s, "character": c, "brain": who["brain"], "written_in": who["branch"],
                   "raw": raw, "prefix": prefix, "prompt_chars": len(step["prompt"])}
