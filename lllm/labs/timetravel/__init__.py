"""Layer 4 · time travel for the labs' demos: one file per demo, and the one table of every demo.

    demos.py      DEMOS: a run file's "demo" -> (travel, trace); `travel_any`, `any_trace_text`: the one list of demos
    spec.py       the stepped demos' run files: each demo's inputs and the fields an edit may give
    workflow.py   the typed workflow: each typed step (goal, thought, action, observation, answer)
    oversight.py  human-in-the-loop: the agent's proposals and the human's decisions
    debate.py     the debate: each debater's turn, the critic's verdict, the synthesis
    native.py     the native runtime's demos: the demo tactic (SolveAndExplain) and both native rows

The ReAct run's time travel is `lllm/agents/timetravel.py`, the memory session's
`lllm/labs/memory_timetravel.py`, a native Agent's and any Tactic's `lllm/runtimes/native/timetravel.py`
and `tactic_timetravel.py` (the demo tactic they run is `native.py`); all are rows of `demos.DEMOS` too (the native ones import the runtime only when they run). This folder sits apart from
`lllm/labs/debate/` because it gathers demos from several lab folders, which must not import each
other in a ring.

    >>> from lllm.labs.timetravel.demos import DEMOS
    >>> "debate" in DEMOS
    True
"""
