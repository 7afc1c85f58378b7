"""run_python's sandbox against hostile code: each attack ends with a clear error, within its limit, never a hang.

The process sandbox (CPython) is tested through ProxyManager, as an agent uses it; the in-process
one (what Pyodide runs) through the same calls with `sandbox="in-process"`.
"""

import os
import time

import pytest

from lllm.runtimes.native import ProxyManager
from lllm.runtimes.native.sandbox import make_interpreter
from lllm.runtimes.native.sandbox.worker import BUDGET, run_code
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy


@pytest.fixture
def python():
    """A ProxyManager on the process sandbox with small limits, so each attack is stopped quickly."""
    manager = ProxyManager([WeatherProxy], budget={"cpu_seconds": 1, "wall_seconds": 20, "memory_mb": 128})
    yield manager
    manager.close()


def timed(manager, code):
    start = time.monotonic()
    answer = manager.run_python(code)
    return answer, time.monotonic() - start


# ---- the ordinary case ----------------------------------------------------------------------------------------

def test_variables_persist_and_call_api_runs_in_the_parent(python):
    assert python.run_python('t = CALL_API("weather/current", {"city": "Oslo"})["temp"]') == ""
    assert python.run_python("print(t + 1)") == "5.5"
    assert python.run_python('CALL_API("weather/current", {"city": "Atlantis"})').startswith(
        "Error: KeyError: \"unknown city 'Atlantis'")


# ---- time --------------------------------------------------------------------------------------------------------

def test_a_python_infinite_loop_is_stopped_by_the_step_budget(python):
    answer, seconds = timed(python, "while True:\n    pass")
    assert answer == "Error: BudgetExceeded: stopped after 100000 steps" and seconds < 20


@pytest.mark.parametrize("code", ["sum(range(10**15))",                  # one C call: no line events, no handler
                                  "while True:\n    x = sorted(range(10**6))"])   # few steps, much CPU
def test_a_cpu_bound_loop_is_ended_by_the_kernels_cpu_limit(python, code):
    answer, seconds = timed(python, code)
    assert answer == ("Error: CPUTimeExceeded: stopped after 1 s of CPU time (cpu_seconds); "
                      "the interpreter was restarted, so variables from earlier calls are gone")
    assert seconds < 20                     # the kernel ended it (1-2 s of CPU), not the 20 s wall clock
    assert python.run_python("print('back')") == "back"


def test_sleeping_past_the_wall_clock_kills_the_process_and_says_the_variables_are_gone():
    python = ProxyManager([WeatherProxy], budget={"wall_seconds": 2})
    try:
        python.run_python("kept = 42")
        answer, seconds = timed(python, "import time\ntime.sleep(600)")       # no CPU used: only the clock sees it
        assert answer == ("Error: TimeoutError: stopped after 2 s of wall-clock time (wall_seconds); "
                          "the interpreter was restarted, so variables from earlier calls are gone")
        assert 2 <= seconds < 4
        assert python.run_python("print(kept)") == "Error: NameError: name 'kept' is not defined"
    finally:
        python.close()


# ---- memory ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("code", ["block = bytearray(4 * 1024**3)", "cells = [0] * 10**9",
                                  "text = 'x' * 10**10"])
def test_a_huge_allocation_is_a_memory_error(python, code):
    answer, seconds = timed(python, code)
    assert answer.startswith("Error: MemoryError") and seconds < 20
    assert python.run_python("print('still here')") == "still here"


def test_growing_until_the_limit_is_a_memory_error_too(python):
    answer, seconds = timed(python, "grow = []\nwhile True:\n    grow.append(bytearray(10**6))")
    assert answer.startswith("Error: MemoryError") and seconds < 20


# ---- imports and processes --------------------------------------------------------------------------------------

@pytest.mark.parametrize("code, module", [("import os", "os"), ("import subprocess", "subprocess"),
                                          ("from socket import socket", "socket"), ("__import__('ctypes')", "ctypes"),
                                          ("import os.path", "os.path")])
def test_a_forbidden_import_names_the_module_and_the_allowed_ones(python, code, module):
    assert python.run_python(code) == (f"Error: ImportError: run_python may not import {module!r} "
                                       f"(allowed: {', '.join(sorted(BUDGET['allowed_imports']))})")


def test_a_fork_bomb_is_stopped_at_its_import():
    manager = ProxyManager([WeatherProxy])
    try:
        assert manager.run_python("import os\nwhile True:\n    os.fork()").startswith(
            "Error: ImportError: run_python may not import 'os'")
    finally:
        manager.close()


def test_a_fork_bomb_with_os_allowed_finds_no_fork_and_starts_nothing():
    budget = {"allowed_imports": [*BUDGET["allowed_imports"], "os"]}
    manager = ProxyManager([WeatherProxy], budget=budget)
    try:
        answer = manager.run_python("import os\nwhile True:\n    os.fork()")
        assert answer == "Error: AttributeError: module 'os' has no attribute 'fork'"
        assert manager.run_python("import os\nos.system('echo escaped')") == \
            "Error: AttributeError: module 'os' has no attribute 'system'"
        # an empty environment: none of our keys or tokens (Python itself sets LC_CTYPE, PEP 538, and
        # bubblewrap sets PWD to the scratch folder)
        assert manager.run_python("import os\nprint(sorted(set(os.environ) - {'LC_CTYPE', 'PWD'}))") == "[]"
        child = manager.interpreter.child.pid
        assert os.popen(f"pgrep -g {child} | wc -l").read().strip() == "1"    # the child alone in its group
    finally:
        manager.close()


# ---- the limits themselves ----------------------------------------------------------------------------------------

def test_files_cannot_be_opened(python):
    assert python.run_python("open('/etc/hostname').read()") == \
        "Error: PermissionError: run_python may not open files ('/etc/hostname')"


def test_code_over_the_size_budget_is_refused_before_it_runs(python):
    assert python.run_python("#" * 4001) == "Error: code is 4001 characters; the budget is 4000"


def test_an_unknown_budget_key_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown run_python budget keys \['cpu'\]"):
        ProxyManager([WeatherProxy], budget={"cpu": 1})


def test_close_ends_the_child_process():
    manager = ProxyManager([WeatherProxy])
    manager.run_python("x = 1")
    child = manager.interpreter.child
    manager.close()
    assert child.poll() is not None


# ---- the in-process sandbox (Pyodide's) ---------------------------------------------------------------------------

def test_in_process_keeps_the_budget_and_the_import_list():
    python = make_interpreter(lambda path, params: {"path": path}, BUDGET, kind="in-process")
    assert python.run('r = CALL_API("a/b", {})\nprint(r["path"])') == "a/b"
    assert python.run("while True:\n    pass") == "Error: BudgetExceeded: stopped after 100000 steps"
    assert python.run("import os").startswith("Error: ImportError: run_python may not import 'os'")


def test_run_code_is_the_same_function_in_both():
    assert run_code("print(sum(range(10)))", {}, BUDGET) == "45"
    with pytest.raises(ValueError, match="sandbox kind must be one of process, in-process, got 'docker'"):
        make_interpreter(print, BUDGET, kind="docker")
