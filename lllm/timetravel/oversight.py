"""Layer 4 · time travel for human-in-the-loop oversight: `travel_oversight(spec) -> record`, proposals and decisions.

Read `human_in_loop.py` (the session) and `lllm/timetravel/steps.py` (the engine) first. The
timeline alternates what the agent proposed and what the human decided:

    proposal     the model's thought and its proposed step (`calc[6 * 7]` or `Final Answer: 42`);
                 edit it as if the model had proposed something else
    decision     the human's decision, written as `lllm oversee` takes it: approve, edit TEXT,
                 inject TEXT, skip, quit; its result (the tool's answer, the accepted answer) is shown
    repair       a reply that was neither (the model is asked again); edit it into a proposal

The human's decisions come from `inputs.decisions` in order, then approve — a recorded session is
its goal and its decisions. An edit keeps the steps before it, changes one proposal or decision,
and runs the session on with the same human. An edited proposal is handed to the session as the
model's reply, so the session parses it and scores its confidence as it would the model's. Model call i of every branch is made by a predictor
made fresh for it (`step_brains`), so a replay is exact; the session runs in "approve" mode
(every proposal waits for a decision) and `OversightSession` itself is unchanged.

Usage:

    >>> spec = {"version": 2, "demo": "oversight", "inputs": {"goal": "What is 6 times 7?"},
    ...         "edits": [{"parent": 1, "step": 2, "decision": "edit calc[6 * 8]"}]}
    >>> record = travel_oversight(spec)
    >>> [b["answer"] for b in record["branches"]]
    ['42', '48']
    >>> [(s["title"], s["fields"]) for s in record["branches"][1]["steps"][:2]]
    [('proposal 1', {'thought': 'compute 6 * 7', 'proposal': 'calc[6 * 7]'}), ('decision 1', {'decision': 'edit calc[6 * 8]'})]
"""

from __future__ import annotations

from typing import Sequence

from lllm.agents.react import FORCED_RE, build_prompt, parse_final
from lllm.timetravel.runfile import shown
from lllm.timetravel.steps import steps_trace, travel_steps
from lllm.timetravel.react import sampling_text, step_brains
from lllm.agents.tools import DEFAULT_TOOLS, Tool
from lllm.labs.human_in_loop import OversightSession, PendingStep
from lllm.timetravel.stepspec import check_stepped_spec

__all__ = ["travel_oversight", "oversight_trace_text"]


def _reply(edit: dict, where: str) -> str:
    """An edited proposal as the model would have written it; the session parses and scores it as usual."""
    text = " ".join(edit["proposal"].split())
    if not FORCED_RE.fullmatch(text) and (not text.startswith("Final Answer:") or parse_final(text) is None):
        raise ValueError(f"field {where}.proposal must be written tool[input] or 'Final Answer: ...', got {shown(text)}")
    thought = " ".join(edit["thought"].split())
    return (f"Thought: {thought}\n" if thought else "") + (text if text.startswith("Final Answer:") else f"Action: {text}")


def _decide(session: OversightSession, decision: str, name: str) -> None:
    action, _, text = decision.strip().partition(" ")
    try:
        session.decide(action, text)
    except ValueError as error:
        raise ValueError(f"field {name} ({shown(decision)}) does not fit proposal {session.pending.describe()}: {error}") from None


def _proposal_record(p: PendingStep, n: int, prompt: str) -> dict:
    return {"kind": "proposal", "title": f"proposal {n}", "fields": {"thought": p.thought or "", "proposal": p.describe()},
            "editable": ["thought", "proposal"], "context": {"confidence": f"{p.confidence:.2f}", "raw output": p.raw},
            "prompt": prompt}


def simulate(inputs: dict, overrides: dict, where: str = "inputs", models: dict | None = None,
             tools: Sequence[Tool] = DEFAULT_TOOLS) -> dict:
    """One branch: the session in approve mode, the steps in `overrides` replaced, the human from inputs.decisions."""
    brain_for = step_brains(inputs["brain"], inputs["seed"], inputs["temperature"], inputs["script"], models)
    session = OversightSession(inputs["goal"], None, tools, "approve", inputs["max_steps"], clock=lambda: 0.0)
    steps, proposals, before = [], 0, 0
    replies = {n: _reply(o, where) for n, o in overrides.items() if "proposal" in o}    # checked before the run

    def model(prompt: str, max_new_tokens: int | None = None) -> str:
        """Model call i is a fresh predictor's; an edited proposal is written as the model's reply."""
        number = len(steps) + len(session.steps) - before + 1          # the step this reply becomes
        if number in replies:
            return replies[number]
        return brain_for(len(session.steps) + 1)(prompt, max_new_tokens)

    session.predictor = model
    while True:
        prompt, before = build_prompt(session.goal, tools, session.steps), len(session.steps)
        pending = session.next()
        for s in session.steps[before:]:                   # replies that were neither a call nor an answer
            steps.append({"kind": "repair", "title": "repair", "fields": {"thought": s.thought or "", "proposal": ""},
                          "editable": ["thought", "proposal"], "prompt": prompt,
                          "context": {"raw output": s.raw, "observation": s.observation or ""}})
            prompt = build_prompt(session.goal, tools, session.steps)
        before = len(session.steps)
        if pending is None:
            break
        proposals += 1
        steps.append(_proposal_record(pending, proposals, prompt))
        if len(steps) + 1 in overrides:
            decision, name = overrides[len(steps) + 1]["decision"], f"{where}.decision"
        else:
            given = inputs.get("decisions", [])
            decision, name = (given[proposals - 1], f"inputs.decisions[{proposals - 1}]") if proposals <= len(given) else ("approve", "")
        _decide(session, decision, name)
        steps.append({"kind": "decision", "title": f"decision {proposals}", "fields": {"decision": decision.strip()},
                      "editable": ["decision"], "context": {"result": session.interventions[-1].after}, "prompt": None})
    return {"steps": steps, "answer": session.answer, "stop_reason": session.stop_reason}


def travel_oversight(spec: dict, models: dict | None = None, known: dict | None = None) -> dict:
    """The record of an oversight spec: branch 1 and one recomputed branch per edit."""
    inputs, edits = check_stepped_spec(spec, "oversight")
    return travel_steps("oversight", inputs, edits, lambda i, o, where: simulate(i, o, where, models))


def oversight_trace_text(record: dict) -> str:
    """The session as text, as the page shows it and `python -m lllm replay` prints it."""
    i = record["inputs"]
    human = "; ".join(i.get("decisions", []) + ["then approve"]) if i.get("decisions") else "approve every proposal"
    return steps_trace(record, [f"overseen run: {i['goal']}", f"brain {i['brain']}{sampling_text(i)}, max steps {i['max_steps']}",
                                f"the human: {human}"])


if __name__ == "__main__":
    print(oversight_trace_text(travel_oversight({"version": 2, "demo": "oversight", "inputs": {"goal": "What is 17 * 23?"},
                                                 "edits": [{"parent": 1, "step": 2, "decision": "inject 400"}]})), end="")
