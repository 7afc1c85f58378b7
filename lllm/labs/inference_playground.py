"""Layer 4 · the inference playground: `compare({name: predictor}, cases) -> list of rows` — same goals, many brains.

Read `reliability.py` first. Because every brain sits behind the Predictor seam, comparing them needs no
agent changes: each predictor is wrapped in a `Timed` proxy (calls, characters out, seconds),
the same lab cases run through it, and one table shows latency, characters per second and lab
success side by side. The clock is passed in, so tests can use a fake one.

Usage:

    >>> from lllm.predictors import RulePredictor, echo
    >>> from lllm.labs.reliability import SUITE
    >>> rows = compare({"rule": RulePredictor(), "echo": echo}, SUITE[8:12])
    >>> [(row.name, row.passed, row.cases, row.calls) for row in rows]
    [('rule', 4, 4, 8), ('echo', 0, 4, 16)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from lllm.labs.reliability import SUITE, TestCase, run_lab

__all__ = ["Timed", "Row", "compare", "format_table"]


class Timed:
    """A predictor proxy that measures every call it forwards."""

    def __init__(self, predictor, clock: Callable[[], float] = time.perf_counter):
        self.predictor, self.clock = predictor, clock
        self.calls, self.chars, self.seconds = 0, 0, 0.0

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        start = self.clock()
        try:
            completion = self.predictor(prompt, max_new_tokens)
        finally:
            self.seconds += self.clock() - start
            self.calls += 1
        self.chars += len(completion) if isinstance(completion, str) else 0
        return completion


@dataclass
class Row:
    name: str
    cases: int
    passed: int
    calls: int
    chars: int
    seconds: float

    @property
    def ms_per_call(self) -> float:
        return 1000 * self.seconds / self.calls if self.calls else 0.0

    @property
    def chars_per_second(self) -> float:
        return self.chars / self.seconds if self.seconds > 0 else 0.0


# --8<-- [start:compare]
def compare(predictors: Mapping[str, object], cases: Sequence[TestCase] = SUITE, max_steps: int = 4,
            clock: Callable[[], float] = time.perf_counter) -> list[Row]:
    """Run the same lab cases through each predictor, timing every call."""
    rows = []
    for name, predictor in predictors.items():
        timed = Timed(predictor, clock)
        report = run_lab(timed, cases, max_steps=max_steps, name=name)
        rows.append(Row(name, len(cases), report.passed, timed.calls, timed.chars, timed.seconds))
    return rows
# --8<-- [end:compare]


def format_table(rows: Sequence[Row]) -> str:
    lines = [f"{'predictor':24} {'success':>9} {'calls':>6} {'ms/call':>8} {'chars/s':>9} {'chars':>7}"]
    for r in rows:
        lines.append(f"{r.name:24} {r.passed:4d}/{r.cases:<4d} {r.calls:6d} {r.ms_per_call:8.2f} "
                     f"{r.chars_per_second:9.0f} {r.chars:7d}")
    return "\n".join(lines)


if __name__ == "__main__":
    from lllm.predictors import RulePredictor, echo

    print(format_table(compare({"rule": RulePredictor(), "echo": echo})))
