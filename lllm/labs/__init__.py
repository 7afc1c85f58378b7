"""Layer 4 · usage and testing: the labs that run the agents and measure them honestly.

`scoring.py` is the one place answers are compared and a trajectory's own steps are counted;
everything else composes the layers below. One file per lab, and a folder for each lab with
several parts:

    reliability.py           the reliability lab: how often does the agent really succeed?
    evaluator.py             grades how each run went, from its whole trajectory
    inference_playground.py  the same goals, many brains: latency and success side by side
    memory_explainer.py      short- and long-term memory, shown step by step
    typed_workflow.py        a state machine around ReAct
    human_in_loop.py         a human approves, edits or skips each step
    factory/                 the synthetic data factory: tasks, reshaping, episodes, before/after
    heldout/                 goals held out from the factory's grammar, by words and by shape
    debate/                  multi-agent debate: the panel and its stand-in brains
    reasoning_bench/         reasoning frameworks (`lllm/reasoning/`) compared on a task
"""
