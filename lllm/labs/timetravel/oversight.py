"""Layer 4 · time travel for human-in-the-loop oversight: `travel_oversight(spec) -> record`, proposals and decisions.

Read `human_in_loop.py` (the session) and `lllm/agents/steptravel.py` (the engine) first. The
timeline alternates what the agent proposed and what the human decided:

    proposal     the model's thought and its proposed step (`calc[6 * 7]` or `Final Answer: 42`);
                 edit it as if the model had proposed something else
    decision     the human's decision, written as `lllm oversee` takes it: approve, edit TEXT,
                 inject TEXT, skip, quit; its result (the tool's answer, the accepted answer) is shown
    repair       a reply that was neither (read-only: the model is asked again)

The human's decisions come from `inputs.decisions` in order, then approve — a recorded session is
its goal and its decisions. An edit keeps the steps before it, changes one proposal or decision,
and runs the session on with the same human. Model call i of every branch is made by a predictor
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

from lllm.agents.react import FORCED_RE, Step, build_prompt, parse_final
from lllm.agents.runfile import check_stepped_spec
from lllm.agents.steptravel import steps_trace, travel_steps
from lllm.agents.timetravel import step_brains
from lllm.agents.tools import DEFAULT_TOOLS, Tool
from lllm.labs.human_in_loop import OversightSession, PendingStep, confidence

__all__ = ["travel_oversight", "oversight_trace_text"]


def _proposed(p: PendingStep, edit: dict, session: OversightSession, where: str) -> PendingStep:
    """The pending proposal as the edit rewrote it (its confidence scored again)."""
    text = " ".join(edit["proposal"].split())
    call, final = FORCED_RE.fullmatch(text), parse_final(text)
    if call:
        action, final = (call.group(1), call.group(2).strip()), None
    elif text.startswith("Final Answer:") and final is not None:
        action = None
    else:
        raise ValueError(f"field {where}.proposal must be written tool[input] or 'Final Answer: ...', got {text!r}")
    thought = " ".join(edit["thought"].split()) or None
    score = confidence(Step(thought=thought, action=action, final=final), session.goal, session.steps,
                       [t.name for t in session.tools])
    return PendingStep(p.step, thought, action, final, score, p.raw)


def _decide(session: OversightSession, decision: str, name: str) -> None:
    action, _, text = decision.strip().partition(" ")
    try:
        session.decide(action, text)
    except ValueError as error:
        raise ValueError(f"field {name} ({decision!r}) does not fit proposal {session.pending.describe()}: {error}") from None


def _proposal_record(p: PendingStep, n: int, prompt: str) -> dict:
    return {"kind": "proposal", "title": f"proposal {n}", "fields": {"thought": p.thought or "", "proposal": p.describe()},
            "editable": ["thought", "proposal"], "context": {"confidence": f"{p.confidence:.2f}", "raw output": p.raw},
            "prompt": prompt}


def simulate(inputs: dict, overrides: dict, where: str = "inputs", models: dict | None = None,
             tools: Sequence[Tool] = DEFAULT_TOOLS) -> dict:
    """One branch: the session in approve mode, the steps in `overrides` replaced, the human from inputs.decisions."""
    brain_for = step_brains(inputs["brain"], inputs["seed"], inputs["temperature"], inputs["script"], models)
    session = OversightSession(inputs["goal"], None, tools, "approve", inputs["max_steps"], clock=lambda: 0.0)
    session.predictor = lambda prompt, max_new_tokens=None: brain_for(len(session.steps) + 1)(prompt, max_new_tokens)
    steps, proposals = [], 0
    while True:
        prompt, before = build_prompt(session.goal, tools, session.steps), len(session.steps)
        pending = session.next()
        for s in session.steps[before:]:                   # replies that were neither a call nor an answer
            steps.append({"kind": "repair", "title": "repair", "fields": {}, "editable": [],
                          "context": {"raw output": s.raw, "observation": s.observation or ""}, "prompt": prompt})
            prompt = build_prompt(session.goal, tools, session.steps)
        if pending is None:
            break
        proposals += 1
        if len(steps) + 1 in overrides:
            session.pending = pending = _proposed(pending, overrides[len(steps) + 1], session, where)
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
    sampling = f", temperature {i['temperature']}, seed {i['seed']}" if i["brain"] == "tinyllm" else ""
    human = "; ".join(i.get("decisions", []) + ["then approve"]) if i.get("decisions") else "approve every proposal"
    return steps_trace(record, [f"overseen run: {i['goal']}", f"brain {i['brain']}{sampling}, max steps {i['max_steps']}",
                                f"the human: {human}"])


if __name__ == "__main__":
    print(oversight_trace_text(travel_oversight({"version": 2, "demo": "oversight", "inputs": {"goal": "What is 17 * 23?"},
                                                 "edits": [{"parent": 1, "step": 2, "decision": "inject 400"}]})), end="")
