"""Layer 4 · the native runtime's time-travel demos: the demo tactic `SolveAndExplain`, and `travel_native` for both rows.

Read `lllm/timetravel/native_agent.py` (an Agent's run, each branch a Dialog.fork) and
`lllm/timetravel/tactic.py` (any Tactic's run, its agents' model calls as steps)
first: they are the runtime's, generic; this module is the demo the pages run on them. The demo
tactic: a solver agent (with the calc and lookup tools) answers the question, then an explainer
agent is told the question and that answer and explains it. An edit of a model call keeps the calls
before it and runs the rest: the solver's next turn, the explainer's prompt, the result.

This module needs the native runtime (Pydantic); the table of demos (`demos.py`) imports it only
when a native row runs.

Usage:

    >>> spec = {"version": 2, "demo": "native-tactic", "inputs": {"task": "What is 17 * 23?"},
    ...         "edits": [{"parent": 1, "step": 2, "reply": "It is 400."}]}
    >>> record = travel_tactic(spec)
    >>> [b["answer"]["answer"] for b in record["branches"]]
    ['It is 391.', 'It is 400.']
    >>> "Answer: It is 400." in record["branches"][1]["steps"][2]["prompt"]
    True
    >>> travel_native(spec) == record and native_trace_text(record) == tactic_trace_text(record)
    True
"""

from __future__ import annotations

import dataclasses

from lllm.runtimes.native.tactic import Tactic
from lllm.timetravel.tactic import tactic_record, tactic_trace
from lllm.timetravel.native_agent import agent_trace_text, travel_agent
from lllm.timetravel.native_spec import SYSTEM, native_tools

__all__ = ["Question", "Solved", "SolveAndExplain", "travel_tactic", "tactic_trace_text", "travel_native",
           "native_trace_text"]


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


def agents() -> list[dict]:
    """The demo's agents: the solver with the calc and lookup tools, the explainer without."""
    return [{"name": "solver", "system_prompt": SYSTEM, "tools": native_tools(), "max_interrupt_steps": 2},
            {"name": "explainer", "system_prompt": "You explain answers in one sentence."}]



def travel_tactic(spec: dict, models: dict | None = None) -> dict:
    """The record of a native Tactic run spec of the demo tactic: branch 1 and one branch per edit."""
    return tactic_record(spec, SolveAndExplain, agents, models)


def tactic_trace_text(record: dict) -> str:
    """The demo tactic's run as text, as the page shows it and `python -m lllm replay` prints it."""
    return tactic_trace(record, SolveAndExplain.name)


# ---- the two rows of the table of demos ---------------------------------------------------------------

def travel_native(spec, models: dict | None = None) -> dict:
    """An Agent's run or the demo tactic's, whichever the file's `demo` says."""
    return travel_tactic(spec, models) if isinstance(spec, dict) and spec.get("demo") == "native-tactic" \
        else travel_agent(spec, models)


def native_trace_text(record: dict) -> str:
    return tactic_trace_text(record) if record.get("demo") == "native-tactic" else agent_trace_text(record)


if __name__ == "__main__":
    print(tactic_trace_text(travel_tactic({"version": 2, "demo": "native-tactic", "inputs": {"task": "What is 17 * 23?"},
                                           "edits": [{"parent": 1, "step": 2, "reply": "It is 400."}]})), end="")
