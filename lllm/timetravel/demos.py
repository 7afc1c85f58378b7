"""Layer 4 · the time-travel demos, one table: `DEMOS[name] = (travel, trace)`; `travel_any` and `any_trace_text` dispatch on it.

Read `lllm/timetravel/react.py` (a ReAct run) and `lllm/timetravel/steps.py` (demos made of
steps) first. A run file's `demo` field (`lllm/timetravel/runfile.py`; version 1 files are "react")
picks the row: `travel(spec, models, known) -> record` recomputes every branch, and `trace(record)`
is the text the page shows and `python -m lllm replay` prints. Every record is plain JSON, so one
comparison serves them all (`runfile.differing_branch`: a file's recorded branches against the
replay, every field). Adding a demo is one row here (and its checker beside its travel function).

This table is the one list of demos. The layers below take the names from it: `runfile.demo_of`
checks a file's `demo` against the names it is given (`which_demo` gives these). The page's widget
(`site/assets/agents/timetravel.mjs`) keeps its own `DEMOS` object, because what it holds per demo
is the page's controls (labels, defaults, which brains), not anything Python computes, and the
widget's JavaScript cannot read this module; generating it at site build would move the controls
into Python for no gain. So the two are held together by a test instead
(`tests/timetravel/test_demos.py`: the widget's demos are exactly these rows), which fails the
moment a row is added on one side only.

The native runtime's rows (`native.py`: an Agent's run, and the demo tactic's) import it only when
they run: the native runtime needs Pydantic, and the pages of the other demos load without it.

Usage:

    >>> sorted(DEMOS)
    ['debate', 'memory', 'native-agent', 'native-tactic', 'oversight', 'react', 'workflow']
    >>> record = travel_any({"version": 2, "demo": "workflow", "inputs": {"goal": "What is 6 times 7?"}})
    >>> record["branches"][0]["answer"], any_trace_text(record).splitlines()[0]
    ('42', 'typed workflow: What is 6 times 7?')
    >>> differing_branch(record["branches"], record["branches"]) is None
    True
"""

from __future__ import annotations

from lllm.timetravel.runfile import demo_of, differing_branch
from lllm.timetravel.react import trace_text, travel
from lllm.timetravel.memory import memory_trace_text, travel_memory
from lllm.timetravel.debate import debate_trace_text, travel_debate
from lllm.timetravel.oversight import oversight_trace_text, travel_oversight
from lllm.timetravel.workflow import travel_workflow, workflow_trace_text

__all__ = ["DEMOS", "which_demo", "travel_any", "any_trace_text", "differing_branch"]   # differing_branch: runfile's, for the callers


# ---- the native runtime's rows: imported when they run (the native runtime needs Pydantic) ---------

def travel_native(spec, models: dict | None = None, known: dict | None = None) -> dict:
    """A native Agent's or the demo Tactic's run (`native.py`)."""
    from lllm.timetravel.native import travel_native as travel_it
    return travel_it(spec, models)


def native_trace_text(record: dict) -> str:
    """A native run's trace: its branches' messages or calls, then its dialog tree."""
    from lllm.timetravel.native import native_trace_text as trace_it
    return trace_it(record)


# --8<-- [start:demos]
DEMOS = {                                   # a run file's "demo" -> (travel, trace)
    "react": (travel, trace_text),
    "memory": (lambda spec, models=None, known=None: travel_memory(spec, models), memory_trace_text),
    "workflow": (travel_workflow, workflow_trace_text),
    "oversight": (travel_oversight, oversight_trace_text),
    "debate": (travel_debate, debate_trace_text),
    "native-agent": (travel_native, native_trace_text),
    "native-tactic": (travel_native, native_trace_text),
}
# --8<-- [end:demos]


def which_demo(data) -> str:
    """The demo a run file is for, one of the rows above, or ValueError naming the field."""
    return demo_of(data, tuple(DEMOS))


def travel_any(spec, models: dict | None = None, known: dict | None = None) -> dict:
    """The record of any run file: the demo its `demo` field names computes every branch."""
    return DEMOS[which_demo(spec)][0](spec, models, known)


def any_trace_text(record: dict) -> str:
    """The trace of any record, by its `demo` field (a version 1 ReAct run has none)."""
    return DEMOS[record.get("demo", "react")][1](record)

