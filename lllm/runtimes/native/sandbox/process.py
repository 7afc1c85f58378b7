"""Layer 3 · the CPython sandbox: run_python's code in a child process the kernel confines, with a wall clock.

Read `worker.py` first: it is the child. This is the parent side, used wherever there are
processes (CPython on Linux or macOS); Pyodide has none and uses `in_process.py`.

Contract: `ProcessInterpreter(call_api, budget).run(code)` sends `code` to a long-lived child (so
variables persist between calls), answers the child's CALL_API requests by calling `call_api` here
in the parent (the proxies never run inside the sandbox), and returns the child's text. The child
confines itself (memory, CPU per call, no new processes; see worker.py); this side adds the wall
clock: a call that has not finished after `wall_seconds` has its whole process group killed, and
the answer says so. A child the kernel ended (SIGXCPU past `cpu_seconds`) or that crashed is
reported the same way, naming the limit.
Either way the next call starts a fresh child, so earlier variables are gone, and the answer says
that too. `close()` ends the child. subprocess and select are imported only when used.

Usage:

    >>> from lllm.runtimes.native.sandbox.worker import BUDGET
    >>> python = ProcessInterpreter(lambda path, params: {"echo": params}, BUDGET)
    >>> python.run('x = CALL_API("demo/echo", {"n": 2})["echo"]["n"]\\nprint(x * 21)')
    '42'
    >>> python.run("while True:\\n    pass").startswith("Error: BudgetExceeded")
    True
    >>> python.close()
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import sys
import time

__all__ = ["ProcessInterpreter", "RESTARTED"]

WORKER = pathlib.Path(__file__).with_name("worker.py")
RESTARTED = "the interpreter was restarted, so variables from earlier calls are gone"
MAX_LINE = 1_000_000                     # bytes: a request or reply from the child longer than this is refused


class ProcessInterpreter:
    def __init__(self, call_api, budget: dict):
        self.call_api, self.budget = call_api, dict(budget)
        self.child = None
        self.buffer = b""

    # ---- the child's life ------------------------------------------------------------------------------------

    def start(self) -> None:
        import subprocess
        # -E -s: ignore PYTHON* variables and the user's site-packages; an empty environment, so no
        # key or token of ours is there to read; a session of its own, so that killing its process
        # group also kills anything it managed to start.
        self.child = subprocess.Popen([sys.executable, "-E", "-s", str(WORKER)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={},
                                      start_new_session=True)
        self.buffer = b""
        self.send(self.budget)

    def close(self) -> None:
        """Kill the child and everything in its process group."""
        if self.child is None:
            return
        if self.child.poll() is None:
            try:
                os.killpg(self.child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.child.wait()
        for pipe in (self.child.stdin, self.child.stdout):
            pipe.close()
        self.child = None

    def __del__(self):
        self.close()

    # ---- one call ---------------------------------------------------------------------------------------------

    # --8<-- [start:run]
    def run(self, code: str) -> str:
        if len(code) > self.budget["max_code_chars"]:       # refused here: no need to wake the child
            return f"Error: code is {len(code)} characters; the budget is {self.budget['max_code_chars']}"
        if self.child is None:
            self.start()
        deadline = time.monotonic() + self.budget["wall_seconds"]
        try:
            self.send({"code": code})
            while True:
                message = self.receive(deadline)
                if "done" in message:
                    return message["done"]
                self.send(self.answer(*message["call_api"]))
        except TimeoutError:
            self.close()
            return (f"Error: TimeoutError: stopped after {self.budget['wall_seconds']} s of wall-clock time "
                    f"(wall_seconds); {RESTARTED}")
        except (EOFError, BrokenPipeError, ValueError, KeyError, TypeError) as exc:
            status = self.child.wait(timeout=5) if isinstance(exc, (EOFError, BrokenPipeError)) else None
            self.close()
            return f"Error: {self.why_it_ended(status, exc)}; {RESTARTED}"
    # --8<-- [end:run]

    def answer(self, api_path, params) -> dict:
        try:
            return {"result": self.call_api(api_path, params)}
        except Exception as exc:
            message = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
            return {"error": [type(exc).__name__, message]}

    # ---- JSON lines over the pipes ------------------------------------------------------------------------

    def send(self, message) -> None:
        self.child.stdin.write(json.dumps(message, default=repr).encode("utf-8") + b"\n")
        self.child.stdin.flush()

    def receive(self, deadline: float) -> dict:
        """The child's next line, waiting no later than `deadline` (TimeoutError) or until it ends (EOFError)."""
        import select
        fd = self.child.stdout.fileno()
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError("no answer")
            self.buffer += chunk
            if len(self.buffer) > MAX_LINE:
                raise ValueError(f"a message longer than {MAX_LINE} bytes")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)


    def why_it_ended(self, status, exc) -> str:
        """The CPU limit (SIGXCPU), another signal, an exit status, or what went wrong on the pipe."""
        if status == -signal.SIGXCPU:
            return f"CPUTimeExceeded: stopped after {self.budget['cpu_seconds']} s of CPU time (cpu_seconds)"
        if status is not None and status < 0:
            return f"the interpreter process was killed by {signal.Signals(-status).name}"
        if status is not None:
            return f"the interpreter process ended with exit status {status}"
        return f"the interpreter process sent a bad message ({type(exc).__name__}: {exc})"
