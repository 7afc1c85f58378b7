"""Layer 4 · the reasoning bench: reasoning frameworks compared on a task, with intervals and costs.

    benchmark.py   runs every framework on every puzzle of a split (`python -m lllm reason`)
    report.py      what a benchmark measured and how it is shown: rows, bootstrap intervals, tables

Named "bench" and not "reasoning" so it is never mistaken for `lllm/reasoning/` (layer 3), the
reasoning-framework API it measures: frameworks, the agent, the tasks and their stand-in models.
Import the module you need: `from lllm.labs.reasoning_bench.benchmark import benchmark`.
"""
