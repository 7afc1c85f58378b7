"""Layer 4 · time travel: any run recorded at the Predictor seam and re-run from any call, and every demo's run files.

One folder, read in this order:

    seam.py          the engine: any program over a predictor and tools, each call recorded, re-run
                     with a call edited, or another brain from a chosen call on
    runfile.py       the run file and link ("lllm-run", versions 1 and 2): one checker, one error per bad field
    react.py         a ReAct run: branches from edited thoughts, actions, observations, prefixes, brains
    steps.py         any demo made of steps (the workflow, oversight and debate share it)
    stepspec.py      those demos' inputs and the fields an edit may give
    memory.py, workflow.py, oversight.py, debate.py     each demo: how to run it and how to show a step
    native_spec.py, native_agent.py, tactic.py, native.py   the native runtime's Agent and Tactic runs
    demos.py         the one table of demos: a run file's `demo` -> (travel, trace)
    chatlog.py       a run from elsewhere: an OpenAI-style chat log replayed and re-run here
    drilldown.py     from a character a model wrote to the numbers that chose it

It sits with the labs (layer 4) because its demos are theirs: nothing below it knows a lab. The
page's adapter is `lllm/web/timetravel.py`; the terminal's is `python -m lllm replay`.

    >>> from lllm.timetravel.demos import DEMOS
    >>> "debate" in DEMOS
    True
"""
