"""Benchmark: what bubblewrap and its fences cost run_python, against the unconfined process sandbox, in one run.

Not a test: it prints numbers and ratios measured back to back in this one run (the machines are
noisy, so only the ratios mean much).

    python bench/sandbox_bench.py [--starts 10] [--calls 200]

Start-up is a fresh interpreter's first call (the child process started, its budget sent, one
line run); a call is one more `run_python` on a warm child, plain or with one CALL_API round trip.
Medians; the ratio is bubblewrap's time over the unconfined one's, and the fences' column is the
whole sandbox (bubblewrap with its syscall filter and Landlock) over bubblewrap alone. Bubblewrap
also pays, once per process, a check that it can create its namespaces here (the probe, printed
on its own).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from lllm.runtimes.native.sandbox import BUDGET, make_interpreter  # noqa: E402
from lllm.runtimes.native.sandbox.boundary import locate, probe  # noqa: E402
from lllm.runtimes.native.sandbox.process import ProcessInterpreter  # noqa: E402

BOUNDARIES = ("unconfined", "bubblewrap alone", "bubblewrap")


class Unfenced(ProcessInterpreter):
    FENCES = ()          # bubblewrap's namespaces only: the sandbox before the syscall filter and Landlock


def interpreter(boundary: str):
    if boundary == "bubblewrap alone":
        return Unfenced(lambda path, params: 1, BUDGET)
    return make_interpreter(lambda path, params: 1, BUDGET, boundary=boundary)
CALLS = {"a plain call": "x = 1", "a call with CALL_API": 'x = CALL_API("demo/one", {})'}


def start_up(starts: int) -> dict[str, float]:
    """Both boundaries in turn, so a change in the machine's load falls on both alike."""
    seconds = {boundary: [] for boundary in BOUNDARIES}
    for _ in range(starts):
        for boundary in BOUNDARIES:
            python = interpreter(boundary)
            begin = time.perf_counter()
            assert python.run("print(1)") == "1"
            seconds[boundary].append(time.perf_counter() - begin)
            python.close()
    return {boundary: statistics.median(times) for boundary, times in seconds.items()}


def per_call(boundary: str, code: str, calls: int) -> float:
    python = interpreter(boundary)
    python.run("pass")
    seconds = []
    for _ in range(calls):
        begin = time.perf_counter()
        assert python.run(code) == ""
        seconds.append(time.perf_counter() - begin)
    python.close()
    return statistics.median(seconds)


def probe_time(repeats: int) -> float:
    seconds = []
    for _ in range(repeats):
        probe.cache_clear()
        begin = time.perf_counter()
        locate()
        seconds.append(time.perf_counter() - begin)
    return statistics.median(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    rows = {"start-up": start_up(args.starts)}
    for name, code in CALLS.items():
        rows[name] = {b: per_call(b, code, args.calls) for b in BOUNDARIES}
    print(f"run_python in CPython, medians of {args.starts} start-ups and {args.calls} calls:")
    print(f"  {'':22s} {'unconfined':>12s} {'bubblewrap':>12s} {'+ fences':>12s}   ratio  fences' ratio")
    for name, row in rows.items():
        ratio, fences = row["bubblewrap"] / row["unconfined"], row["bubblewrap"] / row["bubblewrap alone"]
        print(f"  {name:22s} {row['unconfined'] * 1000:9.2f} ms {row['bubblewrap alone'] * 1000:9.2f} ms "
              f"{row['bubblewrap'] * 1000:9.2f} ms   {ratio:5.2f}x  {fences:5.2f}x")
    print(f"  {'probe, once a process':22s} {'':>12s} {probe_time(args.starts) * 1000:9.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
