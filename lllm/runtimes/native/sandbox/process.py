"""Layer 3 · the CPython sandbox: run_python's code in a child process inside bubblewrap, with a wall clock.

Read `worker.py` first: it is the child. This is the parent side, used wherever there are
processes (CPython on Linux); Pyodide has none and uses `in_process.py`. `boundary.py` builds
the bubblewrap command.

Contract: `ProcessInterpreter(call_api, budget).run(code)` sends `code` to a long-lived child (so
variables persist between calls), answers the child's CALL_API requests by calling `call_api` here
in the parent (the proxies never run inside the sandbox), and returns the child's text as an
`Answer` whose `metadata["boundary"]` names what confined it. The child runs inside bubblewrap
(`boundary="bubblewrap"`, the default: its own namespaces, a read-only view of the interpreter
only, a scratch tmpfs, no network, uid 65534, the syscall filter of `seccomp.py`, and the
Landlock fence the worker puts up where the kernel has it: the answers' boundary then reads
"bubblewrap+seccomp+landlock", else "bubblewrap+seccomp"); where bubblewrap is missing or cannot create
namespaces, the first `run` raises `SandboxUnavailable` saying what to install, unless the caller
chose `boundary="unconfined"` (the same child with its kernel limits only, and the host's files,
network and processes in reach). Either way the child confines itself (memory, CPU per call, no new
processes; see worker.py) and this side adds the wall clock: a call that has not finished after
`wall_seconds` has its child killed (inside bubblewrap: its whole pid namespace), and the answer
says so. A child the kernel ended (SIGXCPU past `cpu_seconds`) or that crashed is reported the
same way, naming the limit. Either way the next call starts a fresh child, so earlier variables
are gone, and the answer says that too. `close()` ends the child. subprocess and select are
imported only when used.

Usage:

    >>> from lllm.runtimes.native.sandbox.worker import BUDGET
    >>> python = ProcessInterpreter(lambda path, params: {"echo": params}, BUDGET)
    >>> python.run('x = CALL_API("demo/echo", {"n": 2})["echo"]["n"]\\nprint(x * 21)')
    '42'
    >>> python.run("print(print.__self__.open('/etc/passwd').read())").startswith("Error: FileNotFoundError")
    True
    >>> python.run("while True:\\n    pass").metadata
    {'boundary': 'bubblewrap+seccomp...'}
    >>> python.close()
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import sys
import time

from lllm.runtimes.native.sandbox.boundary import (NOBODY, Answer, bubblewrap_command, filter_fd, locate,
                                                   readable_paths)

__all__ = ["ProcessInterpreter", "RESTARTED"]

WORKER = pathlib.Path(__file__).with_name("worker.py")
BOUNDARIES = ("bubblewrap", "unconfined")
RESTARTED = "the interpreter was restarted, so variables from earlier calls are gone"
MAX_LINE = 1_000_000                     # bytes: a request or reply from the child longer than this is refused


class ProcessInterpreter:
    FENCES = ("seccomp", "landlock")     # under bubblewrap; bench/sandbox_bench.py turns them off to measure them
    def __init__(self, call_api, budget: dict, boundary: str = "bubblewrap", bwrap: str | None = None):
        self.child, self.namespace_pid = None, None
        if boundary not in BOUNDARIES:
            raise ValueError(f"boundary must be one of {', '.join(BOUNDARIES)}, got {boundary!r}")
        self.call_api, self.budget, self.boundary, self.bwrap = call_api, dict(budget), boundary, bwrap
        self.buffer = b""
        self.fences = self.boundary      # what confined the answers: set when the child starts

    # ---- the child's life ------------------------------------------------------------------------------------

    def start(self) -> None:
        import subprocess
        # An empty environment, so no key or token of ours is there to read; a session of its own, so
        # that killing its process group also kills anything it managed to start.
        options = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={},
                       start_new_session=True)
        if self.boundary == "unconfined":       # -E -s: ignore PYTHON* variables and the user's site-packages
            self.child = subprocess.Popen([sys.executable, "-E", "-s", str(WORKER)], **options)
        else:
            bwrap = locate(self.bwrap)
            info_in, info_out = os.pipe()        # bwrap writes the pid of the namespace's first process here
            seccomp = filter_fd() if "seccomp" in self.FENCES else None   # bwrap reads the filter from here
            try:
                command = bubblewrap_command(bwrap, self.budget, info_fd=info_out, seccomp_fd=seccomp)
                self.child = subprocess.Popen(command, pass_fds=(info_out, *[seccomp][:seccomp is not None]), **options)
            except BaseException:
                os.close(info_in)
                raise
            finally:
                os.close(info_out)
                if seccomp is not None:
                    os.close(seccomp)
            self.namespace_pid = read_child_pid(info_in)
        self.buffer = b""
        confined = self.boundary == "bubblewrap"
        landlock = confined and "landlock" in self.FENCES
        self.send({"budget": self.budget, "uid": NOBODY if confined and os.geteuid() == 0 else None,
                   **({"landlock": {"read": readable_paths(), "write": ["/tmp"]}} if landlock else {})})
        # The worker answers once it has confined itself, naming the fences it put up (Landlock, if any).
        fences = self.receive(time.monotonic() + 30).get("ready", [])
        seccomp = ["seccomp"] if "seccomp" in self.FENCES else []
        self.fences = "+".join(["bubblewrap", *seccomp, *fences] if confined else ["unconfined"])

    def close(self) -> None:
        """Kill the child and everything in its process group."""
        if self.child is None:
            return
        # The first process of bubblewrap's pid namespace: when it dies the kernel kills all the rest.
        for kill, pid in ((os.kill, self.namespace_pid), (os.killpg, self.child.pid)):
            if pid is not None and self.child.poll() is None:
                try:
                    kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.child.wait()
        for pipe in (self.child.stdin, self.child.stdout):
            pipe.close()
        self.child, self.namespace_pid = None, None

    def __del__(self):
        self.close()

    # ---- one call ---------------------------------------------------------------------------------------------

    def run(self, code: str) -> Answer:
        return Answer(self.evaluate(code), self.fences)

    # --8<-- [start:run]
    def evaluate(self, code: str) -> str:
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
        if self.boundary == "bubblewrap" and status is not None and status > 128:
            status = 128 - status             # bwrap exits 128 + N when its child was killed by signal N
        if status == -signal.SIGXCPU:
            return f"CPUTimeExceeded: stopped after {self.budget['cpu_seconds']} s of CPU time (cpu_seconds)"
        if status is not None and status < 0:
            return f"the interpreter process was killed by {signal.Signals(-status).name}"
        if status is not None:
            return f"the interpreter process ended with exit status {status}"
        return f"the interpreter process sent a bad message ({type(exc).__name__}: {exc})"


def read_child_pid(fd: int) -> int | None:
    """The `child-pid` bubblewrap writes to its --info-fd (then closes it), or None if it wrote none."""
    data = b""
    try:
        while chunk := os.read(fd, 4096):
            data += chunk
    finally:
        os.close(fd)
    try:
        return json.loads(data)["child-pid"]
    except (ValueError, KeyError):
        return None
