"""Layer 4 · time travel for any native Tactic: `tactic_record(spec, tactic, agents) -> record`, its agents' model calls as steps.

Read `lllm/runtimes/native/tactic.py` and `native_spec.py` first; `native_agent.py` does the same for one Agent. The caller
names the tactic and how its agents are configured (the pages' demo tactic is the labs':
`lllm/timetravel/native.py`); every agent runs on one predictor, so the calls are counted
across the tactic. The steps of a run are the model calls of its agents, in order: which agent
called, the prompt it saw, the raw text, what was read from it, the tools it ran and their results.

A tactic's `call` is plain Python, and Python cannot be resumed halfway through a function. So an
edit of call j of an earlier branch runs the tactic again from the start, with fresh agents and
dialogs as every tactic call has, but the model is not asked again before call j: calls 1 .. j - 1
are answered with the parent branch's recorded text, call j with the edit, and only the calls after
it go to the brain (a predictor made fresh per call: the seam, `seam.Seam`). So everything before the
edit is what it was, and everything after it follows from the edit. An edit can also give a new
task (a whole new run).

Usage:

    >>> import dataclasses
    >>> @dataclasses.dataclass
    ... class Said:
    ...     answer: str
    >>> class Say(Tactic):
    ...     name, agent_group, output_type = "say", ["solver"], Said
    ...     def call(self, task):
    ...         solver = self.agents["solver"]
    ...         solver.open("say")
    ...         solver.receive(task["question"])
    ...         return Said(solver.respond().content)
    >>> spec = {"version": 2, "demo": "native-tactic", "inputs": {"task": "Hi", "script": "Hello."},
    ...         "edits": [{"parent": 1, "step": 1, "reply": "Bye."}]}
    >>> record = tactic_record(spec, Say, lambda: [{"name": "solver", "system_prompt": "You greet."}])
    >>> tactic_trace(record, Say.name).splitlines()[:2]
    ['native tactic run: say(Hi)', 'brain scripted']
    >>> [b["answer"]["answer"] for b in record["branches"]]
    ['Hello.', 'Bye.']
    >>> print(reply_text("It is 391.", [{"name": "calc", "arguments": {"input": "17 * 23"}}]))
    It is 391.
    Action: calc[{"input": "17 * 23"}]
"""

from __future__ import annotations

import dataclasses
import json
from typing import Callable

from lllm.timetravel.runfile import run_record, shown
from lllm.timetravel.react import sampling_text, step_brains
from lllm.runtimes.native.tactic import Tactic
from lllm.timetravel.native_spec import MAX_NEW_TOKENS, call_records, check_native_spec
from lllm.timetravel.seam import Seam

__all__ = ["tactic_config", "tactic_record", "tactic_trace", "reply_text"]


def tactic_config(predictor: Seam, agents: list[dict]) -> dict:
    """Every agent on one predictor (so the calls are counted across the tactic), each with its own config."""
    return {"global": {"invoker": "predictor", "invoker_config": {"predictor": predictor, "max_new_tokens": MAX_NEW_TOKENS},
                       "max_exception_retry": 2},
            "agent_configs": agents}


def reply_text(content: str, calls: list[dict]) -> str:
    """A reply as the model writes it: its text, then one `Action: name[{...}]` line per tool call."""
    actions = [f"Action: {c['name']}[{json.dumps(c['arguments'])}]" for c in calls]
    return "\n".join([content, *actions] if content else actions)


# ---- one branch: the tactic run again, the calls before the edit answered from the record --------------

def _steps(session, predictor: Seam) -> list[dict]:
    """Every model call of the tactic call, in order, with the agent that made it and the tools it ran."""
    steps, calls = [], iter(call_records(predictor))
    for agent_session in session.agent_sessions:
        for s in agent_session.steps:
            if s.kind == "reply":
                call = next(calls)
                steps.append({"call": call["call"], "agent": agent_session.agent, "source": call["source"],
                              "prompt": call["prompt"], "raw": call["raw"], "content": s.reply, "error": s.error,
                              "calls": []})
            elif s.kind == "tool":
                steps[-1]["calls"].append({"name": s.call.name, "arguments": s.call.arguments, "result": s.call.result_str})
    return steps


def _branch(run, task: str, brain_for, kept: dict, edits: dict) -> dict:
    predictor = Seam(brain_for, edits, kept)
    try:
        session = run(predictor, task)
    except Exception as error:               # an agent gave up, or the output did not fit: the session says which
        session = getattr(error, "session", None)
        if session is None:
            raise
    answer = dataclasses.asdict(session.delivery) if session.state == "success" else None
    return {"task": task, "steps": _steps(session, predictor), "answer": answer,
            "stop_reason": "success" if answer else session.error, "report": session.report()}


def tactic_record(spec: dict, tactic: type[Tactic], agents: Callable[[], list[dict]], models: dict | None = None,
                  field: str = "question") -> dict:
    """The record of a native Tactic run spec: branch 1 and one branch per edit, each a call of `tactic`
    (its agents configured afresh by `agents()`) with the task as its input's `field`."""
    run = lambda predictor, task: tactic(tactic_config(predictor, agents()))({field: task}, return_session=True)  # noqa: E731
    demo, inputs, edits = check_native_spec(spec)
    if demo != "native-tactic":
        raise ValueError(f"field demo must be 'native-tactic' for a Tactic run, got {shown(demo)}")
    brain_for = step_brains(inputs["brain"], inputs["seed"], inputs["temperature"], inputs["script"], models)
    branches = [_branch(run, inputs["task"], brain_for, {}, {})]
    for i, edit in enumerate(edits):
        parent = branches[edit["parent"] - 1]
        if "task" in edit:
            branches.append(_branch(run, edit["task"], brain_for, {}, {}))
            continue
        j = edit["step"]
        if j > len(parent["steps"]):
            raise ValueError(f"field edits[{i}].step is {j}, but branch {edit['parent']} has {len(parent['steps'])} model call(s)")
        kept = {s["call"]: s["raw"] for s in parent["steps"][:j - 1]}
        branches.append(_branch(run, parent["task"], brain_for, kept, {j: edit["reply"]}))
    return run_record(demo, inputs, edits, branches)


def tactic_trace(record: dict, name: str) -> str:
    """The run of tactic `name` as text, as the page shows it and `python -m lllm replay` prints it."""
    i = record["inputs"]
    out = [f"native tactic run: {name}({i['task']})", f"brain {i['brain']}{sampling_text(i)}"]
    for b in record["branches"]:
        e = b["edit"]
        what = "" if e is None else f"the task edited: {e['task']}" if "task" in e else f"call {e['step']} edited"
        out.append("== branch 1: the run" if e is None else f"== branch {b['id']}: from branch {e['parent']}, {what}")
        for s in b["steps"]:
            text = reply_text(s["content"], [c for c in s["calls"]]).replace("\n", "\n      ")
            out.append(f"  call {s['call']} ({s['source']}) {s['agent']}: {text or '(empty)'}")
            if s["error"]:
                out.append(f"      not valid: {s['error']}")
            out += [f"      tool {c['name']}({json.dumps(c['arguments'])}) -> {c['result']}" for c in s["calls"]]
        a = b["answer"]
        out.append("result: " + ", ".join(f"{k} {v!r}" for k, v in a.items()) if a else f"no result ({b['stop_reason']})")
        out += ["  " + line for line in b["report"].split("\n")]
    return "\n".join(out) + "\n"

