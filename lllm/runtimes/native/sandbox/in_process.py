"""Layer 3 · the in-process sandbox: run_python where there are no processes (Pyodide), under a documented budget.

Read `worker.py` first: this runs the same `run_code` in this interpreter, with the same import
allow-list and step budget. There is no kernel limit here: a loop that makes no line events (one
long C call such as `sum(range(10**12))`) or a huge allocation is not stopped by this budget; in
the page the worker running Python is what can be stopped (site/design.md, "How a page runs an agent"), and in CPython the
process sandbox (`process.py`) is used instead.

Usage:

    >>> from lllm.runtimes.native.sandbox.worker import BUDGET
    >>> python = InProcessInterpreter(lambda path, params: 21, BUDGET)
    >>> python.run('x = CALL_API("demo/n", {})'), python.run("print(x * 2)")
    ('', '42')
"""

from __future__ import annotations

from lllm.runtimes.native.sandbox.worker import run_code

__all__ = ["InProcessInterpreter"]


class InProcessInterpreter:
    def __init__(self, call_api, budget: dict):
        self.budget = dict(budget)
        self.namespace = {"CALL_API": call_api}

    def run(self, code: str) -> str:
        return run_code(code, self.namespace, self.budget)

    def close(self) -> None:
        self.namespace.clear()
