"""Layer 3 · run_python's sandbox: where the code an agent writes runs, and what confines it.

Read `../proxies.py` first (the tool that uses it), then `worker.py` (the budget and the
import allow-list, the same everywhere), `process.py` (CPython: a child process with kernel
limits and a wall clock) and `in_process.py` (Pyodide: no processes, the budget only).

`make_interpreter(call_api, budget)` picks the process sandbox wherever processes exist and the
in-process one in Pyodide (`sys.platform == "emscripten"`); `kind` forces one. A platform may add
its own (`use_platform_sandbox`): the page's runtime adds "frame", an interpreter in an
opaque-origin frame (lllm/web/sandbox.py), which Pyodide then uses by default.

Usage:

    >>> python = make_interpreter(lambda path, params: 7, BUDGET, kind="in-process")
    >>> python.run('print(CALL_API("demo/seven", {}) * 6)')
    '42'
"""

from __future__ import annotations

import sys

from lllm.runtimes.native.sandbox.worker import BUDGET

__all__ = ["BUDGET", "make_interpreter", "default_kind", "use_platform_sandbox"]

KINDS = ("process", "in-process")
_PLATFORM: dict = {}     # kind -> factory(call_api, budget), set by a platform adapter (the page)


def use_platform_sandbox(kind: str, factory) -> None:
    """On this platform, `kind` makes `factory(call_api, budget)`; in Pyodide it becomes the default."""
    _PLATFORM[kind] = factory


def default_kind() -> str:
    if sys.platform == "emscripten":
        return next(iter(_PLATFORM), "in-process")
    return "process"


def make_interpreter(call_api, budget: dict, kind: str | None = None):
    kind = kind or default_kind()
    if kind in _PLATFORM:
        return _PLATFORM[kind](call_api, budget)
    if kind == "process":
        from lllm.runtimes.native.sandbox.process import ProcessInterpreter
        return ProcessInterpreter(call_api, budget)
    if kind == "in-process":
        from lllm.runtimes.native.sandbox.in_process import InProcessInterpreter
        return InProcessInterpreter(call_api, budget)
    raise ValueError(f"sandbox kind must be one of {', '.join(KINDS + tuple(_PLATFORM))}, got {kind!r}")
