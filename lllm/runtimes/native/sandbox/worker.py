"""Layer 3 · inside the sandbox: run code with CALL_API under a step budget and an import allow-list.

Read `../proxies/base.py` first (what run_python is for), then `process.py` (the parent side). This
file is imported by the in-process interpreter (Pyodide) and also runs, as a script, as the child
process of the CPython sandbox, so it imports nothing from lllm and nothing outside the stdlib.

Contract: `run_code(code, namespace, budget)` executes `code` in `namespace` and returns what it
printed (cut at `max_output_chars`) or `Error: <type>: <message>`. Inside the code, `import` takes
only the modules in `budget["allowed_imports"]` (anything else is an ImportError naming the module
and the allowed list), `open` is a PermissionError, and a tracer stops it after `max_steps` line
events (BudgetExceeded). These are conveniences that give the model clear, early errors, not a
boundary: Python code can always walk from an allowed object back to `os` or `sys` (see
`boundary.py`). In CPython the boundary is bubblewrap around this whole process.

As a script (`main()`), the process first confines itself: as root inside bubblewrap it becomes
uid 65534 (the parent asks for it); memory (`RLIMIT_AS`, `memory_mb`); CPU (`RLIMIT_CPU`,
`cpu_seconds` per call, after which the kernel's SIGXCPU ends the process, even inside one long C
call that no Python handler could interrupt); no new processes (`RLIMIT_NPROC`, which binds every
uid but root, and `os`'s fork, exec and spawn functions removed). Then it answers one JSON line per
request on stdin/stdout: `{"code": ...}` in, `{"done": text}` out, with `{"call_api": [path, params]}`
out and `{"result": ...}` or `{"error": [type, message]}` in for each CALL_API on the way.

Usage:

    >>> budget = {**BUDGET, "allowed_imports": ["math"]}
    >>> run_code("import math\\nprint(math.sqrt(16))", {}, budget)
    '4.0'
    >>> run_code("import os", {}, budget)
    "Error: ImportError: run_python may not import 'os' (allowed: math)"
"""

import builtins
import contextlib
import io
import sys

BUDGET = {"max_code_chars": 4000, "max_steps": 100_000, "max_output_chars": 2000,
          "cpu_seconds": 2, "wall_seconds": 5, "memory_mb": 256, "lifetime_cpu_seconds": 60, "scratch_mb": 16,
          "allowed_imports": ["math", "statistics", "json", "re", "datetime", "collections", "itertools",
                              "functools", "random", "string", "decimal", "fractions", "time"]}
# What a sandboxed process may never start: removed from `os` before any code runs.
PROCESS_FUNCTIONS = ("fork", "forkpty", "system", "popen", "spawnv", "spawnve", "spawnl", "spawnle", "spawnvp",
                     "spawnvpe", "spawnlp", "spawnlpe", "execv", "execve", "execl", "execle", "execvp", "execvpe",
                     "execlp", "execlpe", "posix_spawn", "posix_spawnp", "kill", "killpg")


class BudgetExceeded(Exception):
    """The code ran more line events than `max_steps`."""


# ---- running code under the budget ---------------------------------------------------------------------

def guarded_import(allowed):
    real_import = builtins.__import__

    def import_(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name.split(".")[0] not in allowed:
            raise ImportError(f"run_python may not import {name!r} (allowed: {', '.join(sorted(allowed))})")
        return real_import(name, globals, locals, fromlist, level)
    return import_


def no_open(file, *args, **kwargs):
    raise PermissionError(f"run_python may not open files ({file!r})")


# --8<-- [start:run_code]
def run_code(code: str, namespace: dict, budget: dict) -> str:
    """Run `code` in `namespace`; what it printed, or the error, as text."""
    if len(code) > budget["max_code_chars"]:
        return f"Error: code is {len(code)} characters; the budget is {budget['max_code_chars']}"
    namespace["__builtins__"] = {**vars(builtins), "__import__": guarded_import(set(budget["allowed_imports"])),
                                 "open": no_open}
    out, steps = io.StringIO(), [0]

    def tracer(frame, event, arg):
        steps[0] += 1
        if steps[0] > budget["max_steps"]:
            raise BudgetExceeded(f"stopped after {budget['max_steps']} steps")
        return tracer
    previous = sys.gettrace()
    try:
        with contextlib.redirect_stdout(out):
            sys.settrace(tracer)
            exec(compile(code, "<run_python>", "exec"), namespace)
    except Exception as exc:                 # MemoryError included: errors are text
        sys.settrace(previous)
        print(f"Error: {type(exc).__name__}: {exc}", file=out)
    finally:
        sys.settrace(previous)
    text, limit = out.getvalue().strip(), budget["max_output_chars"]
    return text if len(text) <= limit else text[:limit] + f"\n... (output cut at {limit} characters)"
# --8<-- [end:run_code]


# ---- the child process ---------------------------------------------------------------------------------------

def confine(budget: dict, uid=None) -> None:
    """Limits the kernel enforces on this process, set before any sandboxed code runs."""
    import os
    import resource
    if uid is not None:                   # root inside bubblewrap: RLIMIT_NPROC binds every uid but root
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)                    # from root to another uid: every capability is gone too
    memory = budget["memory_mb"] * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))        # root is exempt: hence the os functions below
    lifetime = int(cpu_used()) + budget["lifetime_cpu_seconds"]
    resource.setrlimit(resource.RLIMIT_CPU, (lifetime, lifetime))
    for name in PROCESS_FUNCTIONS:
        if hasattr(os, name):
            delattr(os, name)


def fence(read: list, write: list) -> int:
    """Landlock from landlock.py beside this file (inside the sandbox): its version, 0 where the kernel has none."""
    import importlib.util
    import os
    spec = importlib.util.spec_from_file_location("landlock", os.path.join(os.path.dirname(__file__), "landlock.py"))
    landlock = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(landlock)
    try:
        return landlock.restrict(read, write)
    except OSError:                      # the answers' boundary then names one fence fewer
        return 0


def cpu_used() -> float:
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_deadline(seconds) -> None:
    """SIGXCPU after `seconds` more CPU seconds (whole seconds: the kernel's unit); never past the lifetime limit."""
    import math
    import resource
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (min(math.ceil(cpu_used() + seconds), hard), hard))


def main() -> None:
    import json
    channel_in, channel_out = sys.stdin, sys.__stdout__
    setup = json.loads(channel_in.readline())
    budget = setup["budget"]
    confine(budget, setup.get("uid"))
    fences = ["landlock"] if "landlock" in setup and fence(**setup["landlock"]) else []
    exceptions = {name: value for name, value in vars(builtins).items()
                  if isinstance(value, type) and issubclass(value, Exception)}

    def send(message) -> None:
        channel_out.write(json.dumps(message, default=repr) + "\n")
        channel_out.flush()

    def call_api(api_path, params=None):
        send({"call_api": [api_path, params or {}]})
        reply = json.loads(channel_in.readline())
        if "error" in reply:
            kind, message = reply["error"]
            raise exceptions.get(kind, RuntimeError)(message)
        return reply["result"]

    namespace = {"CALL_API": call_api}
    send({"ready": fences})
    for line in channel_in:
        request = json.loads(line)
        cpu_deadline(budget["cpu_seconds"])                  # SIGXCPU (the end) past this call's CPU budget
        send({"done": run_code(request["code"], namespace, budget)})


if __name__ == "__main__":
    main()
