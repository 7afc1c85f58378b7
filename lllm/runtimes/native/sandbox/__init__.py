"""Layer 3 · run_python's sandbox: where the code an agent writes runs, and what confines it.

Read `../proxies/base.py` first (the tool that uses it), then `worker.py` (the budget and the
import allow-list, the same everywhere: conveniences that give clear early errors, not a
boundary), `process.py` (CPython: a child process with kernel limits and a wall clock),
`boundary.py` (bubblewrap around that child: what actually confines it), `seccomp.py` (the
system calls it may not make), `landlock.py` (the files it may use, a fence of its own) and `in_process.py`
(no processes, the budget only: what the page uses when told to; by default the page runs the
code in an opaque-origin frame, lllm/web/sandbox.py).

`make_interpreter(call_api, budget)` picks the process sandbox inside bubblewrap wherever
processes exist and the in-process one in Pyodide (`sys.platform == "emscripten"`); `kind`
forces one, `boundary="unconfined"` opts out of bubblewrap by name (without it, a machine with
no working bubblewrap gets `SandboxUnavailable` saying what to install), and `bwrap` names the
bwrap executable (default: `$LLLM_BWRAP`, else the one on PATH). Every answer is an `Answer`: the
text, with `metadata["boundary"]` naming what confined it.
A platform may add its own (`use_platform_sandbox`): the page's runtime adds "frame", an
interpreter in an opaque-origin frame (lllm/web/sandbox.py), which Pyodide then uses by default.

Usage:

    >>> python = make_interpreter(lambda path, params: 7, BUDGET, kind="in-process")
    >>> python.run('print(CALL_API("demo/seven", {}) * 6)')
    '42'
"""

from __future__ import annotations

import sys

from lllm.runtimes.native.sandbox.boundary import Answer, SandboxUnavailable
from lllm.runtimes.native.sandbox.worker import BUDGET

__all__ = ["BUDGET", "make_interpreter", "default_kind", "use_platform_sandbox", "Answer", "SandboxUnavailable"]

KINDS = ("process", "in-process")
_PLATFORM: dict = {}     # kind -> factory(call_api, budget), set by a platform adapter (the page)


def use_platform_sandbox(kind: str, factory) -> None:
    """On this platform, `kind` makes `factory(call_api, budget)`; in Pyodide it becomes the default."""
    _PLATFORM[kind] = factory


def default_kind() -> str:
    if sys.platform == "emscripten":
        return next(iter(_PLATFORM), "in-process")
    return "process"


def make_interpreter(call_api, budget: dict, kind: str | None = None, boundary: str | None = None,
                     bwrap: str | None = None):
    kind = kind or default_kind()
    if kind in _PLATFORM:
        return _PLATFORM[kind](call_api, budget)
    if kind == "process":
        from lllm.runtimes.native.sandbox.process import ProcessInterpreter
        return ProcessInterpreter(call_api, budget, boundary or "bubblewrap", bwrap)
    if kind == "in-process":
        if boundary is not None:
            raise ValueError(f"boundary={boundary!r} applies to the process sandbox; the in-process one has none")
        from lllm.runtimes.native.sandbox.in_process import InProcessInterpreter
        return InProcessInterpreter(call_api, budget)
    raise ValueError(f"sandbox kind must be one of {', '.join(KINDS + tuple(_PLATFORM))}, got {kind!r}")
