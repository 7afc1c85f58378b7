"""Layer 3 · time travel for a native Tactic: `travel_tactic(spec) -> record`, its agents' model calls as steps.

Read `tactic.py` and `travel_spec.py` first; `timetravel.py` does the same for one Agent. The demo
tactic is `SolveAndExplain`: a solver agent (with the calc and lookup tools) answers the question,
then an explainer agent is told the question and that answer and explains it. The steps of a run
are the model calls of both agents, in order: which agent called, the prompt it saw, the raw text,
what was read from it, the tools it ran and their results.

A tactic's `call` is plain Python, and Python cannot be resumed halfway through a function. So an
edit of call j of an earlier branch runs the tactic again from the start, with fresh agents and
dialogs as every tactic call has, but the model is not asked again before call j: calls 1 .. j - 1
are answered with the parent branch's recorded text, call j with the edit, and only the calls after
it go to the brain (a predictor made fresh per call, `StepPredictor`). So everything before the
edit is what it was, and everything after it follows from the edit: the solver's next turn, the
explainer's prompt, the result. An edit can also give a new task (a whole new run).

Usage:

    >>> spec = {"version": 2, "demo": "native-tactic", "inputs": {"task": "What is 17 * 23?"},
    ...         "edits": [{"parent": 1, "step": 2, "reply": "It is 400."}]}
    >>> record = travel_tactic(spec)
    >>> [b["answer"]["answer"] for b in record["branches"]]
    ['It is 391.', 'It is 400.']
    >>> "Answer: It is 400." in record["branches"][1]["steps"][2]["prompt"]
    True
"""

from __future__ import annotations

import dataclasses
import json

from lllm.agents.runfile import LATEST, SCHEMA, shown
from lllm.agents.timetravel import step_brains
from lllm.runtimes.native.tactic import Tactic
from lllm.runtimes.native.travel_spec import MAX_NEW_TOKENS, SYSTEM, StepPredictor, check_native_spec, native_tools

__all__ = ["Question", "Solved", "SolveAndExplain", "travel_tactic", "tactic_trace_text", "reply_text"]


# ---- the demo tactic ---------------------------------------------------------------------------------

@dataclasses.dataclass
class Question:
    question: str


@dataclasses.dataclass
class Solved:
    answer: str
    explanation: str


# --8<-- [start:tactic]
class SolveAndExplain(Tactic):
    name = "solve_and_explain"
    agent_group = ["solver", "explainer"]
    input_type = Question
    output_type = Solved

    def call(self, task: Question) -> Solved:
        solver, explainer = self.agents["solver"], self.agents["explainer"]
        solver.open("solve")
        solver.receive(task.question)
        answer = solver.respond().content
        explainer.open("explain")
        explainer.receive(f"Question: {task.question}\nAnswer: {answer}\nExplain the answer in one sentence.")
        return Solved(answer, explainer.respond().content)
# --8<-- [end:tactic]


def config(predictor: StepPredictor) -> dict:
    """Both agents on one predictor (so the calls are counted across the tactic), the solver with tools."""
    return {"global": {"invoker": "predictor", "invoker_config": {"predictor": predictor, "max_new_tokens": MAX_NEW_TOKENS},
                       "max_exception_retry": 2},
            "agent_configs": [{"name": "solver", "system_prompt": SYSTEM, "tools": native_tools(), "max_interrupt_steps": 2},
                              {"name": "explainer", "system_prompt": "You explain answers in one sentence."}]}


def reply_text(content: str, calls: list[dict]) -> str:
    """A reply as the model writes it: its text, then one `Action: name[{...}]` line per tool call."""
    actions = [f"Action: {c['name']}[{json.dumps(c['arguments'])}]" for c in calls]
    return "\n".join([content, *actions] if content else actions)


# ---- one branch: the tactic run again, the calls before the edit answered from the record --------------

def _steps(session, predictor: StepPredictor) -> list[dict]:
    """Every model call of the tactic call, in order, with the agent that made it and the tools it ran."""
    steps, calls = [], iter(predictor.calls)
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


def _branch(task: str, brain_for, answers: dict, sources: dict) -> dict:
    predictor = StepPredictor(brain_for, answers, sources=sources)
    try:
        session = SolveAndExplain(config(predictor))({"question": task}, return_session=True)
    except Exception as error:               # an agent gave up, or the output did not fit: the session says which
        session = getattr(error, "session", None)
        if session is None:
            raise
    answer = dataclasses.asdict(session.delivery) if session.state == "success" else None
    return {"task": task, "steps": _steps(session, predictor), "answer": answer,
            "stop_reason": "success" if answer else session.error, "report": session.report()}


def travel_tactic(spec: dict, models: dict | None = None) -> dict:
    """The record of a native Tactic run spec: branch 1 and one branch per edit."""
    demo, inputs, edits = check_native_spec(spec)
    if demo != "native-tactic":
        raise ValueError(f"field demo must be 'native-tactic' for a Tactic run, got {shown(demo)}")
    brain_for = step_brains(inputs["brain"], inputs["seed"], inputs["temperature"], inputs["script"], models)
    branches = [_branch(inputs["task"], brain_for, {}, {})]
    for i, edit in enumerate(edits):
        parent = branches[edit["parent"] - 1]
        if "task" in edit:
            branches.append(_branch(edit["task"], brain_for, {}, {}))
            continue
        j = edit["step"]
        if j > len(parent["steps"]):
            raise ValueError(f"field edits[{i}].step is {j}, but branch {edit['parent']} has {len(parent['steps'])} model call(s)")
        answers = {s["call"]: s["raw"] for s in parent["steps"][:j - 1]} | {j: edit["reply"]}
        branches.append(_branch(parent["task"], brain_for, answers, {k: "kept" for k in range(1, j)}))
    return {"schema": SCHEMA, "version": LATEST, "demo": demo, "inputs": inputs, "edits": edits,
            "branches": [{"id": n, "parent": edits[n - 2]["parent"] if n > 1 else None, "edit": edits[n - 2] if n > 1 else None}
                         | b for n, b in enumerate(branches, start=1)]}


def tactic_trace_text(record: dict) -> str:
    """The run as text, as the page shows it and `python -m lllm replay` prints it."""
    i = record["inputs"]
    sampling = f", temperature {i['temperature']}, seed {i['seed']}" if i["brain"] == "tinyllm" else ""
    out = [f"native tactic run: solve_and_explain({i['task']})", f"brain {i['brain']}{sampling}"]
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
        out.append(f"result: answer {a['answer']!r}, explanation {a['explanation']!r}" if a else f"no result ({b['stop_reason']})")
        out += ["  " + line for line in b["report"].split("\n")]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(tactic_trace_text(travel_tactic({"version": 2, "demo": "native-tactic", "inputs": {"task": "What is 17 * 23?"},
                                           "edits": [{"parent": 1, "step": 2, "reply": "It is 400."}]})), end="")
