"""Layer 3 · the in-process sandbox: run_python where there are no processes (Pyodide), under a documented budget.

Read `worker.py` first: this runs the same `run_code` in this interpreter, with the same import
allow-list and step budget. There is no kernel limit and no boundary here: a loop that makes no
line events (one long C call such as `sum(range(10**12))`) or a huge allocation is not stopped by
this budget, and code can walk back to `os`. In the page the boundary is the browser's (Python
runs as WebAssembly in a worker the page can stop: site/design.md, "How a page runs an agent"), so
answers name it `"pyodide"`; in CPython answers say `"none"`, and the process sandbox inside
bubblewrap (`process.py`) is the default instead.

Usage:

    >>> from lllm.runtimes.native.sandbox.worker import BUDGET
    >>> python = InProcessInterpreter(lambda path, params: 21, BUDGET)
    >>> python.run('x = CALL_API("demo/n", {})'), python.run("print(x * 2)")
    ('', '42')
"""

from __future__ import annotations

import sys

from lllm.runtimes.native.sandbox.boundary import Answer
from lllm.runtimes.native.sandbox.worker import run_code

__all__ = ["InProcessInterpreter"]


class InProcessInterpreter:
    def __init__(self, call_api, budget: dict):
        self.budget = dict(budget)
        self.namespace = {"CALL_API": call_api}
        self.boundary = "pyodide" if sys.platform == "emscripten" else "none"

    def run(self, code: str) -> Answer:
        return Answer(run_code(code, self.namespace, self.budget), self.boundary)

    def close(self) -> None:
        self.namespace.clear()
